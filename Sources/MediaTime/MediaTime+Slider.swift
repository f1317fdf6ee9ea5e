/// Mapping between a slider position (a fraction in [0, 1]) and a time, through exact ratio arithmetic.
extension MediaTime {
    /// The fraction denominator used to turn a `Double` slider position into a ratio (1 µ-part resolution).
    public static let sliderResolution: Int32 = 1_000_000

    /// Where this time lies within `[0, duration]`, clamped to [0, 1]. Never NaN: a non-numeric or non-positive
    /// duration, or a non-numeric time, gives 0 (+∞ gives 1).
    public func fraction(of duration: MediaTime) -> Double {
        if isPositiveInfinity { return 1 }
        guard isNumeric, duration.isNumeric, duration > .zero else { return 0 }
        let f = seconds / duration.seconds
        if f.isNaN { return 0 }
        return Swift.min(1, Swift.max(0, f))
    }

    /// The time at `fraction` of `duration` (clamped to [0, 1]; NaN counts as 0), computed as
    /// `duration × round(fraction × 10⁶) / 10⁶` with ratio multiplication, so 0.5 of 3 s is exactly 1.5 s.
    /// A non-numeric duration gives ``invalid``: there is nowhere to go yet.
    public static func time(atFraction fraction: Double, of duration: MediaTime) -> MediaTime {
        guard duration.isNumeric else { return .invalid }
        if duration <= .zero { return MediaTime(value: 0, timescale: duration.timescale) }
        let f = fraction.isNaN ? 0 : Swift.min(1, Swift.max(0, fraction))
        let parts = Int32((f * Double(sliderResolution)).rounded())
        return duration.multiplied(byRatio: parts, divisor: sliderResolution)
    }

    /// The time at `fraction` of `range` (start + fraction × duration); invalid for an invalid range.
    public static func time(atFraction fraction: Double, of range: MediaTimeRange) -> MediaTime {
        guard range.isValid else { return .invalid }
        let offset = time(atFraction: fraction, of: range.duration)
        return offset.isValid ? range.start + offset : .invalid
    }
}
