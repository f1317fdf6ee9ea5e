import Foundation
import ScrubKit

/// Subtitle lines as a terminal shows them: control characters taken out (a subtitle file cannot send escape
/// codes), wrapped at spaces to the width, centred, at most `rows` rows (the last cut with "…").
public struct SubtitleText: Sendable, Equatable {
    /// The rows to show, each at most the width.
    public let rows: [String]

    /// `lines` wrapped into `width` columns, at most `maxRows` rows.
    public init(_ lines: [String], width: Int, maxRows: Int) {
        let width = max(1, width)
        var out: [String] = []
        for line in lines.map(SubtitleText.printable) where !line.isEmpty {
            var row = ""
            for word in line.split(separator: " ") {
                var word = String(word)
                while word.count > width {   // (a word longer than the width: broken where the width ends)
                    if !row.isEmpty { out.append(row); row = "" }
                    out.append(String(word.prefix(width)))
                    word = String(word.dropFirst(width))
                }
                if row.isEmpty {
                    row = word
                } else if row.count + 1 + word.count <= width {
                    row += " " + word
                } else {
                    out.append(row); row = word
                }
            }
            if !row.isEmpty { out.append(row) }
        }
        if out.count > maxRows {
            out = Array(out.prefix(max(0, maxRows)))
            if var last = out.popLast() {
                if last.count >= width { last = String(last.prefix(width - 1)) }
                out.append(last + "…")
            }
        }
        rows = out
    }

    /// The text without control characters (C0, DEL, C1): tabs become spaces, the rest go.
    static func printable(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.compactMap { u -> Unicode.Scalar? in
            if u == "\t" { return " " }
            return u.value < 0x20 || (0x7F...0x9F).contains(u.value) ? nil : u
        })).trimmingCharacters(in: .whitespaces)
    }

    /// Escape sequences drawing the rows centred in `layout`'s subtitle rows (the rows left blank), bold, from the
    /// bottom up when there are fewer rows of text than rows for it.
    public func render(layout: PlayerLayout, color: Bool) -> String {
        var out = ""
        let first = layout.subtitleRows - rows.count
        for r in 0..<layout.subtitleRows {
            out += "\u{1B}[\(layout.subtitleRow + r + 1);1H\u{1B}[2K"
            let i = r - first
            guard i >= 0, i < rows.count else { continue }
            let text = rows[i]
            out += "\u{1B}[\(max(0, (layout.columns - text.count) / 2) + 1)G"
            out += (color ? "\u{1B}[1;97m" : "\u{1B}[1m") + text + "\u{1B}[0m"
        }
        return out
    }
}
