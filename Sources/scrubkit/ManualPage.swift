import Foundation

/// scrubkit's manual pages, written in man(7) from the same tables as `--help` (``subcommands``): scrubkit(1) and one
/// page per command (scrubkit-thumb(1), …), with EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES.
enum ManualPage {
    /// The names of every page: `scrubkit`, then `scrubkit-info`, … (the file of each is NAME.1).
    static var names: [String] { ["scrubkit"] + commandPageNames }

    /// The page of a command: `scrubkit-thumb`.
    static func pageName(_ c: Subcommand) -> String { "scrubkit-" + c.spec.name }

    /// Every command's page, in table order.
    static var commandPageNames: [String] { subcommands.map(pageName) }

    /// Environment variables scrubkit reads, for every page.
    static let environment: [(String, String)] = [
        (
            "SCRUBKIT_GRAPHICS",
            "How scrubkit play draws pictures: kitty, iterm, sixel, blocks, blocks256 or none (as --graphics; the "
                + "option wins). Unset: chosen from the environment, then by asking the terminal."
        ),
        (
            "TERM, COLORTERM, TERM_PROGRAM, KITTY_WINDOW_ID",
            "Read by scrubkit play to choose the graphics when none is forced."
        ),
        (
            "PULSE_SERVER",
            "The sound server scrubkit play connects to (unix:PATH or tcp:HOST); unset: the user's PulseAudio or "
                + "PipeWire server."
        ),
        ("NO_COLOR", "When set and not empty, progress is printed as plain lines, without colours or escape codes."),
        (
            "XDG_CACHE_HOME",
            "Where the caches live (an absolute path; default ~/.cache): scrubkit's in $XDG_CACHE_HOME/scrubkit, the "
                + "desktop's in $XDG_CACHE_HOME/thumbnails."
        ),
        ("HOME", "The default cache location's base, when XDG_CACHE_HOME is unset."),
        (
            "SCRUBKIT_TIMEOUT",
            "Seconds a URL may go without an answer, reconnects included, before scrubkit gives up (as --timeout; the "
                + "option wins; default 20). For the desktop thumbnailer, which cannot pass options."
        ),
        ("http_proxy, no_proxy", "Proxy for http:// sources (FFmpeg's HTTP reader), and hosts reached without it."),
        ("TMPDIR", "Where scrubkit bench generates its default inputs."),
    ]

    /// Files scrubkit reads or writes besides its inputs and outputs, for every page.
    static let files: [(String, String)] = [
        (
            "$XDG_CACHE_HOME/scrubkit/",
            "scrubkit's thumbnail cache (--cache): at most 512 MiB, least recently used entries removed first. "
                + "scrubkit cache shows it; scrubkit cache --clear empties it."
        ),
        (
            "$XDG_CACHE_HOME/thumbnails/",
            "The desktop's thumbnail cache (freedesktop.org), shared with file managers: normal/, large/, x-large/, "
                + "xx-large/, and fail/ for files that could not be thumbnailed."
        ),
        (
            "/usr/share/thumbnailers/scrubkit.thumbnailer",
            "Lets file managers use scrubkit for video, HEIF, AVIF and WebP thumbnails."
        ),
    ]

    /// Exit statuses every command shares.
    static let commonExitStatuses: [(Int32, String)] = [
        (
            64,
            "A usage mistake (an unknown option, a missing or bad value): a one-line error and a hint on standard "
                + "error."
        ),
        (
            127,
            "One of FFmpeg's libraries is missing or too different from the one scrubkit was built with (scrubkit "
                + "--version shows which)."
        ),
    ]

    /// The page named `name` (`scrubkit` or `scrubkit-COMMAND`), nil for an unknown name.
    static func page(named name: String) -> String? {
        if name == "scrubkit" { return mainPage() }
        guard let c = subcommands.first(where: { pageName($0) == name }) else { return nil }
        return commandPage(c)
    }

    static func mainPage() -> String {
        var r = Roff(name: "scrubkit")
        r.section("NAME"); r.text("scrubkit \\- inspect, thumbnail and scrub video and images in a terminal", raw: true)
        r.section("SYNOPSIS")
        r.synopsis(command: "scrubkit", rest: "COMMAND [OPTIONS] [FILE...]")
        r.synopsis(command: "scrubkit", rest: "--version [--json]")
        r.synopsis(command: "scrubkit", rest: "COMMAND --help")
        r.section("DESCRIPTION")
        r.paragraphs(
            "scrubkit inspects media files, extracts thumbnails (frame-exact or fast, upright, with the right colours "
                + "and memory bounded by the output) one at a time or in batches, plays and scrubs videos in the "
                    + "terminal (also over SSH), and measures what decoding and downsampling cost. It reads what "
                        + "FFmpeg reads, and JPEG, WebP, HEIF and AVIF stills through their own libraries."
        )
        r.section("COMMANDS")
        for c in subcommands {
            r.tag("\\fB" + Roff.escape(c.spec.name) + "\\fR")
            r.text(c.summary + " See \(pageName(c))(1).")
        }
        r.section("OPTIONS")
        for o in globalOptions { r.option(o) }
        r.section("EXAMPLES")
        for e in subcommands.compactMap(\.spec.examples.first) { r.example(e) }
        exitStatus(&r, [(1, "The command failed for at least one file (each failure is reported on standard error).")])
        common(&r, seeAlso: commandPageNames)
        return r.output
    }

    static func commandPage(_ c: Subcommand) -> String {
        let s = c.spec
        var r = Roff(name: pageName(c))
        r.section("NAME");
        r.text("scrubkit\\-\(Roff.escape(s.name)) \\- " + Roff.escape(lowercasedFirst(s.abstract)), raw: true)
        r.section("SYNOPSIS")
        for form in s.usageLines {
            let rest = form.dropFirst(programName.count + 1 + s.name.count).drop { $0 == " " }
            r.synopsis(command: programName + " " + s.name, rest: String(rest))
        }
        r.section("DESCRIPTION"); r.paragraphs(s.abstract)
        if !s.discussion.isEmpty { r.paragraphs(s.discussion) }
        r.section("OPTIONS")
        for o in s.documentedOptions { r.option(o) }
        if !s.examples.isEmpty {
            r.section("EXAMPLES")
            for e in s.examples { r.example(e) }
        }
        exitStatus(&r, s.exitStatuses)
        common(&r, seeAlso: ["scrubkit"] + commandPageNames.filter { $0 != pageName(c) })
        return r.output
    }

    private static func exitStatus(_ r: inout Roff, _ specific: [(Int32, String)]) {
        r.section("EXIT STATUS")
        for (code, meaning) in [(0, "Success.")] + specific + commonExitStatuses {
            r.tag("\\fB\(code)\\fR"); r.text(meaning)
        }
    }

    private static func common(_ r: inout Roff, seeAlso pages: [String]) {
        r.section("ENVIRONMENT")
        for (name, meaning) in environment { r.tag("\\fB" + Roff.escape(name) + "\\fR"); r.text(meaning) }
        r.section("FILES")
        for (path, meaning) in files { r.tag("\\fI" + Roff.escape(path) + "\\fR"); r.text(meaning) }
        r.section("SEE ALSO")
        let references = pages.map { "\\fB" + Roff.escape($0) + "\\fR(1)" }
            + ["\\fBffmpeg\\fR(1)", "\\fBffprobe\\fR(1)", "\\fBmpv\\fR(1)"]
        r.text(references.joined(separator: ",\n"), raw: true)
        r.section("BUGS")
        r.text("Please include the output of scrubkit \\-\\-version in a bug report.", raw: true)
    }

    private static func lowercasedFirst(_ s: String) -> String {
        var t = s
        if t.hasSuffix(".") { t.removeLast() }
        guard let f = t.first, f.isUppercase, !(t.dropFirst().first?.isUppercase ?? false) else { return t }
        return f.lowercased() + t.dropFirst()
    }
}

/// A man(7) document being written: escaping, lines of at most 80 bytes (mandoc -Tlint's limit) and the few
/// macros the pages use.
struct Roff {
    private(set) var output: String
    /// Set after a section heading: the first paragraph needs no .PP (mandoc warns about one).
    private var atSectionStart = false

    /// Starts a section-1 page called `name`.
    init(name: String) {
        output =
            ".\\\" Generated by scrubkit \(version) from its option tables (scrubkit manual); edit those, not this "
                + "file.\n"
        output += ".TH \(Roff.escape(name.uppercased())) 1 \(versionDate) \"scrubkit \(version)\" \"User Commands\"\n"
    }

    /// `text` safe for roff: backslashes, and every non-ASCII character as \[uXXXX]; `dashes`: `-` as `\-`
    /// (options and commands, so that they can be copied). Leading dots are protected by ``lines(_:)``.
    static func escape(_ text: String, dashes: Bool = true) -> String {
        var out = ""
        for u in text.unicodeScalars {
            switch u {
            case "\\": out += "\\e"
            case "-" where dashes: out += "\\-"
            case _ where u.value > 0x7e || (u.value < 0x20 && u != "\n"):
                out += String(format: "\\[u%04X]", u.value)
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// Escaped `text` as input lines of at most 79 bytes, broken at spaces; in no-fill mode (`continued`) a
    /// broken line ends in `\` so the reader sees one line. A line starting with a dot or an apostrophe (which
    /// would be read as a request) gets a zero-width `\&` first.
    static func lines(_ text: String, continued: Bool = false) -> String {
        var result: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if !line.isEmpty, line.utf8.count + 1 + word.utf8.count > (continued ? 76 : 79) {
                result.append(continued ? line + " \\" : line)
                line = String(word)
            } else {
                line += (line.isEmpty ? "" : " ") + word
            }
        }
        result.append(line)
        return result.map { $0.first == "." || $0.first == "'" ? "\\&" + $0 : $0 }.joined(separator: "\n")
    }

    mutating func section(_ title: String) { output += ".SH \"\(title)\"\n"; atSectionStart = true }

    /// Filled text (`raw`: already escaped), each input line wrapped.
    mutating func text(_ s: String, raw: Bool = false) {
        let escaped = raw ? s : Roff.escape(s, dashes: false)
        output +=
            escaped.split(separator: "\n", omittingEmptySubsequences: false).map { Roff.lines(String($0)) }.joined(
                separator: "\n") + "\n"
        atSectionStart = false
    }

    private mutating func paragraphBreak() {
        if !atSectionStart { output += ".PP\n" }
        atSectionStart = false
    }

    /// Paragraphs separated by blank lines, each reflowed.
    mutating func paragraphs(_ s: String) {
        let blocks = s.components(separatedBy: "\n\n").map {
            $0.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        }.filter { !$0.isEmpty }
        for b in blocks { paragraphBreak(); text(b) }
    }

    /// An indented tagged paragraph: `tag` (already escaped) then the text that follows.
    mutating func tag(_ tag: String) { output += ".TP\n" + tag + "\n"; atSectionStart = false }

    /// Unfilled, indented lines (a command), long ones continued with `\`.
    mutating func code(_ s: String) {
        paragraphBreak()
        let body = s.split(separator: "\n").map { Roff.lines(Roff.escape(String($0)), continued: true) }.joined(
            separator: "\n")
        output += ".RS 4\n.nf\n" + body + "\n.fi\n.RE\n"
    }

    /// A synopsis: the command in bold, the rest filled (not justified) and wrapped.
    mutating func synopsis(command: String, rest: String) {
        paragraphBreak()
        output += ".ad l\n.B " + Roff.escape(command) + "\n" + Roff.lines(Roff.escape(rest)) + "\n.ad\n"
    }

    mutating func option(_ o: OptionSpec) {
        let names = o.names.map { "\\fB" + Roff.escape($0) + "\\fR" }.joined(separator: ", ")
        tag(names + (o.takesValue ? " \\fI" + Roff.escape(o.valueName) + "\\fR" : ""))
        text(o.help + (o.values.isEmpty ? "" : " One of: " + o.values.joined(separator: ", ") + "."))
    }

    mutating func example(_ e: Example) {
        paragraphBreak()
        text(e.title + ":")
        code(e.command)
    }
}
