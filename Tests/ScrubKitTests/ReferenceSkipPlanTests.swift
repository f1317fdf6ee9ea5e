import FFmpegBridge
import Testing
@testable import ScrubKit

/// The plan of which reference B-pictures an exact request leaves undecoded, on GOPs laid out as encoders lay them out.
struct ReferenceSkipPlanTests {
    typealias Unit = ReferenceSkipPlan.Unit

    /// An IDR picture, then mini-GOPs of a P picture and three B pictures whose middle one is a reference (x264's
    /// B-pyramid), in decode order: P(4k) B(4k-2, reference) b(4k-3) b(4k-1). Frame numbers as x264 counts them.
    func pyramid(_ miniGOPs: Int, pNames: Bool, commands: Bool, window: Int = 4) -> [Unit] {
        func unit(
            _ kind: Unit.Kind, ref: Bool, _ frameNum: Int, at t: Int64, named: Set<Int>? = nil, unmarks: [Int]? = nil
        ) -> Unit {
            Unit(
                kind: kind, isReference: ref, isIDR: t == 0, frameNum: frameNum % 16, named: named, l0Active: 1,
                l1Active: 1, modified: named != nil, unmarks: unmarks, presentation: t, maxReferenceFrames: window)
        }
        var units = [unit(.intra, ref: true, 0, at: 0)]
        for k in 1...miniGOPs {
            let p = 2 * k - 1, t = Int64(4 * k)
            units.append(unit(.predicted, ref: true, p, at: t, named: pNames && k > 1 ? [(p - 2) % 16] : nil))
            // x264 takes out, at each pyramid's middle picture, the P picture two back and the previous middle one.
            let out = commands && k > 1 ? [k == 2 ? 0 : (2 * k - 5) % 16, (2 * k - 2) % 16] : nil
            units.append(unit(.bidirectional, ref: true, 2 * k, at: t - 2, unmarks: out))
            units.append(unit(.bidirectional, ref: false, 2 * k + 1, at: t - 3))
            units.append(unit(.bidirectional, ref: false, 2 * k + 1, at: t - 1))
        }
        return units
    }

    @Test func x264sPyramidKeepsOnlyThePicturesStillInTheAnswersBuffer() {
        // As the 60 s benchmark clip at 1 s into a GOP: the answer is the eighth pyramid's middle picture (index 30).
        let units = pyramid(8, pNames: true, commands: true)
        #expect(units[30].kind == .bidirectional && units[30].isReference)
        let plan = ReferenceSkipPlan(units: units, answer: 30)
        // Its buffer holds the P pictures before and after it and the last two middle pictures' stand-ins would still
        // be in it: those two are decoded, the six before are not.
        #expect(plan.skipped == [2, 6, 10, 14, 18, 22])
    }

    @Test func aPAnswerWhosePPicturesNameTheirReferencesSkipsEveryMiddlePicture() {
        // Sliding window only (no commands): the P pictures name the P before them, so no stand-in is ever used.
        let units = pyramid(6, pNames: true, commands: false)
        let answer = 21   // the sixth P picture, presented at 24
        #expect(units[answer].kind == .predicted && units[answer].presentation == 24)
        let plan = ReferenceSkipPlan(units: units, answer: answer)
        #expect(plan.skipped == [2, 6, 10, 14, 18, 22])
    }

    @Test func pPicturesInDefaultOrderReferToTheNewestSoNoneBeforeTheAnswerIsSkipped() {
        // Without names, a P picture's list 0 starts with the newest reference: the middle picture decoded just before.
        // Only the one decoded after the answer is left out.
        let units = pyramid(6, pNames: false, commands: false)
        #expect(ReferenceSkipPlan(units: units, answer: 21).skipped == [22])
    }

    @Test func aBAnswerWithTheSlidingWindowWaitsForTheStandInsToLeave() {
        // No commands: a stand-in leaves the buffer four references later, and a B answer needs its buffer whole.
        let units = pyramid(6, pNames: true, commands: false)
        let answer = 22   // the sixth middle picture, presented at 22
        let plan = ReferenceSkipPlan(units: units, answer: answer)
        #expect(plan.skipped == [2, 6, 10])
        // A wider window keeps stand-ins longer: fewer are left out.
        #expect(
            ReferenceSkipPlan(units: pyramid(6, pNames: true, commands: false, window: 8), answer: answer).skipped == [
                2
            ])
    }

    @Test func nothingWithoutAnIDRFirst() {
        var units = pyramid(4, pNames: true, commands: true)
        units[0].isIDR = false
        #expect(ReferenceSkipPlan(units: units, answer: 14).skipped.isEmpty)
    }

    @Test func expGolombCodesAndEmulationPrevention() throws {
        // 1 | 010 | 011 | 00100 | 00101 → ue 0, 1, 2, 3 and se(4) = -2; then 0x00 0x00 0x03 0x01: the 0x03 is
        // dropped.
        var r = RBSPReader([0b1010_0110, 0b0100_0010, 0b1000_0000, 0x00, 0x00, 0x03, 0x01])
        #expect(try r.ue() == 0)
        #expect(try r.ue() == 1)
        #expect(try r.ue() == 2)
        #expect(try r.ue() == 3)
        #expect(try r.se() == -2)
        _ = try r.bits(7)
        #expect(try r.bits(24) == 0x000001)
        #expect(throws: RBSPReader.Exhausted.self) { try r.bits(1) }
    }
}
