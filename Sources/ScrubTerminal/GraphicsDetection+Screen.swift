import Foundation

extension GraphicsDetection {
    /// The graphics a full-screen program (`play`, `browse`) draws with: `forced` (`--graphics`) or detected from
    /// `env` and the terminal's answers on `keyboard` (nil in the background: then the terminal is not asked, its
    /// answers would reach the shell); a forced sixel still asks for the size limit, and kitty on this machine gets
    /// pictures through files.
    public static func choose(forced: GraphicsKind?, env: [String: String], keyboard keys: Int32?) -> GraphicsChoice {
        var choice =
            forced.map { GraphicsChoice(kind: $0, reason: "forced") } ?? choose(env: env, input: keys, output: 1)
        if choice.kind == .sixel && choice.sixelMaxWidth == nil, forced != nil, let keys,
           let limit = sixelLimit(ask(input: keys, output: 1, budget: 1.0)) {
            // Forced sixel: still ask for the size limit (a picture over it is not shown at all).
            (choice.sixelMaxWidth, choice.sixelMaxHeight) = (limit.width, limit.height)
        }
        if choice.kind == .kitty, let keys, let dir = kittyFileDirectory(input: keys, output: 1, env: env) {
            choice.kittyFileDirectory = dir   // kitty on this machine: pictures through files, not the terminal
            choice.reason = choice.reason ?? "files in \(dir)"
        }
        return choice
    }
}
