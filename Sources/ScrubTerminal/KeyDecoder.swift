/// Input events from a terminal in raw mode.
public enum InputEvent: Equatable, Sendable {
    case character(Character)
    case left, right, up, down, home, end, escape, interrupt, pageUp, pageDown
    /// Ctrl-Z (raw mode turns the terminal's suspend key into this byte).
    case suspend
    /// SGR mouse: button (0 left, 32+ = motion while held), 0-based cell column and row, pressed or released.
    case mouse(button: Int, column: Int, row: Int, pressed: Bool)
    /// A terminal reply to a query (kept whole), e.g. DA1 `ESC [ ? 62 ; 4 c`.
    case reply(String)
}

/// Turns the raw bytes a terminal sends into events: plain characters, CSI/SS3 keys (arrows, Home/End, with or
/// without modifiers), SGR mouse reports, and query replies. Incomplete sequences wait for more bytes; a lone ESC
/// at the end of a read is the Escape key.
public struct KeyDecoder: Sendable {
    private var buffer: [UInt8] = []

    /// A decoder with nothing pending.
    public init() {}

    /// Feeds bytes; returns the complete events they finish. `final` marks the end of a read burst.
    public mutating func feed(_ bytes: [UInt8], final: Bool = true) -> [InputEvent] {
        buffer += bytes
        var events: [InputEvent] = []
        while !buffer.isEmpty {
            guard let (event, used) = KeyDecoder.parse(buffer, final: final) else { break }
            buffer.removeFirst(used)
            if let event { events.append(event) }
        }
        return events
    }

    /// One event from the start of `b` and the bytes it used; nil when more bytes are needed.
    static func parse(_ b: [UInt8], final: Bool) -> (InputEvent?, Int)? {
        let first = b[0]
        if first == 0x03 { return (.interrupt, 1) }
        if first == 0x1A { return (.suspend, 1) }
        if first != 0x1B {
            // UTF-8 character.
            let len = first < 0x80 ? 1 : first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1
            guard b.count >= len else { return nil }
            let s = String(decoding: b[0..<len], as: UTF8.self)
            return (s.first.map(InputEvent.character), len)
        }
        guard b.count >= 2 else { return final ? (.escape, 1) : nil }
        if b[1] == 0x4F {   // SS3: ESC O A …
            guard b.count >= 3 else { return final ? (.escape, 1) : nil }
            switch b[2] {
            case 0x41: return (.up, 3)
            case 0x42: return (.down, 3)
            case 0x43: return (.right, 3)
            case 0x44: return (.left, 3)
            case 0x48: return (.home, 3)
            case 0x46: return (.end, 3)
            default: return (nil, 3)
            }
        }
        if b[1] == 0x50 || b[1] == 0x5F || b[1] == 0x5D {   // DCS / APC / OSC replies: up to ST or BEL
            var i = 2
            while i < b.count {
                if b[i] == 0x07 { return (.reply(String(decoding: b[0...i], as: UTF8.self)), i + 1) }
                if b[i] == 0x1B && i + 1 < b.count && b[i + 1] == 0x5C {
                    return (.reply(String(decoding: b[0...(i + 1)], as: UTF8.self)), i + 2)
                }
                i += 1
            }
            // Not terminated yet: wait (a late reply may arrive in pieces over a slow link) — but never without end:
            // past 4 KiB it is no reply, and is dropped whole, so keys typed after it are read again.
            return b.count > 4096 ? (nil, b.count) : nil
        }
        guard b[1] == 0x5B else { return (.escape, 1) }   // ESC + something else: Escape, then that key
        // CSI: parameters 0x30–0x3F, intermediates 0x20–0x2F, final 0x40–0x7E.
        var i = 2
        while i < b.count, !(0x40...0x7E).contains(b[i]) { i += 1 }
        guard i < b.count else { return b.count > 64 ? (nil, b.count) : nil }   // no key is that long: drop it
        let params = String(decoding: b[2..<i], as: UTF8.self)
        let final = b[i]
        let used = i + 1
        if params.hasPrefix("<"), final == 0x4D || final == 0x6D {   // SGR mouse
            let nums = params.dropFirst().split(separator: ";").compactMap { Int($0) }
            guard nums.count == 3 else { return (nil, used) }
            return (.mouse(button: nums[0], column: nums[1] - 1, row: nums[2] - 1, pressed: final == 0x4D), used)
        }
        if params.hasPrefix("?") || params.hasPrefix(">") || final == 0x52 && params.contains(";") {
            return (.reply(String(decoding: b[0..<used], as: UTF8.self)), used)   // DA1/DA2/DSR replies
        }
        switch final {
        case 0x41: return (.up, used)
        case 0x42: return (.down, used)
        case 0x43: return (.right, used)
        case 0x44: return (.left, used)
        case 0x48: return (.home, used)
        case 0x46: return (.end, used)
        case 0x7E:
            switch params.split(separator: ";").first {
            case "1", "7": return (.home, used)
            case "4", "8": return (.end, used)
            case "5": return (.pageUp, used)
            case "6": return (.pageDown, used)
            default: return (nil, used)
            }
        default: return (nil, used)
        }
    }
}
