/// `scrubkit manual [COMMAND]`: prints a manual page's man(7) source.
enum ManualCommand {
    static let spec = CommandSpec(
        name: "manual",
        abstract: "Print the manual page of scrubkit or of one command, as man(7) source (read it with man -l -).",
        forms: ["[COMMAND]", "--list"],
        options: [
            OptionSpec(
                names: ["--list"], takesValue: false,
                help: "List the pages (scrubkit, scrubkit-info, …), one per line.", form: 1)
        ],
        discussion: "The pages are generated from the same tables as --help, so they always match this version.",
        operands: .commands,
        examples: [
            Example(
                title: "Read the thumb command's page without installing it",
                command: "scrubkit manual thumb | man -l -"),
            Example(
                title: "Write every page",
                command: "for p in $(scrubkit manual --list); do scrubkit manual ${p#scrubkit-} > $p.1; done"),
        ],
        exitStatuses: [],
        operandCount: 0...1, operandNoun: "page")

    static func run(_ args: [String]) throws -> Int32 {
        let p = try ParsedArguments(args, spec: spec)
        if p.flag("--list") { printOut(ManualPage.names.joined(separator: "\n")); return 0 }
        let name =
            p.positional.first.map { $0 == "scrubkit" || $0.hasPrefix("scrubkit-") ? $0 : "scrubkit-" + $0 }
            ?? "scrubkit"
        guard let page = ManualPage.page(named: name) else {
            throw UsageError(message: "no manual page '\(name)' (scrubkit manual --list shows them)", command: "manual")
        }
        printOut(String(page.dropLast()))
        return 0
    }
}
