/// A rational time, modelled on CoreMedia's `CMTime`: `value / timescale` seconds, with flags for the
/// non-numeric times (invalid, indefinite, ±infinity) and an epoch that separates otherwise equal timelines.
///
/// Invariants:
/// - A numeric time has `flags.contains(.valid)`, none of the implied-value flags, and `timescale > 0`.
/// - `==` is *semantic*: `0/1 == 0/600`, every invalid time equals every other invalid time, and `hasBeenRounded`
///   is ignored. `hash(into:)` agrees with `==`.
/// - All operations are total: they never trap on overflow; they degrade as `CMTime` does (halve the timescale,
///   then go to ±infinity).
public struct MediaTime: Sendable {
    /// The numerator: seconds × timescale. Meaningless unless the time is numeric.
    public var value: Int64
    /// Units per second; > 0 for a valid time.
    public var timescale: Int32
    /// Validity, rounding and implied-value flags.
    public var flags: Flags
    /// Distinguishes timelines (e.g. loops of a stream); numeric times of different epochs never compare equal.
    public var epoch: Int64

    /// CoreMedia's `CMTimeFlags`, with the same raw values.
    public struct Flags: OptionSet, Sendable, Hashable, Codable {
        /// The bits, as `CMTimeFlags`.
        public let rawValue: UInt32
        /// Flags with these bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Bit 0: the time is valid. A zeroed time is invalid.
        public static let valid = Flags(rawValue: 1 << 0)
        /// Bit 1: rounding happened on the way to this value.
        public static let hasBeenRounded = Flags(rawValue: 1 << 1)
        /// Bit 2: +∞; value and timescale are meaningless.
        public static let positiveInfinity = Flags(rawValue: 1 << 2)
        /// Bit 3: −∞; value and timescale are meaningless.
        public static let negativeInfinity = Flags(rawValue: 1 << 3)
        /// Bit 4: indefinite (unknown, e.g. a live stream's duration).
        public static let indefinite = Flags(rawValue: 1 << 4)
        /// The flags that make value and timescale meaningless.
        public static let impliedValueMask: Flags = [.positiveInfinity, .negativeInfinity, .indefinite]
    }

    /// The largest timescale a time may have (`0x7fffffff`).
    public static let maxTimescale: Int32 = .max

    /// Creates a time from all four fields, exactly as given (no validation).
    public init(value: Int64, timescale: Int32, flags: Flags, epoch: Int64 = 0) {
        self.value = value
        self.timescale = timescale
        self.flags = flags
        self.epoch = epoch
    }

    /// Creates the exact time `value / timescale` seconds. A timescale ≤ 0 gives ``invalid``.
    public init(value: Int64, timescale: Int32) {
        if timescale <= 0 {
            self = .invalid
        } else {
            self.init(value: value, timescale: timescale, flags: .valid, epoch: 0)
        }
    }

    /// The invalid time (all fields zero). Compares greater than every other time and equal to itself.
    public static let invalid = MediaTime(value: 0, timescale: 0, flags: [], epoch: 0)
    /// The indefinite time: valid, but unknown (e.g. the duration of a live stream or of an asset not yet loaded).
    public static let indefinite = MediaTime(value: 0, timescale: 0, flags: [.valid, .indefinite], epoch: 0)
    /// +∞: later than every numeric and indefinite time.
    public static let positiveInfinity = MediaTime(value: 0, timescale: 0, flags: [.valid, .positiveInfinity], epoch: 0)
    /// −∞: earlier than every other valid time.
    public static let negativeInfinity = MediaTime(value: 0, timescale: 0, flags: [.valid, .negativeInfinity], epoch: 0)
    /// Zero seconds (0/1).
    public static let zero = MediaTime(value: 0, timescale: 1)

    /// True when the valid flag is set.
    public var isValid: Bool { flags.contains(.valid) }
    /// True for a valid time with none of the implied-value flags: value/timescale is its meaning.
    public var isNumeric: Bool { isValid && flags.isDisjoint(with: .impliedValueMask) && timescale > 0 }
    /// True for a valid +∞.
    public var isPositiveInfinity: Bool { isValid && flags.contains(.positiveInfinity) }
    /// True for a valid −∞.
    public var isNegativeInfinity: Bool { isValid && flags.contains(.negativeInfinity) }
    /// True for a valid indefinite time (and not an infinity).
    public var isIndefinite: Bool {
        isValid && flags.contains(.indefinite) && !isPositiveInfinity && !isNegativeInfinity
    }
    /// True for either infinity.
    public var isInfinite: Bool { isPositiveInfinity || isNegativeInfinity }
    /// Rounding happened on the way to this time. Only meaningful on a numeric time.
    public var hasBeenRounded: Bool { isNumeric && flags.contains(.hasBeenRounded) }

    /// The time in seconds: NaN for invalid or indefinite, ±infinity for the infinities, otherwise
    /// `value / timescale` (the epoch is ignored).
    public var seconds: Double {
        if isPositiveInfinity { return .infinity }
        if isNegativeInfinity { return -.infinity }
        guard isNumeric else { return .nan }
        return Double(value) / Double(timescale)
    }
}
