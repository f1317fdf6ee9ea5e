/// Conversion between MediaTime and FFmpeg-style timestamps (`pts` in units of a rational time base
/// `num/den` seconds). Pure arithmetic: this module does not link FFmpeg.
extension MediaTime {
    /// FFmpeg's `AV_NOPTS_VALUE`: "no timestamp".
    public static let noTimestamp = Int64.min

    /// The time `pts × num / den` seconds; exact when it fits (always when `num == 1` and `den` fits a timescale).
    /// `AV_NOPTS_VALUE` or a non-positive time base gives ``invalid``.
    public init(pts: Int64, timeBase: (num: Int32, den: Int32)) {
        guard pts != MediaTime.noTimestamp, timeBase.num > 0, timeBase.den > 0 else { self = .invalid; return }
        if timeBase.num == 1 { self.init(value: pts, timescale: timeBase.den); return }
        let exact = MediaTime(value: pts, timescale: timeBase.den).multiplied(byRatio: timeBase.num, divisor: 1)
        self = exact
    }

    /// This time in units of `num/den` seconds, rounded per `method`; nil for a non-numeric time, a
    /// non-positive time base or a result outside Int64 (excluding `AV_NOPTS_VALUE`).
    public func pts(timeBase: (num: Int32, den: Int32), method: MediaTimeRoundingMethod = .default) -> Int64? {
        guard isNumeric, timeBase.num > 0, timeBase.den > 0 else { return nil }
        let (v, _) = method.divide(Int128(value) * Int128(timeBase.den),
                                   by: Int128(timescale) * Int128(timeBase.num),
                                   growing: Int128(timeBase.den) > Int128(timescale) * Int128(timeBase.num))
        guard let r = Int64(exactly: v), r != MediaTime.noTimestamp else { return nil }
        return r
    }
}
