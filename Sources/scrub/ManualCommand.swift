/// `scrub manual [COMMAND]`: prints a manual page's man(7) source.
enum ManualCommand {
    static let spec = CommandSpec(
        name: "manual",
        abstract: "Print the manual page of scrub or of one command, as man(7) source (read it with man -l -).",
        usage: "scrub manual [COMMAND] | scrub manual --list",
        options: [
            OptionSpec(names: ["--list"], takesValue: false, help: "List the pages (scrub, scrub-info, …), one per line."),
        ],
        discussion: "The pages are generated from the same tables as --help, so they always match this version.",
        operands: .commands,
        examples: [
            Example(title: "Read the thumb command's page without installing it", command: "scrub manual thumb | man -l -"),
            Example(title: "Write every page", command: "for p in $(scrub manual --list); do scrub manual ${p#scrub-} > $p.1; done"),
        ],
        exitStatuses: [])

    static func run(_ args: [String]) throws -> Int32 {
        let p = try ParsedArguments(args, spec: spec)
        if p.flag("--list") { printOut(ManualPage.names.joined(separator: "\n")); return 0 }
        guard p.positional.count <= 1 else { throw UsageError(message: "one page at a time", command: "manual") }
        let name = p.positional.first.map { $0 == "scrub" || $0.hasPrefix("scrub-") ? $0 : "scrub-" + $0 } ?? "scrub"
        guard let page = ManualPage.page(named: name) else {
            throw UsageError(message: "no manual page '\(name)' (scrub manual --list shows them)", command: "manual")
        }
        printOut(String(page.dropLast()))
        return 0
    }
}
