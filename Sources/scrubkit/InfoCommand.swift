import Foundation
import MediaTime
import ScrubKit

/// `scrubkit info FILE... [--json]`
enum InfoCommand {
    static let spec = CommandSpec(
        name: "info",
        abstract:
            "Report what a media file holds: container, duration, the video stream's geometry and colour, audio, "
                + "subtitles, cover pictures.",
        forms: ["FILE..."],
        options: [
            OptionSpec(
                names: ["--json"], takesValue: false,
                help: "One JSON object per line per file (the scripting contract)."),
            OptionSpec(
                names: ["--no-decode"], takesValue: false,
                help: "Skip decoding the first frame (faster; corrupt video may go unnoticed)."),
            OptionSpec(
                names: ["--max-pixels"], takesValue: true, valueName: "N",
                help: "Refuse pictures above N pixels (default 150000000).", range: 1...Double(Int32.max) * 4,
                whole: true),
            OptionSpec(
                names: ["--scenes"], takesValue: false,
                help:
                    "Also find the video's cuts (one pass over the file): scenes [{start, duration, score}], score "
                        + "being the cut's on FFmpeg's 0-1 scene scale."
            ),
        ],
        discussion:
            "Exit status: 0 when every file could be used, 1 when any failed (all are still reported), 64 on usage "
                + "errors.",
        operands: .media,
        examples: [
            Example(
                title: "Describe a clip: container, duration, video and audio streams",
                command: "scrubkit info clip.mp4"),
            Example(title: "One JSON object per file, for scripts", command: "scrubkit info --json *.mp4"),
            Example(title: "Quick facts without decoding a frame", command: "scrubkit info --no-decode film.mkv"),
        ],
        operandCount: 1...Int.max)

    static func run(_ args: [String]) throws -> Int32 {
        let parsed = try ParsedArguments(args, spec: spec)
        var inspector = MediaInspector(verifiesDecoding: !parsed.flag("--no-decode"))
        if let n = try parsed.int("--max-pixels") {
            inspector.pixelLimit = n
        }
        var failed = false
        for (i, path) in parsed.positional.enumerated() {
            let info = inspector.inspect(path: path)
            if info.error != nil { failed = true }
            // The cuts, when asked for and the file has a video to cut.
            var scenes: [(Scene, Double?)]? = nil
            if parsed.flag("--scenes"), info.error == nil, info.video != nil, !info.isStill {
                do {
                    let found = try SceneDetector().detect(in: path)
                    let scores = Dictionary(found.cuts.map { ($0.time, $0.score) }, uniquingKeysWith: max)
                    scenes = found.scenes.map { ($0, scores[$0.start]) }
                } catch { failed = true; printError("scrubkit: \(error)") }
            }
            if parsed.flag("--json") {
                var object = json(info)
                if let scenes, case .object(var fields) = object {
                    fields.insert(
                        (
                            "scenes",
                            .array(
                                scenes.map { s, score in
                                    .object([
                                        ("start", .seconds(s.start.seconds)),
                                        ("duration", .seconds(s.duration.seconds)),
                                        ("score", score.map { .double(($0 * 1000).rounded() / 1000) } ?? .null),
                                    ])
                                })
                        ), at: fields.count - 1)
                    object = .object(fields)
                }
                printOut(object.text)
            } else {
                if i > 0 { printOut("") }
                printOut(table(info))
                if let scenes {
                    printOut(
                        "scenes     \(scenes.count): "
                            + scenes.map { $0.0.start.formatted(fractionDigits: 2) }.joined(separator: " "))
                }
                if let e = info.error { printError("scrubkit: \(e)") }
            }
        }
        return failed ? 1 : 0
    }

    static func json(_ info: MediaInfo) -> JSON {
        let video: JSON =
            info.video.map { v in
                .object([
                    ("codec", .string(v.codec)), ("profile", .from(v.profile)), ("pixelFormat", .from(v.pixelFormat)),
                    ("bitDepth", .from(v.bitDepth)), ("width", .int(v.width)), ("height", .int(v.height)),
                    ("sar", .string("\(v.sar.num):\(v.sar.den)")), ("rotation", .int(v.rotation)),
                    ("mirrored", .bool(v.mirrored)),
                    ("displayWidth", .int(v.displayWidth)), ("displayHeight", .int(v.displayHeight)),
                    ("frameRate", .seconds(v.frameRate)), ("averageFrameRate", .seconds(v.averageFrameRate)),
                    ("frameCount", .from(v.frameCount)), ("keyframeInterval", .seconds(v.keyframeInterval)),
                    ("colorPrimaries", .from(v.colorPrimaries)), ("colorTransfer", .from(v.colorTransfer)),
                    ("colorMatrix", .from(v.colorMatrix)), ("colorRange", .from(v.colorRange)),
                    ("hdr", .string(v.hdr.rawValue)),
                ])
            } ?? .null
        return .object([
            ("path", .string(Redaction.display(info.path))),
            ("container", .from(info.container)),
            ("duration", info.durationKind == .known ? .seconds(info.duration.seconds) : .null),
            ("durationKind", .string(info.durationKind.rawValue)),
            ("startTime", .seconds(info.startTime.seconds)),
            ("isStill", .bool(info.isStill)),
            ("bitRate", .from(info.bitRate)),
            ("video", video),
            (
                "audio",
                .array(
                    info.audio.map {
                        .object([
                            ("codec", .string($0.codec)), ("sampleRate", .int($0.sampleRate)),
                            ("channels", .int($0.channels)),
                        ])
                    })
            ),
            (
                "subtitles",
                .array(
                    info.subtitles.map {
                        .object([
                            ("codec", .string($0.codec)), ("language", .from($0.language)), ("title", .from($0.title)),
                            ("default", .bool($0.isDefault)), ("forced", .bool($0.isForced)),
                            ("bitmap", .bool($0.isBitmap)),
                        ])
                    })
            ),
            ("attachedPictures", .int(info.attachedPictures)),
            (
                "chapters",
                .array(
                    info.chapters.map { c in
                        .object([
                            ("start", .seconds(c.start.seconds)),
                            ("end", c.end.isNumeric ? .seconds(c.end.seconds) : .null),
                            ("title", .from(c.title)),
                        ])
                    })
            ),
            ("error", info.error.map { .string($0.description) } ?? .null),
        ])
    }

    static func table(_ info: MediaInfo) -> String {
        var rows: [(String, String)] = [("file", Redaction.display(info.path))]
        rows.append(("container", info.container ?? "-"))
        if info.isStill {
            rows.append(("kind", "still image"))
        } else {
            let d =
                info.durationKind == .known
                ? "\(info.duration.formatted(fractionDigits: 3)) (\(fmt(info.duration.seconds)) s)"
                : info.durationKind.rawValue
            rows.append(("duration", d))
            if info.startTime != .zero { rows.append(("start time", "\(fmt(info.startTime.seconds)) s")) }
        }
        if let b = info.bitRate { rows.append(("bit rate", "\(b / 1000) kb/s")) }
        if let v = info.video {
            var line = "\(v.codec)\(v.profile.map { " (\($0))" } ?? ""), \(v.pixelFormat ?? "?")"
            if let b = v.bitDepth { line += ", \(b)-bit" }
            rows.append(("video", line))
            var size = "\(v.width)×\(v.height)"
            if v.sar.num != v.sar.den { size += ", SAR \(v.sar.num):\(v.sar.den)" }
            if v.rotation != 0 || v.mirrored { size += ", rotate \(v.rotation)°\(v.mirrored ? " + mirror" : "")" }
            size += " → displayed \(v.displayWidth)×\(v.displayHeight)"
            rows.append(("  size", size))
            var rate = v.averageFrameRate.map { "\(fmt($0)) fps avg" } ?? "-"
            if let r = v.frameRate, let a = v.averageFrameRate, abs(r - a) > 0.01 { rate += ", \(fmt(r)) fps base" }
            if let n = v.frameCount { rate += ", \(n) frames" }
            if let k = v.keyframeInterval { rate += ", keyframe every ~\(fmt(k)) s" }
            rows.append(("  rate", rate))
            let colour = [v.colorMatrix, v.colorPrimaries, v.colorTransfer, v.colorRange].map { $0 ?? "?" }.joined(
                separator: "/")
            rows.append(("  colour", colour + (v.hdr != .none ? ", HDR \(v.hdr.rawValue.uppercased())" : "")))
        } else if !info.isStill {
            rows.append(("video", "none"))
        }
        for (i, a) in info.audio.enumerated() {
            rows.append((i == 0 ? "audio" : "", "\(a.codec), \(a.sampleRate) Hz, \(a.channels) ch"))
        }
        for (i, t) in info.subtitles.enumerated() {
            rows.append(
                (
                    i == 0 ? "subtitles" : "",
                    t.codec + (t.isBitmap ? " (pictures)" : "") + (t.name.isEmpty ? "" : ", " + t.name)
                        + (t.marks.isEmpty ? "" : " " + t.marks)
                ))
        }
        if info.attachedPictures > 0 { rows.append(("cover pictures", String(info.attachedPictures))) }
        for (i, c) in info.chapters.enumerated() {
            rows.append(
                (i == 0 ? "chapters" : "", "\(c.start.formatted(fractionDigits: 1))  \(c.title ?? "(untitled)")"))
        }
        if let e = info.error { rows.append(("error", e.reason)) }
        let w = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: w, withPad: " ", startingAt: 0) + "  " + $0.1 }.joined(separator: "\n")
    }

    static func fmt(_ d: Double) -> String {
        let r = (d * 1000).rounded() / 1000
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}
