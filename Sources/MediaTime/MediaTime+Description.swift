/// Text forms of a time: `description` for logs, `formatted` for people (clock style).
extension MediaTime: CustomStringConvertible, CustomDebugStringConvertible, Codable {
    /// e.g. `1.5 s (3/2)`, `indefinite`, `+infinity`, `invalid`; the epoch is shown when non-zero.
    public var description: String {
        if !isValid { return "invalid" }
        if isPositiveInfinity { return "+infinity" }
        if isNegativeInfinity { return "-infinity" }
        if isIndefinite { return "indefinite" }
        let base = "\(MediaTime.decimalString(seconds)) s (\(value)/\(timescale))"
        return epoch == 0 ? base : base + " epoch \(epoch)"
    }

    /// Every field: value, timescale, flags, epoch.
    public var debugDescription: String {
        "MediaTime(value: \(value), timescale: \(timescale), flags: \(flags.rawValue), epoch: \(epoch))"
    }

    /// Clock style for displays: `m:ss`, or `h:mm:ss` from an hour; `fractionDigits` decimals of a second
    /// (truncated, so a display never runs ahead of the media). Non-numeric times give `--:--`.
    public func formatted(fractionDigits: Int = 0) -> String {
        guard isNumeric else { return "--:--" }
        let negative = value < 0
        let digits = max(0, min(fractionDigits, 6))
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        // Whole units of 1/scale seconds, truncated toward zero.
        let units = Int64(clamping: Int128(value.magnitude) * Int128(scale) / Int128(timescale))
        let whole = units / scale
        let frac = units % scale
        let h = whole / 3600, m = (whole / 60) % 60, s = whole % 60
        func pad(_ n: Int64, _ w: Int) -> String {
            let t = String(n); return String(repeating: "0", count: max(0, w - t.count)) + t
        }
        var out = h > 0 ? "\(h):\(pad(m, 2)):\(pad(s, 2))" : "\(m):\(pad(s, 2))"
        if digits > 0 { out += "." + pad(frac, digits) }
        return negative ? "-" + out : out
    }

    /// A short decimal without exponent for logs and JSON-like output (up to 6 decimals, trailing zeros cut).
    public static func decimalString(_ x: Double) -> String {
        if x.isNaN { return "nan" }
        if x.isInfinite { return x > 0 ? "inf" : "-inf" }
        let micro = (x * 1_000_000).rounded()
        guard abs(micro) < 9e18 else { return String(x) }
        let m = Int64(micro)
        let sign = m < 0 ? "-" : ""
        let a = m.magnitude
        var frac = String(a % 1_000_000)
        frac = String(repeating: "0", count: 6 - frac.count) + frac
        while frac.hasSuffix("0") { frac.removeLast() }
        return sign + String(a / 1_000_000) + (frac.isEmpty ? "" : "." + frac)
    }

    private enum CodingKeys: String, CodingKey { case value, timescale, flags, epoch }

    /// Decodes `{value, timescale, flags[, epoch]}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(value: try c.decode(Int64.self, forKey: .value),
                  timescale: try c.decode(Int32.self, forKey: .timescale),
                  flags: Flags(rawValue: try c.decode(UInt32.self, forKey: .flags)),
                  epoch: try c.decodeIfPresent(Int64.self, forKey: .epoch) ?? 0)
    }

    /// Encodes `{value, timescale, flags, epoch}` (the fields, not seconds: nothing is rounded).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(value, forKey: .value)
        try c.encode(timescale, forKey: .timescale)
        try c.encode(flags.rawValue, forKey: .flags)
        try c.encode(epoch, forKey: .epoch)
    }
}
