import Foundation
import ScrubKit

/// `scrubkit preview FILE -o OUT.webp|.mp4`
enum PreviewCommand {
    static let spec = CommandSpec(
        name: "preview",
        abstract: "Write a short animated preview (WebP, GIF or MP4) of a whole video: excerpts from different scenes, stitched in order.",
        usage: "scrubkit preview FILE [-o OUT.webp|OUT.gif|OUT.mp4] [--count N] [--excerpt SECONDS] [--fps N] [--max-size N] [--quality Q] [--json]",
        options: [
            OptionSpec(names: ["-o", "--output"], takesValue: true, valueName: "OUT", help: "The preview file, .webp (animated, looping), .gif (one palette for the clip, looping) or .mp4 (H.264). Default: NAME-preview.webp here."),
            OptionSpec(names: ["-f", "--format"], takesValue: true, valueName: "F", help: "webp, gif or mp4 (default: from the output name, else webp).", values: ["webp", "gif", "mp4"]),
            OptionSpec(names: ["-n", "--count"], takesValue: true, valueName: "N", help: "Excerpts, each from another scene (default 6)."),
            OptionSpec(names: ["--excerpt"], takesValue: true, valueName: "SECONDS", help: "Length of each excerpt (default 1)."),
            OptionSpec(names: ["--fps"], takesValue: true, valueName: "N", help: "Frames per second (default 10)."),
            OptionSpec(names: ["-s", "--max-size"], takesValue: true, valueName: "N", help: "Longest side at most N pixels (default 320)."),
            OptionSpec(names: ["--quality"], takesValue: true, valueName: "Q", help: "WebP quality 1-100 (default 75)."),
            OptionSpec(names: ["--json"], takesValue: false, help: "Print {path, output, excerpts, frames, seconds, width, height}."),
        ],
        discussion: """
        The cuts are found first (as thumbs --scenes); the excerpts come from the longest scenes, centred in them,
        or spread evenly when the file has fewer scenes. Frames are exact, rotated upright and scaled as thumbnails
        are. One excerpt's frames are held at a time; the output is written atomically (nothing is left behind when
        it fails). Exit status 1 when the file cannot be previewed.
        """,
        operands: .media,
        examples: [
            Example(title: "A looping WebP preview of a film, six one-second excerpts", command: "scrubkit preview film.mkv -o film.webp"),
            Example(title: "An MP4 preview of ten two-second excerpts at 15 fps", command: "scrubkit preview film.mkv -o film.mp4 --count 10 --excerpt 2 --fps 15"),
        ])

    static func run(_ args: [String]) throws -> Int32 {
        let p = try ParsedArguments(args, spec: spec)
        guard p.positional.count == 1 else { throw UsageError(message: p.positional.isEmpty ? "no file given" : "one file at a time", command: "preview") }
        let path = p.positional[0]
        var o = PreviewOptions()
        if let f = p.value("--format") {
            guard let format = PreviewFormat(fileExtension: f) else { throw UsageError(message: "unknown format '\(f)' (webp, gif, mp4)", command: "preview") }
            o.format = format
        } else if let out = p.value("--output"), let format = PreviewFormat(fileExtension: URL(fileURLWithPath: out).pathExtension) {
            o.format = format
        }
        if let n = try p.int("--count", in: 1...100, command: "preview") { o.count = n }
        if let n = try p.int("--fps", in: 1...60, command: "preview") { o.framesPerSecond = n }
        if let n = try p.int("--max-size", in: 16...4096, command: "preview") { o.maximumSize = .longestSide(n) }
        if let n = try p.int("--quality", in: 1...100, command: "preview") { o.quality = n }
        if let e = p.value("--excerpt") {
            guard let s = Double(e), s > 0, s <= 60 else { throw UsageError(message: "--excerpt expects seconds up to 60, got '\(e)'", command: "preview") }
            o.excerptSeconds = s
        }
        let stem = (BatchNaming.fileName(path) as NSString).deletingPathExtension
        let output = p.value("--output") ?? "\(stem)-preview.\(o.format.rawValue)"
        do {
            let r = try PreviewMaker.make(path, to: output, options: o)
            if p.flag("--json") {
                printOut(JSON.object([
                    ("path", .string(Redaction.display(path))), ("output", .string(r.output)),
                    ("excerpts", .array(r.excerpts.map { .seconds($0.seconds) })), ("frames", .int(r.frames)),
                    ("seconds", .seconds(r.seconds)), ("width", .int(r.width)), ("height", .int(r.height)),
                ]).text)
            } else {
                printOut("\(r.output)  \(r.width)×\(r.height)  \(r.frames) frames, \(String(format: "%.1f", r.seconds)) s from \(r.excerpts.count) excerpts")
            }
            return 0
        } catch let e as MediaError {
            printError("scrubkit: \(e)")
            return 1
        }
    }
}
