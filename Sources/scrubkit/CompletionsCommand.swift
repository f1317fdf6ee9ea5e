/// `scrubkit completions bash|zsh|fish`: prints the completion script for that shell.
enum CompletionsCommand {
    static let spec = CommandSpec(
        name: "completions",
        abstract:
            "Print the shell completion script for bash, zsh or fish (commands, options, option values, media files).",
        forms: ["bash|zsh|fish"],
        options: [],
        discussion: """
        The Debian package installs all three. By hand: scrubkit completions bash > \
        ~/.local/share/bash-completion/completions/scrubkit;
        scrubkit completions zsh > ~/.zfunc/_scrubkit (with ~/.zfunc in fpath); scrubkit completions fish > \
        ~/.config/fish/completions/scrubkit.fish.
        """,
        operands: .choices(Completions.shells),
        examples: [
            Example(title: "Completion in this bash session", command: "source <(scrubkit completions bash)"),
            Example(
                title: "Install for fish",
                command: "scrubkit completions fish > ~/.config/fish/completions/scrubkit.fish"),
        ],
        exitStatuses: [])

    static func run(_ args: [String]) throws -> Int32 {
        let p = try ParsedArguments(args, spec: spec)
        guard p.positional.count == 1, let script = Completions.script(for: p.positional[0]) else {
            throw UsageError(
                message: p.positional.isEmpty
                    ? "name a shell (bash, zsh or fish)"
                    : "no completion for '\(p.positional.joined(separator: " "))' (bash, zsh or fish)",
                command: "completions")
        }
        printOut(String(script.dropLast()))
        return 0
    }
}
