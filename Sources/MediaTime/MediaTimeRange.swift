/// A span of media time `[start, start + duration)`: the end is exclusive. Modelled on `CMTimeRange`.
///
/// A valid range has a valid start and a numeric (or +∞/indefinite) duration of epoch 0 that is ≥ 0.
public struct MediaTimeRange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The first time in the range.
    public var start: MediaTime
    /// The length; a duration (epoch 0), never negative in a valid range.
    public var duration: MediaTime

    /// Creates `[start, start + duration)`.
    public init(start: MediaTime, duration: MediaTime) {
        self.start = start
        self.duration = duration
    }

    /// Creates `[start, end)`; an `end` before `start` gives an invalid range.
    public init(start: MediaTime, end: MediaTime) {
        self.start = start
        self.duration = end - start
    }

    /// The invalid range.
    public static let invalid = MediaTimeRange(start: .invalid, duration: .invalid)
    /// The empty range at zero.
    public static let zero = MediaTimeRange(start: .zero, duration: .zero)

    /// Valid start, and a valid non-negative duration of epoch 0.
    public var isValid: Bool {
        start.isValid && duration.isValid && duration.epoch == 0 && !duration.isNegativeInfinity
            && !(duration.isNumeric && duration.value < 0)
    }

    /// True for a valid range of zero duration.
    public var isEmpty: Bool { isValid && duration == .zero }

    /// `start + duration`, the first time *not* in the range.
    public var end: MediaTime { isValid ? start + duration : .invalid }

    /// Whether `time` lies in `[start, end)`.
    public func contains(_ time: MediaTime) -> Bool {
        guard isValid, time.isValid else { return false }
        return time >= start && time < end
    }

    /// Whether `other` lies wholly inside this range (an empty range inside counts).
    public func contains(_ other: MediaTimeRange) -> Bool {
        guard isValid, other.isValid else { return false }
        return other.start >= start && other.end <= end
    }

    /// The overlap of two ranges; an empty range at the later start when they do not overlap.
    public func intersection(_ other: MediaTimeRange) -> MediaTimeRange {
        guard isValid, other.isValid else { return .invalid }
        let s = MediaTime.maximum(start, other.start)
        let e = MediaTime.minimum(end, other.end)
        return e > s ? MediaTimeRange(start: s, end: e) : MediaTimeRange(start: s, duration: .zero)
    }

    /// The smallest range covering both.
    public func union(_ other: MediaTimeRange) -> MediaTimeRange {
        guard isValid, other.isValid else { return .invalid }
        return MediaTimeRange(start: MediaTime.minimum(start, other.start), end: MediaTime.maximum(end, other.end))
    }

    /// `time` pulled into `[start, end]` (like `CMTimeClampToRange`, the end itself is a possible result).
    /// Invalid in → invalid out.
    public func clamp(_ time: MediaTime) -> MediaTime {
        guard isValid, time.isValid else { return .invalid }
        if time < start { return start }
        if time > end { return end }
        return time
    }

    /// `[start, end)`, or `invalid range`.
    public var description: String {
        isValid ? "[\(start), \(end))" : "invalid range"
    }
}
