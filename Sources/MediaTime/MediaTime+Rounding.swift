/// How a time is rounded when its exact value cannot be represented. Raw values are CoreMedia's.
public enum MediaTimeRoundingMethod: UInt32, Sendable, CaseIterable, Codable {
    /// Round half away from zero (the default, like `kCMTimeRoundingMethod_Default`).
    case roundHalfAwayFromZero = 1
    /// Truncate.
    case roundTowardZero = 2
    /// Round up in magnitude.
    case roundAwayFromZero = 3
    /// Toward zero when the timescale shrinks (less precision), away from zero when it grows; never rounds a
    /// negative number to zero (gives −1 unit instead).
    case quickTime = 4
    /// Ceiling.
    case roundTowardPositiveInfinity = 5
    /// Floor.
    case roundTowardNegativeInfinity = 6

    /// The method used where none is given.
    public static let `default` = MediaTimeRoundingMethod.roundHalfAwayFromZero
}

extension MediaTimeRoundingMethod {
    /// Divides `numerator` by a positive `denominator`, rounding per this method.
    /// - Parameter growing: for ``quickTime``: true when converting to a larger timescale.
    /// - Returns: the quotient and whether it was rounded.
    func divide(_ numerator: Int128, by denominator: Int128, growing: Bool = false) -> (Int128, Bool) {
        precondition(denominator > 0, "rounding divide needs a positive denominator")
        let q = numerator / denominator
        let r = numerator % denominator
        if r == 0 { return (q, false) }
        let away: Int128 = numerator < 0 ? q - 1 : q + 1
        let result: Int128
        switch self {
        case .roundTowardZero: result = q
        case .roundAwayFromZero: result = away
        case .roundHalfAwayFromZero: result = r.magnitude * 2 >= denominator.magnitude ? away : q
        case .roundTowardPositiveInfinity: result = numerator > 0 ? q + 1 : q
        case .roundTowardNegativeInfinity: result = numerator < 0 ? q - 1 : q
        case .quickTime:
            let rounded = growing ? away : q
            result = (numerator < 0 && rounded == 0) ? -1 : rounded
        }
        return (result, true)
    }
}

extension MediaTime {
    /// This time in `newTimescale` units, rounded per `method`; sets `hasBeenRounded` when it rounds.
    ///
    /// Non-numeric times come back unchanged. A timescale ≤ 0 gives ``invalid``. A result that does not fit in
    /// 64 bits becomes ±infinity (the caller asked for this timescale, so it is not halved).
    public func convertScale(_ newTimescale: Int32, method: MediaTimeRoundingMethod = .default) -> MediaTime {
        guard isNumeric else { return self }
        guard newTimescale > 0 else { return .invalid }
        if newTimescale == timescale { return self }
        let (v, rounded) = method.divide(Int128(value) * Int128(newTimescale), by: Int128(timescale),
                                         growing: newTimescale > timescale)
        guard let v64 = Int64(exactly: v) else { return v < 0 ? .negativeInfinity : .positiveInfinity }
        var flags = self.flags
        if rounded { flags.insert(.hasBeenRounded) }
        return MediaTime(value: v64, timescale: newTimescale, flags: flags, epoch: epoch)
    }

    /// Builds the time `numerator / denominator` seconds in `timescale` units (rounded per `method`); when the
    /// value overflows 64 bits the timescale is halved until it fits, and at timescale 1 the result is ±infinity.
    static func fitting(numerator: Int128, denominator: Int128, timescale: Int32,
                        method: MediaTimeRoundingMethod = .default, epoch: Int64, rounded: Bool) -> MediaTime {
        precondition(denominator > 0 && timescale > 0)
        var ts = timescale
        var anyRounding = rounded
        while true {
            let (v, r) = method.divide(numerator * Int128(ts), by: denominator, growing: Int128(ts) > denominator)
            if let v64 = Int64(exactly: v) {
                var flags: Flags = .valid
                if r || anyRounding { flags.insert(.hasBeenRounded) }
                return MediaTime(value: v64, timescale: ts, flags: flags, epoch: epoch)
            }
            if ts == 1 { return numerator < 0 ? .negativeInfinity : .positiveInfinity }
            ts /= 2
            anyRounding = true
        }
    }
}

extension MediaTime {
    /// Creates the time nearest `seconds` in `preferredTimescale` units (half away from zero), setting
    /// `hasBeenRounded` when the result does not convert back to the same seconds.
    ///
    /// NaN gives ``invalid``, ±∞ the matching infinity, a timescale ≤ 0 ``invalid``. If the value would overflow,
    /// the timescale is halved until it fits; still overflowing at timescale 1 gives ±infinity.
    public init(seconds: Double, preferredTimescale: Int32) {
        if seconds.isNaN || preferredTimescale <= 0 { self = .invalid; return }
        if seconds == .infinity { self = .positiveInfinity; return }
        if seconds == -.infinity { self = .negativeInfinity; return }
        var ts = preferredTimescale
        var halved = false
        while true {
            let scaled = (seconds * Double(ts)).rounded(.toNearestOrAwayFromZero)
            // Int64 covers [-2^63, 2^63); 2^63 itself is exactly representable as a Double.
            if scaled >= -9_223_372_036_854_775_808.0 && scaled < 9_223_372_036_854_775_808.0 {
                let v = Int64(scaled)
                var flags: Flags = .valid
                if halved || Double(v) / Double(ts) != seconds { flags.insert(.hasBeenRounded) }
                self.init(value: v, timescale: ts, flags: flags, epoch: 0)
                return
            }
            if ts == 1 { self = seconds < 0 ? .negativeInfinity : .positiveInfinity; return }
            ts /= 2
            halved = true
        }
    }
}
