import Foundation
import ScrubKit

/// A usage mistake: printed as "Error: …" plus a hint, exit status 64 (EX_USAGE).
struct UsageError: Error, CustomStringConvertible {
    var message: String
    var command: String
    var description: String { message }
}

/// One option a subcommand accepts.
struct OptionSpec {
    /// Names including dashes, e.g. ["-o", "--output"].
    var names: [String]
    /// Takes a value (`--max-size 320` or `--max-size=320`) or is a flag.
    var takesValue: Bool
    var valueName: String = "VALUE"
    var help: String
    /// The values it accepts, when they are a fixed set (`png jpeg webp`): checked by the parser (in any case),
    /// offered by shell completion.
    var values: [String] = []
    /// Other spellings of ``values`` it accepts without offering them (`jpg`).
    var synonyms: [String] = []
    /// The numbers it accepts, checked by the parser (``whole``: whole numbers only).
    var range: ClosedRange<Double>? = nil
    /// Whether ``range`` admits only whole numbers.
    var whole = false
    /// Options it goes with: given without any of them, it is a usage error ("--spacing goes with --sheet").
    var requires: [String] = []
    /// Options it cannot be given with ("--preview does not go with --sheet").
    var conflicts: [String] = []
    /// Parsed but left out of help, usage, manual pages and completions (internal plumbing such as `bench --child`).
    var hidden = false
    /// The synopsis form it belongs to (``CommandSpec/forms``: 0 the first).
    var form = 0

    /// What shell completion offers for the value: the fixed set, else files or directories from the value's name.
    var valueCompletion: ValueCompletion {
        if !values.isEmpty { return .choices(values) }
        switch valueName {
        case "FILE", "FILE|-", "OUT": return .files
        case "DIR": return .directories
        default: return .nothing
        }
    }
}

/// What shell completion offers in one place of a command line.
enum ValueCompletion: Equatable {
    /// Nothing (a number, a time, a template: the user types it).
    case nothing
    /// One of these words.
    case choices([String])
    /// Any file.
    case files
    /// Directories.
    case directories
    /// Media files (by extension) and directories.
    case media
    /// Still-image files (by extension) and directories.
    case images
    /// scrubkit's command names.
    case commands
}

/// One example of a command, for its manual page.
struct Example {
    /// What it does, one sentence.
    var title: String
    /// The command line.
    var command: String
}

/// A subcommand's declared interface, used for parsing and for `--help`.
struct CommandSpec {
    var name: String
    var abstract: String
    /// The operands of each way to call it ("FILE", "--bench FILE"); the usage lines add the options of each form
    /// (``usageLines``).
    var forms: [String]
    var options: [OptionSpec]
    var discussion: String = ""
    /// What the command's operands (FILE, INPUT, …) are, for shell completion.
    var operands: ValueCompletion = .media
    /// Examples for the manual page.
    var examples: [Example] = []
    /// Exit statuses beyond 0 and 64 (usage), for the manual page.
    var exitStatuses: [(Int32, String)] = [(1, "A file or a time failed (each is reported on standard error).")]
    /// Options of which at most one may be given ("choose one of --exact, --fast, --tolerance").
    var exclusive: [[String]] = []
    /// How many operands it takes, checked by the parser (nil: the command checks them: they depend on an option).
    var operandCount: ClosedRange<Int>? = nil
    /// What an operand is called in the parser's messages ("no file given", "one page at a time").
    var operandNoun = "file"
    /// Said after "one file at a time" (where to go for several).
    var oneAtATimeHint: String? = nil

    /// The options as `--help` and the manual page list them: the declared ones and `--help`.
    var documentedOptions: [OptionSpec] {
        options.filter { !$0.hidden } + [
            OptionSpec(names: ["-h", "--help"], takesValue: false, help: "Show help for this command.")
        ]
    }

    var helpText: String {
        var s = "OVERVIEW: \(abstract)\n\nUSAGE: \(wrappedUsage)\n\nOPTIONS:\n"
        for o in documentedOptions {
            let left = o.names.joined(separator: ", ") + (o.takesValue ? " <\(o.valueName)>" : "")
            s += "  " + left.padding(toLength: max(left.count, 28), withPad: " ", startingAt: 0) + "  " + o.help + "\n"
        }
        if !discussion.isEmpty { s += "\n" + discussion + "\n" }
        return s
    }
}

/// The parsed command line of one subcommand.
struct ParsedArguments {
    var positional: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    /// Long names of the options given.
    private var given: Set<String> = []
    private let spec: CommandSpec
    var wantsHelp = false

    /// Parses `arguments` against `spec`; unknown options and missing values are usage errors.
    init(_ arguments: [String], spec: CommandSpec) throws {
        self.spec = spec
        var i = 0
        var onlyPositional = false
        func canonical(_ name: String) -> OptionSpec? { spec.options.first { $0.names.contains(name) } }
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if onlyPositional || !arg.hasPrefix("-") || arg == "-" { positional.append(arg); continue }
            if arg == "--" { onlyPositional = true; continue }
            if arg == "-h" || arg == "--help" { wantsHelp = true; continue }
            var name = arg
            var inline: String? = nil
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            guard let opt = canonical(name) else {
                throw UsageError(message: "unknown option '\(name)'", command: spec.name)
            }
            given.insert(opt.names.last!)
            let key = opt.names.last!
            if opt.takesValue {
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard i < arguments.count else {
                        throw UsageError(
                            message: "option '\(name)' needs a value (\(opt.valueName))", command: spec.name)
                    }
                    value = arguments[i]
                    i += 1
                }
                values[key, default: []].append(value)
            } else {
                if inline != nil { throw UsageError(message: "option '\(name)' takes no value", command: spec.name) }
                flags.insert(key)
            }
        }
        try check(spec)
        try checkOperands(spec)
    }

    /// The table's operand count: one message for too few, one for too many.
    private func checkOperands(_ spec: CommandSpec) throws {
        guard let r = spec.operandCount else { return }
        let noun = spec.operandNoun
        if positional.count < r.lowerBound {
            throw UsageError(message: "no \(noun) given", command: spec.name)
        }
        if positional.count > r.upperBound {
            let message =
                r.upperBound == 0
                ? "\(spec.name) takes no \(noun)"
                : r.upperBound == 1
                    ? "one \(noun) at a time" + (spec.oneAtATimeHint.map { " (\($0))" } ?? "")
                    : "at most \(r.upperBound) \(noun)s"
            throw UsageError(message: message, command: spec.name)
        }
    }

    /// The table's rules: at most one of each exclusive group, each option with one it requires and none it conflicts
    /// with.
    private func check(_ spec: CommandSpec) throws {
        for group in spec.exclusive where group.filter(given.contains).count > 1 {
            throw UsageError(message: "choose one of " + group.joined(separator: ", "), command: spec.name)
        }
        for o in spec.options
        where !o.requires.isEmpty && given.contains(o.names.last!) && !o.requires.contains(where: given.contains) {
            throw UsageError(
                message: "\(o.names.last!) goes with " + o.requires.joined(separator: " or "), command: spec.name)
        }
        for o in spec.options where given.contains(o.names.last!) {
            if let other = o.conflicts.first(where: given.contains) {
                throw UsageError(message: "\(o.names.last!) does not go with \(other)", command: spec.name)
            }
        }
        for o in spec.options where o.takesValue {
            let name = o.names.last!
            for v in values(name) {
                if !o.values.isEmpty && !(o.values + o.synonyms).contains(v.lowercased()) {
                    throw UsageError(
                        message: "\(name) expects one of \(o.values.joined(separator: ", ")), got '\(v)'",
                        command: spec.name)
                }
                if let r = o.range { _ = try Self.number(v, name: name, in: r, whole: o.whole, command: spec.name) }
            }
        }
    }

    /// `text` as a number in `range` (a whole one when `whole`); the one message when it is not.
    static func number(
        _ text: String, name: String, in range: ClosedRange<Double>, whole: Bool, command: String
    ) throws -> Double {
        let x = whole ? Int(text).map(Double.init) : Double(text)
        guard let x, x.isFinite, range.contains(x) else {
            let what = whole ? "a whole number" : "a number"
            throw UsageError(
                message:
                    "\(name) expects \(what) in \(format(range.lowerBound))…\(format(range.upperBound)), got '\(text)'",
                command: command)
        }
        return x
    }

    /// The last value given for the option whose long name is `name`.
    func value(_ name: String) -> String? { values[name]?.last }
    /// Every value given for `name`.
    func values(_ name: String) -> [String] { values[name] ?? [] }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// Whether the option whose long name is `name` was given (with a value or as a flag).
    func has(_ name: String) -> Bool { given.contains(name) }

    /// An integer option (its range checked when parsed).
    func int(_ name: String) throws -> Int? {
        guard let v = value(name) else { return nil }
        _ = try Self.number(v, name: name, in: declaredRange(name), whole: true, command: spec.name)
        return Int(v)
    }

    /// An integer option within `range`, narrower than the declared one where another option says so (`thumbs
    /// --count` with `--preview`).
    func int(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let v = value(name) else { return nil }
        let r = Double(range.lowerBound)...Double(range.upperBound)
        _ = try Self.number(v, name: name, in: r, whole: true, command: spec.name)
        return Int(v)
    }

    /// A number option (its range checked when parsed).
    func number(_ name: String) throws -> Double? {
        guard let v = value(name) else { return nil }
        return try Self.number(v, name: name, in: declaredRange(name), whole: false, command: spec.name)
    }

    /// The value of `name` (one of its declared `values`, checked when parsed) made into a `T`.
    func choice<T>(_ name: String, _ make: (String) -> T?) throws -> T? {
        guard let v = value(name) else { return nil }
        guard let t = make(v.lowercased()) else {
            throw UsageError(message: "\(name): '\(v)' is not one this build knows", command: spec.name)
        }
        return t
    }

    /// The range the option's ``OptionSpec`` declares (none declared: any number).
    private func declaredRange(_ name: String) -> ClosedRange<Double> {
        spec.options.first(where: { $0.names.last == name })?.range
            ?? -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
    }

    private static func format(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : String(x)
    }
}

/// Writes a line to standard error through fd 2 (the C `stderr` stream is not concurrency-safe in Swift 6).
func printError(_ line: String) {
    FileIO.writeAll(line.hasSuffix("\n") ? line : line + "\n", to: 2)
}

/// Writes a line to standard output without buffering surprises when piped.
func printOut(_ line: String) {
    FileIO.writeAll(line + "\n", to: 1)
}
