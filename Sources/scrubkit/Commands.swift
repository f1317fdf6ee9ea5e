import ScrubKit

/// The one table of scrubkit's commands: parsing, `--help`, the manual pages and the shell completions all read it.
struct Subcommand: Sendable {
    /// Options, usage and help text.
    var spec: CommandSpec
    /// One line for `scrubkit --help` and scrubkit(1).
    var summary: String
    /// Runs the command with the arguments after its name; returns the exit status.
    var run: @Sendable ([String]) throws -> Int32
}

/// The command's name, as installed (`/usr/bin/scrubkit`) and written in usage lines and manual pages.
let programName = "scrubkit"
/// scrubkit's version (also the Debian package's).
let version = "0.1.0"
/// scrubkit's licence, as an SPDX identifier (the text is LICENSE at the repository's root).
let license = "Apache-2.0"
/// The date of this version, printed in the manual pages (fixed, so the pages are reproducible).
let versionDate = "2026-12-04"

/// Every command, in the order `--help` lists them.
let subcommands: [Subcommand] = [
    Subcommand(
        spec: InfoCommand.spec, summary: "Report container, duration, video and audio facts (table or --json).",
        run: InfoCommand.run),
    Subcommand(
        spec: ThumbCommand.spec, summary: "Extract one thumbnail at a time (exact or fast), fitted to a max size.",
        run: ThumbCommand.run),
    Subcommand(
        spec: DownsampleCommand.spec, summary: "Shrink still images to a max pixel size (EXIF orientation applied).",
        run: DownsampleCommand.run),
    Subcommand(
        spec: ThumbsCommand.spec,
        summary: "Thumbnails of many files in parallel: progress bar, manifest, contact sheets, WebVTT sprites.",
        run: ThumbsCommand.run),
    Subcommand(
        spec: PreviewCommand.spec,
        summary: "Write a short animated preview (WebP, GIF or MP4) of a whole video: excerpts from different scenes.",
        run: PreviewCommand.run),
    Subcommand(
        spec: CutCommand.spec,
        summary: "Copy a section of a video into a new file without re-encoding (keyframe-aligned, chapters trimmed).",
        run: CutCommand.run),
    Subcommand(
        spec: PlayCommand.spec,
        summary: "Play and scrub a video in the terminal (kitty, iTerm2, sixel or coloured blocks).",
        run: PlayCommand.run),
    Subcommand(
        spec: BrowseCommand.spec,
        summary:
            "Browse a folder of videos as a live grid of thumbnails: moving previews, hover scrubbing, Enter plays.",
        run: BrowseCommand.run),
    Subcommand(
        spec: BenchCommand.spec,
        summary: "Measure decode vs downsample time and memory (and the thumbnail cache: --cache FILE).",
        run: BenchCommand.run),
    Subcommand(spec: CacheCommand.spec, summary: "Show or clear the thumbnail caches.", run: CacheCommand.run),
    Subcommand(
        spec: ManualCommand.spec,
        summary: "Print a manual page as man(7) source (read one with: scrubkit manual thumb | man -l -).",
        run: ManualCommand.run),
    Subcommand(
        spec: CompletionsCommand.spec, summary: "Print the shell completion script for bash, zsh or fish.",
        run: CompletionsCommand.run),
]

/// The options of `scrubkit` itself, before any command.
let globalOptions: [OptionSpec] = [
    OptionSpec(
        names: ["--version"], takesValue: false,
        help:
            "Print the version, FFmpeg's libraries found and the optional parts present (with --json: one JSON object)."
    ),
    OptionSpec(
        names: ["--verbose"], takesValue: false, help: "Show FFmpeg's own log (hidden by default) and URLs whole."),
    OptionSpec(
        names: ["--timeout"], takesValue: true, valueName: "SECONDS",
        help:
            "How long a URL may go without an answer, reconnects included, before scrubkit gives up (default "
                + "\(Int(ProcessSetup.defaultNetworkTimeout)), or SCRUBKIT_TIMEOUT).",
        range: 0.01...3600),
    OptionSpec(names: ["-h", "--help"], takesValue: false, help: "List the commands."),
]

/// The global options that may stand anywhere on the command line (`--verbose`, `--timeout`), as a spec to parse
/// them with; `--version` and `--help` are read only before a command.
let anywhereOptions = CommandSpec(name: "", abstract: "", forms: [],
                                  options: globalOptions.filter { !["--version", "--help"].contains($0.names.last!) })

/// Takes the global options that may stand anywhere out of `args` (not after `--`), parsed by the table.
func takeGlobalOptions(_ args: inout [String]) throws -> ParsedArguments {
    var taken: [String] = [], kept: [String] = []
    var i = 0
    while i < args.count {
        let arg = args[i]
        if arg == "--" { kept += args[i...]; break }
        let name = String(arg.prefix { $0 != "=" })
        if let o = anywhereOptions.options.first(where: { $0.names.contains(name) }) {
            taken.append(arg)
            if o.takesValue && !arg.contains("=") && i + 1 < args.count { taken.append(args[i + 1]); i += 1 }
        } else {
            kept.append(arg)
        }
        i += 1
    }
    args = kept
    return try ParsedArguments(taken, spec: anywhereOptions)
}

/// `scrubkit --help`.
var topHelp: String {
    var s = """
    OVERVIEW: scrubkit — inspect, thumbnail and scrub video and images (FFmpeg inside).

    USAGE: scrubkit <command> [options]

    COMMANDS:

    """
    for c in subcommands { s += " "
        + " " + c.spec.name.padding(toLength: 14, withPad: " ", startingAt: 0) + c.summary + "\n" }
    s += """

      scrubkit <command> --help   shows a command's options.
      scrubkit --version          prints the version and what this build contains (--version --json for scripts).
      man scrubkit                the manual (man scrubkit-thumb … for each command).
    """
    return s
}

/// The command named `name`.
func subcommand(named name: String) -> Subcommand? { subcommands.first { $0.spec.name == name } }
