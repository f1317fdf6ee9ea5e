import Foundation
import ScrubKit

/// What `scrubkit play` will draw with, and why.
public struct GraphicsChoice: Sendable, Equatable {
    /// The graphics to draw with.
    public var kind: GraphicsKind
    /// Said in the status line when the choice is not obvious (tmux, a forced or remembered mode).
    public var reason: String?
    /// The terminal's largest sixel picture (XTSMGRAPHICS; xterm's default is 1000×1000), when known.
    public var sixelMaxWidth: Int?
    /// The largest sixel picture's height, when known.
    public var sixelMaxHeight: Int?
    /// For kitty on this machine: the directory of picture files it reads (see
    /// ``GraphicsDetection/kittyFileDirectory(input:output:budget:env:)``).
    public var kittyFileDirectory: String? = nil

    /// A choice of `kind`, with the reason shown and the sixel limits when known.
    public init(kind: GraphicsKind, reason: String? = nil, sixelMaxWidth: Int? = nil, sixelMaxHeight: Int? = nil) {
        self.kind = kind
        self.reason = reason
        self.sixelMaxWidth = sixelMaxWidth
        self.sixelMaxHeight = sixelMaxHeight
    }

    /// The renderer for this choice (sixel fitted under the terminal's limit).
    public var renderer: FrameRenderer {
        switch kind {
        case .sixel: return SixelRenderer(maxWidth: sixelMaxWidth, maxHeight: sixelMaxHeight)
        case .kitty: return KittyRenderer(fileDirectory: kittyFileDirectory)
        default: return kind.renderer
        }
    }
}

/// Picks the best graphics protocol the terminal speaks: `SCRUBKIT_GRAPHICS` first (remembered per terminal in the
/// user's shell setup), then the environment (no round trip), then by asking — XTVERSION, kitty's own graphics query,
/// XTSMGRAPHICS (the sixel size limit), DSR, then DA1 (`;4` = sixel) — within a bounded wait that ends as soon as DA1
/// answers (every terminal answers it, so a fast one costs a round trip, a slow SSH link up to the bound, a terminal
/// that never answers the bound — never a hang), and falls back to half blocks (24-bit when COLORTERM says so).
public enum GraphicsDetection {
    /// The environment variable that forces (or remembers) a kind: `export SCRUBKIT_GRAPHICS=sixel`.
    public static let overrideVariable = "SCRUBKIT_GRAPHICS"

    /// From environment variables alone; nil when they don't settle it.
    public static func fromEnvironment(_ env: [String: String]) -> GraphicsKind? { choiceFromEnvironment(env)?.kind }

    static func choiceFromEnvironment(_ env: [String: String]) -> GraphicsChoice? {
        if let forced = env[overrideVariable].flatMap({ GraphicsKind(rawValue: $0.lowercased()) }) {
            return GraphicsChoice(kind: forced, reason: overrideVariable)
        }
        let term = env["TERM"] ?? "", program = env["TERM_PROGRAM"] ?? ""
        let trueColor = ["truecolor", "24bit"].contains(env["COLORTERM"]?.lowercased() ?? "")
        // Multiplexers swallow or mangle image protocols: half blocks are what reliably shows.
        if isMultiplexer(env) {
            return GraphicsChoice(
                kind: trueColor ? .blocks : .blocks256, reason: "tmux/screen: images are not passed through")
        }
        if term == "dumb" { return GraphicsChoice(kind: GraphicsKind.none, reason: "TERM=dumb") }
        if isKitty(env) || term == "xterm-ghostty" { return GraphicsChoice(kind: .kitty) }
        if program == "iTerm.app" || program == "WezTerm" { return GraphicsChoice(kind: .iterm) }
        if term.contains("mlterm") || term.hasPrefix("foot") { return GraphicsChoice(kind: .sixel) }
        return nil
    }

    static func isMultiplexer(_ env: [String: String]) -> Bool {
        let term = env["TERM"] ?? ""
        return env["TMUX"] != nil || env["STY"] != nil || term.hasPrefix("screen") || term.hasPrefix("tmux")
    }

    static func isKitty(_ env: [String: String]) -> Bool {
        env["KITTY_WINDOW_ID"] != nil || (env["TERM"] ?? "").contains("kitty")
    }

    /// Why a forced `kind` cannot be shown here (it would print base64 or escape codes as text), or nil.
    public static func refusal(forcing kind: GraphicsKind, env: [String: String]) -> String? {
        let pixel: Set<GraphicsKind> = [.kitty, .iterm, .sixel]
        if pixel.contains(kind) && isMultiplexer(env) {
            return
                "--graphics \(kind.rawValue) cannot be shown inside tmux or screen (they do not pass images through); "
                    + "use --graphics blocks, or run scrubkit outside the multiplexer"
        }
        if isKitty(env) && (kind == .iterm || kind == .sixel) {
            return "kitty does not show \(kind == .iterm ? "iTerm2 inline images" : "sixel"); use --graphics kitty"
        }
        if (env["TERM"] ?? "") == "dumb" && kind != .none {
            return "TERM=dumb cannot show graphics; use --graphics none"
        }
        return nil
    }

    /// What the terminal's answers mean: XTVERSION names, kitty's graphics reply, DA1 attributes.
    public static func fromReplies(_ replies: [String]) -> GraphicsKind? {
        if replies.contains(where: { $0.hasPrefix("\u{1B}_G") && $0.contains(";OK") }) { return .kitty }
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

    /// The sixel size limit from an XTSMGRAPHICS reply (`CSI ? 2 ; 0 ; W ; H S`), else xterm's default of 1000×1000
    /// when XTVERSION names xterm (which has that limit unless configured otherwise), else nil.
    public static func sixelLimit(_ replies: [String]) -> (width: Int, height: Int)? {
        for r in replies where r.hasPrefix("\u{1B}[?2;") && r.hasSuffix("S") {
            let n = r.dropFirst(3).dropLast().split(separator: ";").compactMap { Int($0) }
            if n.count >= 4, n[1] == 0, n[2] > 0, n[3] > 0 { return (n[2], n[3]) }
        }
        if replies.contains(where: { $0.hasPrefix("\u{1B}P>|") && $0.lowercased().contains("xterm") }) {
            return (1000, 1000)
        }
        return nil
    }

    /// Environment, then queries on the raw terminal (`input` must already be in raw mode), then half blocks.
    public static func detect(env: [String: String], input: Int32, output: Int32, budget: Double = 1.0) -> GraphicsKind
    {
        choose(env: env, input: input, output: output, budget: budget).kind
    }

    /// As ``detect(env:input:output:budget:)``, with the reason and the sixel limit. `input` nil: the keyboard is not
    /// ours (in the background, or no terminal to read): the terminal is not asked, whose answers would otherwise
    /// land in the shell's input.
    public static func choose(
        env: [String: String], input: Int32?, output: Int32, budget: Double = 1.0
    ) -> GraphicsChoice {
        var choice = choiceFromEnvironment(env)
        // Only a sixel choice (or none yet) needs the terminal's answers.
        if let c = choice, c.kind != .sixel { return c }
        let trueColor = ["truecolor", "24bit"].contains(env["COLORTERM"]?.lowercased() ?? "")
        guard let input else {
            return choice
                ?? GraphicsChoice(
                    kind: trueColor ? .blocks : .blocks256, reason: "terminal not asked: in the background")
        }
        let replies = ask(input: input, output: output, budget: budget)
        if choice == nil {
            choice = fromReplies(replies).map { GraphicsChoice(kind: $0) }
                ?? GraphicsChoice(kind: trueColor ? .blocks : .blocks256,
                                  reason: replies.isEmpty ? "no answer from the terminal" : nil)
        }
        if choice?.kind == .sixel, let limit = sixelLimit(replies) {
            choice?.sixelMaxWidth = limit.width
            choice?.sixelMaxHeight = limit.height
        }
        return choice!
    }

    /// Where to put picture files for kitty, when it reads this machine's files: a 1×1 picture file is offered with a
    /// query (`a=q,t=t`) and kitty answers OK only when it could read it — on the same machine, not over SSH. Tried
    /// in `/dev/shm` (memory), then the temporary directory; nil when kitty says no, does not answer, or
    /// `SCRUBKIT_KITTY_TRANSFER=direct` asks for pixels in the escape sequences. `input` must be in raw mode.
    public static func kittyFileDirectory(input: Int32, output: Int32, budget: Double = 1.0,
                                          env: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if env["SCRUBKIT_KITTY_TRANSFER"]?.lowercased() == "direct" { return nil }
        let places: [String] = ["/dev/shm", env["TMPDIR"] ?? "/tmp"]
        let candidates = places.filter { access($0, W_OK) == 0 }
        guard let dir = candidates.first else { return nil }
        let probe = "\(dir)/\(KittyRenderer.filePrefix)probe.rgb"
        guard
            (try? FileIO.replace(probe, with: [0, 0, 0], temporary: probe + ".part", mode: 0o600, durability: .none))
                != nil
        else { return nil }
        defer { unlink(probe) }
        let query = "\u{1B}_Gi=32,s=1,v=1,a=q,t=t,f=24;\(Data(probe.utf8).base64EncodedString())\u{1B}\\\u{1B}[c"
        return kittyReadsFiles(ask(input: input, output: output, budget: budget, queries: query)) ? dir : nil
    }

    /// Whether kitty's answer to the file query (image id 32) is OK.
    public static func kittyReadsFiles(_ replies: [String]) -> Bool {
        replies.contains { $0.hasPrefix("\u{1B}_Gi=32") && $0.contains(";OK") }
    }

    /// Sends the queries and collects the replies until DA1 (the last one) arrives or `budget` seconds pass on
    /// `clock`.
    /// By default XTVERSION, kitty graphics query (a 1×1 image that is never stored), XTSMGRAPHICS (sixel geometry),
    /// DSR, DA1; `queries` must end with DA1.
    static func ask(
        input: Int32, output: Int32, budget: Double, clock: MediaClock = SystemClock(),
        queries: String = "\u{1B}[>0q\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[?2;1;0S\u{1B}[6n\u{1B}[c"
    ) -> [String] {
        TerminalOutput.write(queries, to: output)
        var decoder = KeyDecoder()
        var replies: [String] = []
        let deadline = clock.now() + budget
        while case let left = deadline - clock.now(), left > 0 {
            let ms = Int32(max(1, left * 1000))
            guard case .bytes(let bytes) = TerminalInput.read(input, waitingAtMost: ms) else { break }
            for e in decoder.feed(bytes, final: false) { if case .reply(let r) = e { replies.append(r) } }
            if replies.contains(where: { $0.hasPrefix("\u{1B}[?") && $0.hasSuffix("c") }) { break }   // DA1 comes last
        }
        return replies
    }
}
