import ScrubKit
import ScrubTerminal

/// `scrubkit --version [--json]`: the version, FFmpeg's libraries as found at run time (or why not), the other
/// libraries and which optional parts work — the first thing a bug report needs.
enum VersionReport {
    /// Prints the report; returns the exit status (0: the report itself never fails).
    static func print(json: Bool) -> Int32 {
        let report = ComponentReport.gather(
            libraries: TerminalComponents.libraries, features: TerminalComponents.features)
        if json { printOut(self.json(report).text) } else { printOut(text(report)) }
        return 0
    }

    /// The human form. The first line is `scrubkit VERSION` alone (scripts read it).
    static func text(_ r: ComponentReport) -> String {
        var lines = ["scrubkit \(version)", "License: \(license) (each library below under its own)"]
        lines.append(
            "FFmpeg " + (r.ffmpegRelease.map { v in v + (r.ffmpegLicense.map { ", \($0)" } ?? "") } ?? "missing")
                + " (loaded when first needed):")
        for l in r.ffmpeg {
            let state = l.version.map { v in v == l.builtAgainst ? v : "\(v) (built against \(l.builtAgainst ?? "?"))" }
                ?? "missing — \(l.problem ?? "cannot be opened")"
            lines.append("  " + l.name.padding(toLength: 14, withPad: " ", startingAt: 0) + state)
        }
        lines.append("Libraries:")
        for l in r.libraries {
            lines.append("  " + l.name.padding(toLength: 14, withPad: " ", startingAt: 0)
                         + (l.version ?? "missing").padding(toLength: 10, withPad: " ", startingAt: 0) + l.role)
        }
        lines.append("Features:")
        for f in r.features {
            lines.append(
                "  " + (f.available ? "+" : "-") + f.key.padding(toLength: 13, withPad: " ", startingAt: 0) + f.detail)
        }
        return lines.joined(separator: "\n")
    }

    /// The scripting form: one object, keys stable.
    static func json(_ r: ComponentReport) -> JSON {
        func library(_ l: ComponentReport.Library) -> JSON {
            var fields: [(String, JSON)] = [("name", .string(l.name)), ("version", l.version.map(JSON.string) ?? .null)]
            if let b = l.builtAgainst { fields.append(("builtAgainst", .string(b))) }
            if let f = l.file { fields.append(("file", .string(f))) }
            if l.version == nil { fields.append(("error", .string(l.problem ?? "cannot be opened"))) }
            return .object(fields)
        }
        return .object([
            ("version", .string(version)),
            ("license", .string(license)),
            ("ffmpeg", .object([("release", r.ffmpegRelease.map(JSON.string) ?? .null),
                                ("license", r.ffmpegLicense.map(JSON.string) ?? .null), ("found", .bool(r.hasFFmpeg)),
                                ("libraries", .array(r.ffmpeg.map(library)))])),
            ("libraries", .array(r.libraries.map(library))),
            ("features", .object(r.features.map { ($0.key, .bool($0.available)) })),
            ("featureDetails", .object(r.features.map { ($0.key, .string($0.detail)) })),
        ])
    }
}
