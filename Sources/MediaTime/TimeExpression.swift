/// A time as a user types it: an absolute time, or a position relative to the media's length.
///
/// Accepted forms: `12.5`, `12.5s`, `90ms`, `250us`, `1:02`, `1:02:03.250`, `50%`, `12.5%`, `3/4`.
/// Decimal seconds are parsed exactly (`12.5` is 125/10, not a rounded `Double`).
public enum TimeExpression: Sendable, Hashable, CustomStringConvertible {
    /// A time on the media timeline, relative to its start.
    case absolute(MediaTime)
    /// `numerator / denominator` of the media's length (0 … 1).
    case fraction(numerator: Int32, denominator: Int32)

    /// Parses what a user typed. Throws ``TimeExpressionError`` naming the input.
    public init(parsing text: String) throws {
        let s = text.trimmingSpaces()
        func fail(_ why: String) -> TimeExpressionError { TimeExpressionError(input: text, reason: why) }
        if s.isEmpty { throw fail("empty") }
        if s.hasPrefix("-") { throw fail("negative times are not allowed") }
        if s.hasSuffix("%") {
            let (num, den) = try TimeExpression.decimal(String(s.dropLast()), input: text)
            // percent: num/den/100
            let d = Int128(den) * 100
            guard num <= d else { throw fail("percentage above 100") }
            let g = Int128(greatestCommonDivisor(UInt128(num), UInt128(d)))
            guard let n32 = Int32(exactly: Int128(num) / g), let d32 = Int32(exactly: d / g) else {
                throw fail("too many decimals")
            }
            self = .fraction(numerator: n32, denominator: d32)
            return
        }
        if let slash = s.firstIndex(of: "/") {
            guard let n = Int32(s[s.startIndex..<slash]), let d = Int32(s[s.index(after: slash)...]), n >= 0, d > 0
            else { throw fail("a fraction is two whole numbers like 3/4") }
            guard n <= d else { throw fail("fraction above 1") }
            self = .fraction(numerator: n, denominator: d)
            return
        }
        if s.contains(":") {
            let parts = s.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count <= 3 else { throw fail("at most h:mm:ss") }
            var total = MediaTime.zero
            for (i, part) in parts.enumerated() {
                let isLast = i == parts.count - 1
                guard !part.isEmpty, isLast || part.allSatisfy(\.isASCIIDigitChar) else {
                    throw fail("bad clock field '\(part)'")
                }
                let (n, d) = try TimeExpression.decimal(part, input: text)
                if i > 0 && Int128(n) >= 60 * Int128(d) { throw fail("minutes and seconds must be below 60") }
                let weight: Int64 = [1, 60, 3600][parts.count - 1 - i]
                total = total + MediaTime(value: n, timescale: Int32(d)).multiplied(by: Int32(weight))
            }
            guard total.isNumeric else { throw fail("too large") }
            self = .absolute(total)
            return
        }
        let units: [(String, Int64)] = [("ms", 1000), ("us", 1_000_000), ("µs", 1_000_000), ("s", 1)]
        var body = s
        var per: Int64 = 1
        for (suffix, div) in units where s.hasSuffix(suffix) {
            body = String(s.dropLast(suffix.count)).trimmingSpaces()
            per = div
            break
        }
        let (n, d) = try TimeExpression.decimal(body, input: text)
        let t = MediaTime(value: n, timescale: Int32(d)).multiplied(byRatio: 1, divisor: Int32(per))
        guard t.isNumeric else { throw fail("too large") }
        self = .absolute(t)
    }

    /// Parses `digits[.digits]` exactly as `numerator / 10^k` (k ≤ 9; more decimals are rounded to nanoseconds).
    static func decimal(_ text: String, input: String) throws -> (Int64, Int64) {
        let err = TimeExpressionError(
            input: input, reason: "expected a number such as 12.5, 12.5s, 90ms, 1:02:03, 50% or 3/4")
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count <= 2, !text.isEmpty, text != "." else { throw err }
        let intPart = String(pieces[0])
        var fracPart = pieces.count == 2 ? String(pieces[1]) : ""
        guard intPart.allSatisfy(\.isASCIIDigitChar), fracPart.allSatisfy(\.isASCIIDigitChar),
              !(intPart.isEmpty && fracPart.isEmpty) else { throw err }
        // Beyond nanoseconds (a float printed by a script: 303.36666699999995) the value is rounded to the nearest
        // nanosecond, halves up, as ffmpeg's -ss takes it (microseconds there) instead of refusing it.
        var roundsUp = false
        if fracPart.count > 9 {
            roundsUp = fracPart[fracPart.index(fracPart.startIndex, offsetBy: 9)] >= "5"
            fracPart = String(fracPart.prefix(9))
        }
        var den: Int64 = 1
        for _ in 0..<fracPart.count { den *= 10 }
        guard let i = Int64(intPart.isEmpty ? "0" : intPart), let f = Int64(fracPart.isEmpty ? "0" : fracPart) else {
            throw TimeExpressionError(input: input, reason: "too large")
        }
        let (scaled, o1) = i.multipliedReportingOverflow(by: den)
        let (num, o2) = scaled.addingReportingOverflow(f + (roundsUp ? 1 : 0))
        guard !o1, !o2 else { throw TimeExpressionError(input: input, reason: "too large") }
        return (num, den)
    }

    /// The time this expression names on a timeline that begins at `start` and lasts `duration`.
    /// A fraction of a non-numeric duration is ``MediaTime/invalid``; an absolute time is offset by `start`.
    public func resolve(start: MediaTime = .zero, duration: MediaTime) -> MediaTime {
        let origin = start.isNumeric ? start : .zero
        switch self {
        case .absolute(let t): return origin + t
        case .fraction(let n, let d):
            guard duration.isNumeric else { return .invalid }
            return origin + duration.multiplied(byRatio: n, divisor: d)
        }
    }

    /// `12.5s` for an absolute time, `1/2` for a fraction (the form used in cache keys).
    public var description: String {
        switch self {
        case .absolute(let t): return "\(MediaTime.decimalString(t.seconds))s"
        case .fraction(let n, let d): return "\(n)/\(d)"
        }
    }
}

/// A time the user typed could not be understood; the message names the input.
public struct TimeExpressionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the user typed.
    public var input: String
    /// Why it was refused.
    public var reason: String
    /// `invalid time 'INPUT': REASON`.
    public var description: String { "invalid time '\(input)': \(reason)" }
}

extension Character {
    var isASCIIDigitChar: Bool { ("0"..."9").contains(self) }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
