import Testing
@testable import MediaTime

/// Fields, flags, predicates, constants and construction (cmtime-semantics.md §Fields, §Construction).
@Suite struct FieldsAndConstructionTests {
    @Test func zeroedTimeIsInvalid() {
        let t = MediaTime(value: 0, timescale: 0, flags: [], epoch: 0)
        #expect(!t.isValid)
        #expect(t == .invalid)
    }

    @Test func flagRawValuesMatchCoreMedia() {
        #expect(MediaTime.Flags.valid.rawValue == 1)
        #expect(MediaTime.Flags.hasBeenRounded.rawValue == 2)
        #expect(MediaTime.Flags.positiveInfinity.rawValue == 4)
        #expect(MediaTime.Flags.negativeInfinity.rawValue == 8)
        #expect(MediaTime.Flags.indefinite.rawValue == 16)
    }

    @Test func valueTimescaleIsExact() {
        let t = MediaTime(value: 1001, timescale: 30000)
        #expect(t.value == 1001 && t.timescale == 30000 && t.isNumeric && !t.hasBeenRounded)
    }

    @Test func nonPositiveTimescaleIsInvalid() {
        #expect(!MediaTime(value: 1, timescale: 0).isValid)
        #expect(!MediaTime(value: 1, timescale: -5).isValid)
    }

    @Test func predicatesRequireValid() {
        let bogus = MediaTime(value: 0, timescale: 0, flags: [.positiveInfinity, .indefinite], epoch: 0)
        #expect(!bogus.isPositiveInfinity)
        #expect(!bogus.isIndefinite)
        #expect(!bogus.isNumeric)
    }

    @Test func impliedValueFlagsMakeTimesNonNumeric() {
        #expect(!MediaTime.indefinite.isNumeric)
        #expect(!MediaTime.positiveInfinity.isNumeric)
        #expect(!MediaTime.negativeInfinity.isNumeric)
        #expect(MediaTime.indefinite.isValid)
    }

    @Test func constantsHaveTheirKind() {
        #expect(MediaTime.positiveInfinity.isPositiveInfinity)
        #expect(MediaTime.negativeInfinity.isNegativeInfinity)
        #expect(MediaTime.indefinite.isIndefinite)
        #expect(MediaTime.zero.isNumeric && MediaTime.zero.seconds == 0)
    }

    @Test func hasBeenRoundedOnlyCountsOnNumeric() {
        let t = MediaTime(value: 0, timescale: 0, flags: [.valid, .indefinite, .hasBeenRounded], epoch: 0)
        #expect(!t.hasBeenRounded)
        let n = MediaTime(value: 1, timescale: 3, flags: [.valid, .hasBeenRounded], epoch: 0)
        #expect(n.hasBeenRounded)
    }

    @Test func secondsOfEachKind() {
        #expect(MediaTime.invalid.seconds.isNaN)
        #expect(MediaTime.indefinite.seconds.isNaN)
        #expect(MediaTime.positiveInfinity.seconds == .infinity)
        #expect(MediaTime.negativeInfinity.seconds == -.infinity)
        #expect(MediaTime(value: 3, timescale: 2).seconds == 1.5)
    }

    @Test func secondsIgnoresEpoch() {
        #expect(MediaTime(value: 3, timescale: 2, flags: .valid, epoch: 7).seconds == 1.5)
    }

    @Test func secondsTwoAtTimescaleTwoIsTwoSeconds() {
        // Tutorial bug: CMTime(seconds: 2, preferredTimescale: 2) is 2 s (value 4), not 1 s.
        let t = MediaTime(seconds: 2, preferredTimescale: 2)
        #expect(t.value == 4 && t.timescale == 2 && t.seconds == 2)
    }

    @Test func secondsInitRoundsHalfAwayFromZero() {
        #expect(MediaTime(seconds: 0.25, preferredTimescale: 2).value == 1)   // 0.5 → 1
        #expect(MediaTime(seconds: -0.25, preferredTimescale: 2).value == -1) // −0.5 → −1
    }

    @Test func secondsInitSetsRoundedOnlyWhenLossy() {
        #expect(!MediaTime(seconds: 1.5, preferredTimescale: 600).hasBeenRounded)
        #expect(MediaTime(seconds: 0.1234567, preferredTimescale: 600).hasBeenRounded)
    }

    @Test func secondsInitBadInputs() {
        #expect(!MediaTime(seconds: 1, preferredTimescale: 0).isValid)
        #expect(!MediaTime(seconds: 1, preferredTimescale: -1).isValid)
        #expect(!MediaTime(seconds: .nan, preferredTimescale: 600).isValid)
        #expect(MediaTime(seconds: .infinity, preferredTimescale: 600).isPositiveInfinity)
        #expect(MediaTime(seconds: -.infinity, preferredTimescale: 600).isNegativeInfinity)
    }

    @Test func secondsInitHalvesTimescaleOnOverflow() {
        let t = MediaTime(seconds: 1e13, preferredTimescale: 1_000_000_000)
        #expect(t.isNumeric)
        #expect(t.timescale < 1_000_000_000)
        #expect(t.hasBeenRounded)
        #expect(abs(t.seconds - 1e13) / 1e13 < 1e-9)
    }

    @Test func secondsInitBeyondTimescaleOneIsInfinite() {
        #expect(MediaTime(seconds: 1e30, preferredTimescale: 600).isPositiveInfinity)
        #expect(MediaTime(seconds: -1e30, preferredTimescale: 600).isNegativeInfinity)
    }
}
