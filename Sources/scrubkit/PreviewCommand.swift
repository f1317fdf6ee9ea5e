import Foundation
import ScrubKit

/// `scrubkit preview FILE -o OUT.webp|.mp4`
enum PreviewCommand {
    /// The library's defaults, which the help states (each default is stated once: in ``PreviewOptions``).
    static let defaults = PreviewOptions()
    /// The default frames' longest side.
    static var defaultSide: Int { if case .longestSide(let n) = defaults.maximumSize { return n } else { return 0 } }
    /// Seconds as the help writes them (`1`, `0.5`).
    static func seconds(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(x) }

    static let spec = CommandSpec(
        name: "preview",
        abstract:
            "Write a short animated preview (WebP, GIF or MP4) of a whole video: excerpts from different scenes, "
                + "stitched in order.",
        forms: ["FILE"],
        options: [
            OptionSpec(
                names: ["-o", "--output"], takesValue: true, valueName: "OUT",
                help:
                    "The preview file, .webp (animated, looping), .gif (one palette for the clip, looping) or .mp4 "
                        + "(H.264). Default: NAME-preview.webp here."
            ),
            OptionSpec(
                names: ["-f", "--format"], takesValue: true, valueName: "F",
                help: "webp, gif or mp4 (default: from the output name, else webp).", values: ["webp", "gif", "mp4"]),
            OptionSpec(
                names: ["-n", "--count"], takesValue: true, valueName: "N",
                help: "Excerpts, each from another scene (default \(defaults.count)).", range: 1...100, whole: true),
            OptionSpec(
                names: ["--excerpt"], takesValue: true, valueName: "SECONDS",
                help: "Length of each excerpt (default \(seconds(defaults.excerptSeconds))).", range: 0.001...60),
            OptionSpec(
                names: ["--fps"], takesValue: true, valueName: "N",
                help: "Frames per second (default \(defaults.framesPerSecond)).", range: 1...60, whole: true),
            OptionSpec(
                names: ["-s", "--max-size"], takesValue: true, valueName: "N",
                help: "Longest side at most N pixels (default \(defaultSide)).", range: 16...4096, whole: true),
            OptionSpec(
                names: ["--quality"], takesValue: true, valueName: "Q",
                help: "WebP quality 1-100 (default \(defaults.quality)).", range: 1...100, whole: true),
            OptionSpec(
                names: ["--json"], takesValue: false,
                help: "Print {path, output, excerpts, frames, seconds, width, height}."),
        ],
        discussion: """
        The cuts are found first (as thumbs --scenes); the excerpts come from the longest scenes, centred in them,
        or spread evenly when the file has fewer scenes. Frames are exact, rotated upright and scaled as thumbnails
        are. One excerpt's frames are held at a time (a GIF's until its palette is learnt); the output is written
        atomically (nothing is left behind when it fails). Exit status 1 when the file cannot be previewed.
        """,
        operands: .media,
        examples: [
            Example(
                title: "A looping WebP preview of a film, six one-second excerpts",
                command: "scrubkit preview film.mkv -o film.webp"),
            Example(
                title: "An MP4 preview of ten two-second excerpts at 15 fps",
                command: "scrubkit preview film.mkv -o film.mp4 --count 10 --excerpt 2 --fps 15"),
        ],
        operandCount: 1...1)

    static func run(_ args: [String]) throws -> Int32 {
        let p = try ParsedArguments(args, spec: spec)
        let path = p.positional[0]
        var o = PreviewOptions()
        if let format = try p.choice("--format", PreviewFormat.init(fileExtension:)) {
            o.format = format
        } else if let out = p.value("--output"),
            let format = PreviewFormat(fileExtension: URL(fileURLWithPath: out).pathExtension)
        {
            o.format = format
        }
        if let n = try p.int("--count") { o.count = n }
        if let n = try p.int("--fps") { o.framesPerSecond = n }
        if let n = try p.int("--max-size") { o.maximumSize = .longestSide(n) }
        if let n = try p.int("--quality") { o.quality = n }
        if let s = try p.number("--excerpt") { o.excerptSeconds = s }
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
                printOut(
                    "\(r.output)  \(r.width)×\(r.height)  \(r.frames) frames, \(String(format: "%.1f", r.seconds)) s "
                        + "from \(r.excerpts.count) excerpts"
                )
            }
            return 0
        } catch let e as MediaError {
            printError("scrubkit: \(e)")
            return 1
        }
    }
}
