/// Usage lines made from the table: each form's operands, then its options (an exclusive group as one choice),
/// so a usage line never omits or misnames an option.
extension CommandSpec {
    /// One line per form: `scrubkit NAME OPERANDS [--option VALUE] [--a N | --b T] …`.
    var usageLines: [String] { usageTokens.map { $0.joined(separator: " ") } }

    /// The usage lines as `--help` prints them: wrapped at 100 columns between options, never inside one.
    var wrappedUsage: String {
        usageTokens.map { Self.wrapped($0, width: 100, lead: 7, indent: 9) }.joined(separator: "\n       ")
    }

    /// Each form's words: the program, the command, the operands, then one word per option or exclusive group.
    private var usageTokens: [[String]] {
        forms.indices.map { i in
            let form = forms[i]
            let mine = options.filter {
                !$0.hidden && $0.form == i && !form.split(separator: " ").contains(Substring($0.names.last!))
            }
            var words: [String] = []
            var done: Set<String> = []
            for o in mine where !done.contains(o.names.last!) {
                let name = o.names.last!
                if let group = exclusive.first(where: { $0.contains(name) }) {
                    let members = group.compactMap { n in mine.first { $0.names.last == n } }
                    words.append("[" + members.map(Self.word).joined(separator: " | ") + "]")
                    done.formUnion(group)
                } else {
                    words.append("[" + Self.word(o) + "]")
                    done.insert(name)
                }
            }
            return [programName, name] + (form.isEmpty ? [] : [form]) + words
        }
    }

    /// An option as a usage line shows it: `--count N`, `--json`.
    private static func word(_ o: OptionSpec) -> String {
        o.names.last! + (o.takesValue ? " " + (o.values.isEmpty ? o.valueName : o.values.joined(separator: "|")) : "")
    }

    /// `words` joined by spaces, broken between words so no line is wider than `width` (unless one word is): the
    /// first line follows `lead` columns of something else, continuation lines are indented by `indent`.
    static func wrapped(_ words: [String], width: Int, lead: Int, indent: Int) -> String {
        var lines: [String] = []
        var current = ""
        for word in words {
            let room = width - (lines.isEmpty ? lead : indent)
            if !current.isEmpty && current.count + 1 + word.count > room {
                lines.append(current)
                current = String(word)
            } else {
                current += (current.isEmpty ? "" : " ") + word
            }
        }
        lines.append(current)
        return lines.joined(separator: "\n" + String(repeating: " ", count: indent))
    }
}
