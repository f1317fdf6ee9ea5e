import Testing
@testable import MediaTime

/// MediaTimeRange: exclusive end, contains, intersection, union, clamp (cmtime-semantics.md §Ranges).
@Suite struct RangeTests {
    func t(_ v: Int64, _ ts: Int32 = 1) -> MediaTime { MediaTime(value: v, timescale: ts) }

    @Test func endIsExclusive() {
        let r = MediaTimeRange(start: t(2), duration: t(3))
        #expect(r.end == t(5))
        #expect(r.contains(t(2)))
        #expect(r.contains(t(49, 10)))
        #expect(!r.contains(t(5)))
        #expect(!r.contains(t(1)))
    }

    @Test func startEndInitialiser() {
        let r = MediaTimeRange(start: t(1), end: t(4))
        #expect(r.duration == t(3) && r.isValid)
        #expect(!MediaTimeRange(start: t(4), end: t(1)).isValid)
    }

    @Test func emptyRangeContainsNothing() {
        let r = MediaTimeRange(start: t(1), duration: .zero)
        #expect(r.isEmpty && !r.contains(t(1)))
    }

    @Test func durationMustHaveEpochZero() {
        let r = MediaTimeRange(start: t(1), duration: MediaTime(value: 1, timescale: 1, flags: .valid, epoch: 2))
        #expect(!r.isValid)
    }

    @Test func intersectionAndDisjoint() {
        let a = MediaTimeRange(start: t(0), duration: t(10))
        let b = MediaTimeRange(start: t(5), duration: t(10))
        #expect(a.intersection(b) == MediaTimeRange(start: t(5), duration: t(5)))
        let c = MediaTimeRange(start: t(20), duration: t(1))
        #expect(a.intersection(c).isEmpty)
    }

    @Test func unionCoversBoth() {
        let a = MediaTimeRange(start: t(0), duration: t(2))
        let b = MediaTimeRange(start: t(5), duration: t(1))
        #expect(a.union(b) == MediaTimeRange(start: t(0), duration: t(6)))
    }

    @Test func containsRange() {
        let a = MediaTimeRange(start: t(0), duration: t(10))
        #expect(a.contains(MediaTimeRange(start: t(2), duration: t(8))))
        #expect(!a.contains(MediaTimeRange(start: t(2), duration: t(9))))
    }

    @Test func clampPullsTimeIn() {
        let r = MediaTimeRange(start: t(2), duration: t(3))
        #expect(r.clamp(t(0)) == t(2))
        #expect(r.clamp(t(9)) == t(5))
        #expect(r.clamp(t(3)) == t(3))
        #expect(!r.clamp(.invalid).isValid)
        #expect(r.clamp(.positiveInfinity) == t(5))
    }

    @Test func invalidRangeOperations() {
        #expect(!MediaTimeRange.invalid.contains(t(0)))
        #expect(!MediaTimeRange.invalid.union(.zero).isValid)
        #expect(!MediaTimeRange.invalid.end.isValid)
    }
}
