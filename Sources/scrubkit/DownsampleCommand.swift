import Foundation
import ScrubKit

/// `scrubkit downsample IMAGE... --max-size N [--out DIR]`
enum DownsampleCommand {
    static let spec = CommandSpec(
        name: "downsample",
        abstract:
            "Shrink still images (JPEG, PNG, WebP, GIF first frame, BMP, TIFF) to a max pixel size, upright per EXIF.",
        forms: ["IMAGE..."],
        options: OutputOptions.specs + [
            OptionSpec(
                names: ["--out"], takesValue: true, valueName: "DIR",
                help: "Directory for the results (default: current directory)."),
            OptionSpec(
                names: ["--max-pixels"], takesValue: true, valueName: "N",
                help: "Refuse images above N pixels, before decoding (default 150000000).",
                range: 1...Double(Int32.max) * 4, whole: true),
            OptionSpec(
                names: ["--json"], takesValue: false,
                help: "One JSON object per image: {path, output, width, height, rotation} or {path, error}."),
        ],
        discussion: """
        JPEGs are decoded at 1/2, 1/4 or 1/8 size when that still covers the output (shrink-on-load), then
        scaled in one quality pass. Each result is NAME.EXT in DIR, written atomically. Bad files are reported and
        skipped; exit status 1 when any failed.
        """,
        operands: .images,
        examples: [
            Example(
                title: "Shrink a folder's photos to 1024 pixels, EXIF orientation applied",
                command: "scrubkit downsample photos/*.jpg --max-size 1024 --out small"),
            Example(
                title: "WebP copies, one JSON line per picture",
                command: "scrubkit downsample *.heic --max-size 512 --format webp --out web --json"),
        ],
        operandCount: 1...Int.max, operandNoun: "image")

    static func run(_ args: [String]) throws -> Int32 {
        let p = try ParsedArguments(args, spec: spec)
        let out = try OutputOptions(p, command: "downsample")
        let dir = p.value("--out") ?? "."
        let limit = try p.int("--max-pixels")
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var failed = false
        // Inputs sharing a stem (clip.png, clip.jpg) keep their whole name, so no result replaces another.
        let stems = p.positional.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }
        let shared = Set(stems.filter { s in stems.filter { $0 == s }.count > 1 })
        for path in p.positional {
            var gen = ThumbnailGenerator(path: path)
            gen.maximumSize = out.maximumSize
            gen.allowsUpscaling = out.allowsUpscaling
            if let limit { gen.pixelLimit = limit }
            let format =
                out.format ?? ImageFormat(fileExtension: URL(fileURLWithPath: path).pathExtension).flatMap {
                    $0.isAvailable ? $0 : nil
                } ?? .jpeg
            let url = URL(fileURLWithPath: path)
            let stem =
                shared.contains(url.deletingPathExtension().lastPathComponent)
                ? url.lastPathComponent : url.deletingPathExtension().lastPathComponent
            let target = URL(fileURLWithPath: dir).appendingPathComponent("\(stem).\(format.fileExtension)").path
            do {
                let thumb = try gen.image(at: .absolute(.zero))
                try AtomicFile.write(thumb.encoded(as: format, quality: out.quality), to: target)
                if p.flag("--json") {
                    printOut(
                        JSON.object([
                            ("path", .string(path)), ("output", .string(target)), ("width", .int(thumb.image.width)),
                            ("height", .int(thumb.image.height)), ("rotation", .int(thumb.orientation.rotation)),
                        ]).text)
                } else {
                    printOut("\(target)  \(thumb.image.width)×\(thumb.image.height)")
                }
            } catch {
                failed = true
                let e = (error as? MediaError) ?? MediaError(.decodeFailed, path: path, "\(error)")
                if p.flag("--json") {
                    printOut(JSON.object([("path", .string(path)), ("error", .string(e.description))]).text)
                }
                printError("scrubkit: \(e)")
            }
        }
        return failed ? 1 : 0
    }
}
