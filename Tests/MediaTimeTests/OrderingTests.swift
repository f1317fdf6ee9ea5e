import Testing
@testable import MediaTime

/// Total order, semantic equality and hashing, min/max/abs (cmtime-semantics.md §Ordering, §Fields).
@Suite struct OrderingTests {
    @Test func totalOrderOfKinds() {
        let sorted: [MediaTime] = [
            .invalid, .positiveInfinity, .indefinite, MediaTime(value: 5, timescale: 1),
            MediaTime(value: -5, timescale: 1), .negativeInfinity,
        ].sorted()
        #expect(
            sorted.map(\.description) == [
                "-infinity", "-5 s (-5/1)", "5 s (5/1)", "indefinite", "+infinity", "invalid",
            ])
    }

    @Test func numericComparisonAcrossTimescales() {
        #expect(MediaTime(value: 1, timescale: 3) < MediaTime(value: 334, timescale: 1000))
        #expect(MediaTime(value: 1, timescale: 3) > MediaTime(value: 333, timescale: 1000))
    }

    @Test func comparisonDoesNotOverflow() {
        #expect(MediaTime(value: .max, timescale: 1) > MediaTime(value: .max, timescale: 2))
    }

    @Test func largerEpochIsLater() {
        let a = MediaTime(value: 100, timescale: 1, flags: .valid, epoch: 0)
        let b = MediaTime(value: 1, timescale: 1, flags: .valid, epoch: 1)
        #expect(a < b)
    }

    @Test func semanticEqualityOfZeros() {
        #expect(MediaTime(value: 0, timescale: 1) == MediaTime(value: 0, timescale: 600))
        #expect(MediaTime(value: 1, timescale: 2) == MediaTime(value: 300, timescale: 600))
    }

    @Test func invalidEqualsInvalidWhateverItsBits() {
        #expect(MediaTime.invalid == MediaTime(value: 7, timescale: 9, flags: [], epoch: 3))
    }

    @Test func roundedFlagDoesNotAffectEquality() {
        let a = MediaTime(value: 1, timescale: 2, flags: [.valid, .hasBeenRounded], epoch: 0)
        #expect(a == MediaTime(value: 1, timescale: 2))
    }

    @Test func hashAgreesWithEquality() {
        let set: Set<MediaTime> = [MediaTime(value: 0, timescale: 1), MediaTime(value: 0, timescale: 600),
                                   MediaTime(value: 1, timescale: 2), MediaTime(value: 300, timescale: 600),
                                   .invalid, MediaTime(value: 3, timescale: 4, flags: [], epoch: 0),
                                   MediaTime(value: -2, timescale: 4), MediaTime(value: -1, timescale: 2)]
        #expect(set.count == 4)
    }

    @Test func differentEpochsAreNotEqual() {
        #expect(MediaTime(value: 1, timescale: 1, flags: .valid, epoch: 1) != MediaTime(value: 1, timescale: 1))
    }

    @Test func minMaxFollowTheOrder() {
        let a = MediaTime(value: 1, timescale: 1)
        #expect(MediaTime.minimum(a, .indefinite) == a)
        #expect(MediaTime.maximum(a, .indefinite).isIndefinite)
        #expect(MediaTime.maximum(.positiveInfinity, .invalid) == .invalid)
        #expect(MediaTime.minimum(.negativeInfinity, a).isNegativeInfinity)
    }

    @Test func absoluteValue() {
        #expect(MediaTime(value: -3, timescale: 2).absoluteValue == MediaTime(value: 3, timescale: 2))
        #expect(MediaTime.negativeInfinity.absoluteValue.isPositiveInfinity)
        #expect(MediaTime.indefinite.absoluteValue.isIndefinite)
        #expect(MediaTime(value: .min, timescale: 2).absoluteValue.isNumeric)
    }
}
