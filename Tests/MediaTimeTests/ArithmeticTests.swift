import Testing
@testable import MediaTime

/// Add, subtract, multiply (cmtime-semantics.md §Arithmetic).
@Suite struct ArithmeticTests {
    let pInf = MediaTime.positiveInfinity, nInf = MediaTime.negativeInfinity
    let indef = MediaTime.indefinite, inv = MediaTime.invalid
    let one = MediaTime(value: 1, timescale: 1)

    @Test func sameTimescaleIsKept() {
        let s = MediaTime(value: 1, timescale: 600) + MediaTime(value: 2, timescale: 600)
        #expect(s.value == 3 && s.timescale == 600 && !s.hasBeenRounded)
    }

    @Test func differentTimescalesUseLCM() {
        let s = MediaTime(value: 1, timescale: 24) + MediaTime(value: 1, timescale: 25)
        #expect(s.timescale == 600 && s.value == 49)
    }

    @Test func lcmAboveMaxTimescaleIsCappedAndRounded() {
        let a = MediaTime(value: 1, timescale: 2_147_483_647)   // prime
        let b = MediaTime(value: 1, timescale: 2)
        let s = a + b
        #expect(s.timescale == MediaTime.maxTimescale)
        #expect(s.hasBeenRounded)
        #expect(abs(s.seconds - (0.5 + 1 / 2_147_483_647.0)) < 1e-9)
    }

    @Test func overflowHalvesTimescale() {
        let big = MediaTime(value: .max - 10, timescale: 1000)
        let s = big + MediaTime(value: 100, timescale: 1000)
        #expect(s.isNumeric)
        #expect(s.timescale == 500)
        #expect(s.hasBeenRounded)
    }

    @Test func overflowAtTimescaleOneIsInfinity() {
        let big = MediaTime(value: .max, timescale: 1)
        #expect((big + one).isPositiveInfinity)
        let small = MediaTime(value: .min + 1, timescale: 1)
        #expect((small - MediaTime(value: 5, timescale: 1)).isNegativeInfinity)
    }

    @Test func roundedOperandPropagates() {
        let r = MediaTime(value: 1, timescale: 3, flags: [.valid, .hasBeenRounded], epoch: 0)
        #expect((r + one).hasBeenRounded)
        #expect(!(one + one).hasBeenRounded)
    }

    @Test func invalidOperandGivesInvalid() {
        #expect(!(inv + one).isValid)
        #expect(!(one - inv).isValid)
        #expect(!(pInf + inv).isValid)
    }

    @Test func additionInfinityTable() {
        #expect((pInf + one).isPositiveInfinity)
        #expect((one + nInf).isNegativeInfinity)
        #expect((pInf + pInf).isPositiveInfinity)
        #expect((nInf + nInf).isNegativeInfinity)
        #expect(!(pInf + nInf).isValid)
        #expect((pInf + indef).isPositiveInfinity)
    }

    @Test func subtractionInfinityTable() {
        #expect(!(pInf - pInf).isValid)
        #expect(!(nInf - nInf).isValid)
        #expect((pInf - nInf).isPositiveInfinity)
        #expect((nInf - pInf).isNegativeInfinity)
        #expect((one - pInf).isNegativeInfinity)
        #expect((one - nInf).isPositiveInfinity)
    }

    @Test func indefiniteTable() {
        #expect((indef + one).isIndefinite)
        #expect((one - indef).isIndefinite)
        #expect((indef + indef).isIndefinite)
    }

    @Test func differentNonZeroEpochsAreInvalid() {
        let a = MediaTime(value: 1, timescale: 1, flags: .valid, epoch: 1)
        let b = MediaTime(value: 1, timescale: 1, flags: .valid, epoch: 2)
        #expect(!(a - b).isValid)
        #expect(!(a + b).isValid)
    }

    @Test func sameNonZeroEpochGivesDuration() {
        let a = MediaTime(value: 5, timescale: 1, flags: .valid, epoch: 3)
        let b = MediaTime(value: 2, timescale: 1, flags: .valid, epoch: 3)
        let d = a - b
        #expect(d.epoch == 0 && d.value == 3)
    }

    @Test func durationAddsToAnyEpoch() {
        let a = MediaTime(value: 5, timescale: 1, flags: .valid, epoch: 3)
        #expect((a + one).epoch == 3)
        #expect((one + a).epoch == 3)
        #expect((a - one).epoch == 3)
    }

    @Test func negationAndOperators() {
        var t = MediaTime(value: 3, timescale: 2)
        t += MediaTime(value: 1, timescale: 2)
        #expect(t == MediaTime(value: 2, timescale: 1))
        t -= MediaTime(value: 5, timescale: 1)
        #expect(t == MediaTime(value: -3, timescale: 1))
        #expect(-t == MediaTime(value: 3, timescale: 1))
        #expect((-pInf).isNegativeInfinity)
    }

    @Test func multiplyByIntKeepsTimescale() {
        let t = MediaTime(value: 7, timescale: 600) * 3
        #expect(t.value == 21 && t.timescale == 600)
    }

    @Test func multiplyByIntOverflowHalvesThenInfinity() {
        let t = MediaTime(value: .max / 2 + 1, timescale: 1000) * 2
        #expect(t.isNumeric && t.timescale == 500)
        #expect((MediaTime(value: .max / 2 + 1, timescale: 1) * 2).isPositiveInfinity)
        #expect((MediaTime(value: .max / 2 + 2, timescale: 1) * -2).isNegativeInfinity)
        #expect((MediaTime(value: .max / 2 + 1, timescale: 1) * -2).value == .min)  // -2^63 still fits
    }

    @Test func infinityTimesIntSign() {
        #expect((pInf * -2).isNegativeInfinity)
        #expect((nInf * -2).isPositiveInfinity)
        #expect(!(pInf * Int32(0)).isValid)
        #expect((indef * 3).isIndefinite)
    }

    @Test func multiplyByDoubleRaisesTimescaleTo65536() {
        let t = MediaTime(value: 1, timescale: 600).multiplied(byFloat64: 0.5)
        #expect(t.timescale >= 65536)
        #expect(t.timescale == 600 * 128)
        #expect(t.seconds == 0.5 / 600)
    }

    @Test func multiplyByDoubleBadInputs() {
        #expect(!MediaTime(value: 1, timescale: 1).multiplied(byFloat64: .nan).isValid)
        #expect(!pInf.multiplied(byFloat64: 0).isValid)
        #expect(pInf.multiplied(byFloat64: -1).isNegativeInfinity)
        #expect(MediaTime(value: 1, timescale: 1).multiplied(byFloat64: 1e300).isPositiveInfinity)
    }

    @Test func ratioIsExactInSameTimescale() {
        let t = MediaTime(value: 600, timescale: 600).multiplied(byRatio: 1, divisor: 3)
        #expect(t.value == 200 && t.timescale == 600 && !t.hasBeenRounded)
    }

    @Test func ratioFindsExactTimescale() {
        // 3 s (timescale 1) × 1/2 = 1.5 s exactly: the tutorial truncation bug gives 1 s.
        let t = MediaTime(value: 3, timescale: 1).multiplied(byRatio: 1, divisor: 2)
        #expect(t.seconds == 1.5 && !t.hasBeenRounded)
    }

    @Test func ratioInexactRoundsAndFlags() {
        let t = MediaTime(value: 1, timescale: 1_000_000_007).multiplied(byRatio: 1, divisor: 1_000_000_009)
        #expect(t.isNumeric && t.hasBeenRounded)
    }

    @Test func ratioZeroDivisorAndInfinityTimesZero() {
        #expect(!MediaTime(value: 1, timescale: 1).multiplied(byRatio: 1, divisor: 0).isValid)
        #expect(!pInf.multiplied(byRatio: 0, divisor: 5).isValid)
        #expect(pInf.multiplied(byRatio: 1, divisor: -5).isNegativeInfinity)
    }

    @Test func ratioOverflowGoesToInfinity() {
        let t = MediaTime(value: .max, timescale: 1).multiplied(byRatio: 3, divisor: 1)
        #expect(t.isPositiveInfinity)
    }
}
