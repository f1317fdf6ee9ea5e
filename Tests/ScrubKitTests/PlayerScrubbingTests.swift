import Foundation
@testable import ScrubKit
import Testing
import MediaTime

/// The seek policy of keyboard and bar scrubbing, in the player and on its injected clock: loose while keys repeat,
/// exact once they rest; absolute places always exact; media of unknown length over what has been seen.
@Suite struct PlayerScrubbingTests {
    func makePlayer(duration: Double?) -> (Player, ManualClock, ScriptedPipeline) {
        let clock = ManualClock()
        let pipe = ScriptedPipeline(duration: duration.map { s($0) })
        let p = Player(pipeline: pipe, clock: clock)
        p.flush()
        return (p, clock, pipe)
    }

    func seeks(_ pipe: ScriptedPipeline, _ p: Player) -> [ScriptedPipeline.Seek] {
        p.flush()
        return pipe.seeks.withLock { $0 }
    }

    @Test func keyJumpsAreLooseThenExactOnceTheKeysRest() {
        let (p, clock, pipe) = makePlayer(duration: 100)
        p.jump(by: 5, exact: true)
        clock.advance(by: 0.1)
        p.jump(by: 5, exact: true)   // a repeat before the rest
        var got = seeks(pipe, p)
        #expect(got.count == 2 && got.allSatisfy { $0.before.isPositiveInfinity }, "loose while keys repeat")
        clock.advance(by: Player.settleDelay * 0.9)
        #expect(seeks(pipe, p).count == 2, "not yet: the keys rested less than the delay since the last")
        clock.advance(by: Player.settleDelay * 0.2)
        got = seeks(pipe, p)
        #expect(got.count == 3)
        #expect(
            got.last?.time == s(10) && got.last?.before == .zero && got.last?.after == .zero,
            "exact where the keys left it")
        clock.advance(by: 5)
        #expect(seeks(pipe, p).count == 3, "once")
    }

    @Test func withoutExactSeeksAKeyJumpStaysLooseButAnAbsolutePlaceIsExact() {
        let (p, clock, pipe) = makePlayer(duration: 100)
        p.jump(by: 60, exact: false)
        clock.advance(by: 1)
        #expect(seeks(pipe, p).count == 1)
        p.jump(toFraction: 0.5)
        #expect(seeks(pipe, p).last?.before.isPositiveInfinity == true)
        clock.advance(by: 1)
        let last = seeks(pipe, p).last
        #expect(last?.time == s(50) && last?.before == .zero, "50 % means 50 %")
    }

    @Test func anotherMoveCancelsTheSettle() {
        let (p, clock, pipe) = makePlayer(duration: 100)
        p.jump(by: 5, exact: true)
        p.cancelSettle()
        clock.advance(by: 1)
        #expect(seeks(pipe, p).count == 1)
    }

    @Test func unknownLengthSeeksByTimeOverWhatHasBeenSeen() {
        let (p, clock, pipe) = makePlayer(duration: nil)
        pipe.finishLoading(PlayerMediaInfo(start: .zero, duration: .indefinite, hasVideo: true))
        p.flush()
        #expect(p.seekableSpan.isValid == false || p.seekableSpan == .zero)
        p.play()
        clock.advance(by: 20)
        #expect(p.snapshot(takingFrame: false).seekableSpan == s(20), "the bar spans what was seen")
        p.jump(toFraction: 0.25)
        #expect(seeks(pipe, p).last?.time == s(5) && seeks(pipe, p).last?.before == .zero)
        p.jump(by: -60, exact: false)
        let back = seeks(pipe, p).last
        #expect(back?.time == .zero && back?.before.isPositiveInfinity == true, "by time, from the start on")
        #expect(p.seekableSpan == s(20), "still what was seen")
    }

    @Test func aSnapshotReadsEverythingAtOneInstant() {
        let (p, clock, _) = makePlayer(duration: 100)
        p.play()
        clock.advance(by: 25)
        let snap = p.snapshot(takingFrame: true)
        #expect(snap.time == s(25) && snap.rate == 1 && snap.duration == s(100) && !snap.isSeeking)
        #expect(abs(snap.fraction - 0.25) < 1e-9)
        #expect(snap.frame == nil, "the scripted pipeline decodes nothing")
    }
}
