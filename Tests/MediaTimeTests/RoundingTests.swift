import Testing
@testable import MediaTime

/// `convertScale` with the six rounding methods (cmtime-semantics.md §Rounding methods).
@Suite struct RoundingTests {
    @Test func rawValuesMatchCoreMedia() {
        #expect(MediaTimeRoundingMethod.roundHalfAwayFromZero.rawValue == 1)
        #expect(MediaTimeRoundingMethod.roundTowardZero.rawValue == 2)
        #expect(MediaTimeRoundingMethod.roundAwayFromZero.rawValue == 3)
        #expect(MediaTimeRoundingMethod.quickTime.rawValue == 4)
        #expect(MediaTimeRoundingMethod.roundTowardPositiveInfinity.rawValue == 5)
        #expect(MediaTimeRoundingMethod.roundTowardNegativeInfinity.rawValue == 6)
        #expect(MediaTimeRoundingMethod.default == .roundHalfAwayFromZero)
    }

    // 25/600 s into timescale 100 is 4.1666… units; −25/600 is −4.1666…
    @Test(arguments: [
        (MediaTimeRoundingMethod.roundHalfAwayFromZero, Int64(4), Int64(-4)),
        (.roundTowardZero, 4, -4),
        (.roundAwayFromZero, 5, -5),
        (.quickTime, 4, -4),  // shrinking timescale: toward zero
        (.roundTowardPositiveInfinity, 5, -4),
        (.roundTowardNegativeInfinity, 4, -5),
    ])
    func eachMethodRoundsAsDocumented(method: MediaTimeRoundingMethod, positive: Int64, negative: Int64) {
        let p = MediaTime(value: 25, timescale: 600).convertScale(100, method: method)
        let n = MediaTime(value: -25, timescale: 600).convertScale(100, method: method)
        #expect(p.value == positive && p.timescale == 100 && p.hasBeenRounded)
        #expect(n.value == negative && n.hasBeenRounded)
    }

    @Test func halfAwayFromZeroOnExactHalves() {
        #expect(MediaTime(value: 3, timescale: 2).convertScale(1).value == 2)
        #expect(MediaTime(value: -3, timescale: 2).convertScale(1).value == -2)
        #expect(MediaTime(value: 5, timescale: 4).convertScale(2).value == 3)  // 2.5 → 3
    }

    @Test func quickTimeAwayFromZeroWhenGrowing() {
        // 1/3 s into 1000 (larger timescale): 333.33… → 334
        let t = MediaTime(value: 1, timescale: 3).convertScale(1000, method: .quickTime)
        #expect(t.value == 334)
    }

    @Test func quickTimeNeverRoundsNegativeToZero() {
        let t = MediaTime(value: -1, timescale: 600).convertScale(1, method: .quickTime)
        #expect(t.value == -1 && t.timescale == 1)
        let z = MediaTime(value: -1, timescale: 600).convertScale(1, method: .roundTowardZero)
        #expect(z.value == 0)
    }

    @Test func exactConversionIsNotRounded() {
        let t = MediaTime(value: 3, timescale: 2).convertScale(600)
        #expect(t.value == 900 && !t.hasBeenRounded)
    }

    @Test func nonNumericComesBackUnchanged() {
        #expect(MediaTime.indefinite.convertScale(600).isIndefinite)
        #expect(MediaTime.positiveInfinity.convertScale(600).isPositiveInfinity)
        #expect(!MediaTime.invalid.convertScale(600).isValid)
    }

    @Test func badTimescaleIsInvalid() {
        #expect(!MediaTime(value: 1, timescale: 2).convertScale(0).isValid)
    }

    @Test func overflowingConversionIsInfinite() {
        let t = MediaTime(value: .max / 2, timescale: 1).convertScale(1000)
        #expect(t.isPositiveInfinity)
    }

    @Test func roundedFlagIsSticky() {
        let r = MediaTime(value: 1, timescale: 3).convertScale(10)   // rounded
        let back = r.convertScale(20)                              // exact, but the history stays
        #expect(back.hasBeenRounded)
    }
}
