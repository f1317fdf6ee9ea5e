import Foundation

/// Picks the best graphics protocol the terminal speaks: first from the environment (no round trip), then by
/// asking (XTVERSION + DSR, then DA1 `;4` = sixel) within a short time budget — a terminal that never answers
/// costs at most the budget, never a hang — and falls back to half blocks (24-bit when COLORTERM says so).
public enum GraphicsDetection {
    /// From environment variables alone; nil when they don't settle it.
    public static func fromEnvironment(_ env: [String: String]) -> GraphicsKind? {
        let term = env["TERM"] ?? "", program = env["TERM_PROGRAM"] ?? ""
        let trueColor = ["truecolor", "24bit"].contains(env["COLORTERM"]?.lowercased() ?? "")
        // Multiplexers swallow or mangle image protocols: half blocks are what reliably shows.
        if env["TMUX"] != nil || term.hasPrefix("screen") || term.hasPrefix("tmux") { return trueColor ? .blocks : .blocks256 }
        if term == "dumb" { return GraphicsKind.none }
        if env["KITTY_WINDOW_ID"] != nil || term.contains("kitty") || term == "xterm-ghostty" { return .kitty }
        if program == "iTerm.app" || program == "WezTerm" { return .iterm }
        if term.contains("mlterm") || term.hasPrefix("foot") { return .sixel }
        return nil
    }

    /// What the terminal's answers mean: XTVERSION names, DA1 attributes.
    public static func fromReplies(_ replies: [String]) -> GraphicsKind? {
        for r in replies where r.hasPrefix("\u{1B}P>|") {
            let name = r.lowercased()
            if name.contains("kitty") || name.contains("ghostty") { return .kitty }
            if name.contains("wezterm") || name.contains("iterm") { return .iterm }
            if name.contains("foot") || name.contains("mlterm") || name.contains("contour") { return .sixel }
        }
        for r in replies where r.hasPrefix("\u{1B}[?") && r.hasSuffix("c") {
            let attrs = r.dropFirst(3).dropLast().split(separator: ";")
            if attrs.contains("4") { return .sixel }
        }
        return nil
    }

    /// Environment, then queries on the raw terminal (`input` must already be in raw mode), then half blocks.
    public static func detect(env: [String: String], input: Int32, output: Int32, budget: Double = 0.25) -> GraphicsKind {
        if let k = fromEnvironment(env) { return k }
        let trueColor = ["truecolor", "24bit"].contains(env["COLORTERM"]?.lowercased() ?? "")
        let fallback: GraphicsKind = trueColor ? .blocks : .blocks256
        // XTVERSION, DSR (every terminal answers this, so we know when the others are not coming), DA1.
        TerminalOutput.write("\u{1B}[>0q\u{1B}[6n\u{1B}[c", to: output)
        var decoder = KeyDecoder()
        var replies: [String] = []
        let deadline = Date().addingTimeInterval(budget)
        var buf = [UInt8](repeating: 0, count: 1024)
        while Date() < deadline {
            var pfd = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let ms = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&pfd, 1, ms) > 0 else { break }
            let n = read(input, &buf, buf.count)
            guard n > 0 else { break }
            for e in decoder.feed(Array(buf[0..<n]), final: false) { if case .reply(let r) = e { replies.append(r) } }
            if replies.contains(where: { $0.hasPrefix("\u{1B}[?") && $0.hasSuffix("c") }) { break }   // DA1 comes last
        }
        return fromReplies(replies) ?? fallback
    }
}
