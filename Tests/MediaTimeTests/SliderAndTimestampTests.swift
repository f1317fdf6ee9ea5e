import Testing
@testable import MediaTime

/// Slider fraction ↔ time, and FFmpeg timestamp conversion.
@Suite struct SliderAndTimestampTests {
    @Test func halfOfThreeSecondsIsOnePointFive() {
        // Regression: CMTime(value: Int64(0.5 * 3.0), timescale: 1) truncates to 1 s.
        let t = MediaTime.time(atFraction: 0.5, of: MediaTime(value: 3, timescale: 1))
        #expect(t.seconds == 1.5)
    }

    @Test func endsOfTheSlider() {
        let d = MediaTime(value: 362_767, timescale: 1000)
        #expect(MediaTime.time(atFraction: 0, of: d) == .zero)
        #expect(MediaTime.time(atFraction: 1, of: d) == d)
    }

    @Test func outOfRangeAndNaNFractionsAreClamped() {
        let d = MediaTime(value: 10, timescale: 1)
        #expect(MediaTime.time(atFraction: -3, of: d) == .zero)
        #expect(MediaTime.time(atFraction: 7, of: d) == d)
        #expect(MediaTime.time(atFraction: .nan, of: d) == .zero)
        #expect(MediaTime.time(atFraction: .infinity, of: d) == d)
    }

    @Test func indefiniteDurationDoesNotCrashOrNaN() {
        #expect(!MediaTime.time(atFraction: 0.5, of: .indefinite).isValid)
        #expect(MediaTime(value: 1, timescale: 1).fraction(of: .indefinite) == 0)
        #expect(MediaTime(value: 1, timescale: 1).fraction(of: .zero) == 0)
    }

    @Test func fractionOfDurationClamped() {
        let d = MediaTime(value: 4, timescale: 1)
        #expect(MediaTime(value: 1, timescale: 1).fraction(of: d) == 0.25)
        #expect(MediaTime(value: 9, timescale: 1).fraction(of: d) == 1)
        #expect(MediaTime(value: -1, timescale: 1).fraction(of: d) == 0)
        #expect(MediaTime.invalid.fraction(of: d) == 0)
    }

    @Test func fractionOfRangeAddsStart() {
        let r = MediaTimeRange(start: MediaTime(value: 10, timescale: 1), duration: MediaTime(value: 4, timescale: 1))
        #expect(MediaTime.time(atFraction: 0.5, of: r) == MediaTime(value: 12, timescale: 1))
    }

    @Test func ptsWithUnitNumeratorIsExact() {
        let t = MediaTime(pts: 1001, timeBase: (1, 30000))
        #expect(t.value == 1001 && t.timescale == 30000)
        #expect(t.pts(timeBase: (1, 30000)) == 1001)
    }

    @Test func ptsWithOtherNumerator() {
        let t = MediaTime(pts: 3, timeBase: (1001, 30000))
        #expect(t == MediaTime(value: 3003, timescale: 30000))
        #expect(t.pts(timeBase: (1001, 30000)) == 3)
    }

    @Test func noTimestampIsInvalid() {
        #expect(!MediaTime(pts: .min, timeBase: (1, 90000)).isValid)
        #expect(!MediaTime(pts: 5, timeBase: (1, 0)).isValid)
        #expect(MediaTime.indefinite.pts(timeBase: (1, 1000)) == nil)
    }

    @Test func ptsRoundsPerMethod() {
        let t = MediaTime(value: 1, timescale: 3)  // 333.33 ms
        #expect(t.pts(timeBase: (1, 1000)) == 333)
        #expect(t.pts(timeBase: (1, 1000), method: .roundTowardPositiveInfinity) == 334)
    }
}
