/// A JSON value with ordered object keys, for stable, readable `--json` output.
public enum JSON: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    /// Compact single-line text.
    public var text: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d):
            guard d.isFinite else { return "null" }
            if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
            var s = String(d)
            if s.contains("e") { s = String(format6(d)) }
            return s
        case .string(let s): return JSON.quote(s)
        case .array(let a): return "[" + a.map(\.text).joined(separator: ",") + "]"
        case .object(let o): return "{" + o.map { JSON.quote($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    private func format6(_ d: Double) -> String {
        let scaled = (d * 1_000_000).rounded() / 1_000_000
        return String(scaled)
    }

    /// `s` as a JSON string literal: quotes, backslashes and control characters escaped.
    public static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}

extension JSON {
    /// Optional helpers.
    public static func from(_ s: String?) -> JSON { s.map(JSON.string) ?? .null }
    /// An integer, or `null` for nil.
    public static func from(_ i: Int?) -> JSON { i.map(JSON.int) ?? .null }
    /// A number, or `null` for nil.
    public static func from(_ d: Double?) -> JSON { d.map(JSON.double) ?? .null }
    /// Seconds rounded to the microsecond (no float noise such as 1.5000000001).
    public static func seconds(_ d: Double?) -> JSON {
        guard let d, d.isFinite else { return .null }
        return .double((d * 1_000_000).rounded() / 1_000_000)
    }
}
