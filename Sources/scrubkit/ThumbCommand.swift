import Foundation
import MediaTime
import ScrubKit

/// Options shared by `thumb` and `downsample`: size, format, quality.
struct OutputOptions {
    var maximumSize: MaximumSize
    var format: ImageFormat?
    var quality: Int
    var allowsUpscaling: Bool

    /// The longest side when no size is given.
    static let defaultSide = 320
    /// JPEG/WebP quality when none is given.
    static let defaultQuality = 85

    static let specs: [OptionSpec] = [
        OptionSpec(
            names: ["-s", "--max-size"], takesValue: true, valueName: "N",
            help: "Longest side at most N pixels (0 = full size). Default \(defaultSide).", range: 0...100_000,
            whole: true),
        OptionSpec(
            names: ["--width"], takesValue: true, valueName: "W",
            help: "Fit inside W pixels wide (with --height: a box).", range: 0...100_000, whole: true),
        OptionSpec(
            names: ["--height"], takesValue: true, valueName: "H", help: "Fit inside H pixels high.",
            range: 0...100_000, whole: true),
        OptionSpec(names: ["--upscale"], takesValue: false, help: "Enlarge pictures smaller than the size asked for."),
        OptionSpec(
            names: ["-f", "--format"], takesValue: true, valueName: "F",
            help: "png, jpeg or webp (default: from the output name, else jpeg).", values: ["png", "jpeg", "webp"],
            synonyms: ["jpg"]),
        OptionSpec(
            names: ["--quality"], takesValue: true, valueName: "Q",
            help: "JPEG/WebP quality 1-100 (default \(defaultQuality)).", range: 1...100, whole: true),
    ]

    /// The options `p` gives; `checksEncoder`: refuse a format whose encoder this FFmpeg lacks now (asking loads FFmpeg
    /// for PNG and WebP: `thumb --cache` asks only when it has to encode).
    init(_ p: ParsedArguments, command: String, checksEncoder: Bool = true) throws {
        let w = try p.int("--width")
        let h = try p.int("--height")
        if let n = try p.int("--max-size") {
            if w != nil || h != nil {
                throw UsageError(message: "use either --max-size or --width/--height", command: command)
            }
            maximumSize = n == 0 ? .unscaled : .longestSide(n)
        } else if w != nil || h != nil {
            maximumSize = .box(width: w ?? 0, height: h ?? 0)
        } else {
            maximumSize = .longestSide(OutputOptions.defaultSide)
        }
        if let fmt = try p.choice("--format", ImageFormat.init(fileExtension:)) {
            guard !checksEncoder || fmt.isAvailable else {
                throw UsageError(message: "this FFmpeg build has no \(fmt.rawValue) encoder", command: command)
            }
            format = fmt
        }
        quality = try p.int("--quality") ?? OutputOptions.defaultQuality
        allowsUpscaling = p.flag("--upscale")
    }
}

/// `scrubkit thumb FILE --at TIME …`
enum ThumbCommand {
    static let spec = CommandSpec(
        name: "thumb",
        abstract: "Write a thumbnail of a video at a time (or of a still image), fitted to a maximum size, upright.",
        forms: ["FILE"],
        options: [
            OptionSpec(
                names: ["-t", "--at"], takesValue: true, valueName: "TIME",
                help:
                    "12.5, 12.5s, 90ms, 1:02:03.250, 50% or 3/4. Repeat for several. Default: a representative frame "
                        + "between 10% and 30%."
            ),
            OptionSpec(
                names: ["--scenes"], takesValue: false,
                help:
                    "The video's longest scene (the cuts are found first; kept with --cache), its best frame inside it."
            ),
            OptionSpec(
                names: ["--best"], takesValue: false,
                help:
                    "Around each time (±1 s), the best-looking frame: not black, blank or a fade; the sharpest and "
                        + "most colourful. When none there passes, it looks further (up to halfway to the next time)."
            ),
        ] + FrameCriteriaOptions.specs + OutputOptions.specs + [
            OptionSpec(
                names: ["--exact"], takesValue: false,
                help: "The frame whose display interval contains TIME (decodes from the keyframe before)."),
            OptionSpec(
                names: ["--fast"], takesValue: false,
                help: "The keyframe at or before TIME (fastest; can be a GOP early)."),
            OptionSpec(
                names: ["--tolerance"], takesValue: true, valueName: "T",
                help: "Accept a frame up to T before TIME (default 1s; 0 = exact)."),
            OptionSpec(
                names: ["--approximate"], takesValue: false,
                help:
                    "Where the data near TIME is damaged, return the nearest frame that decodes, flagged "
                        + "\"approximate\": true (default: an error for that time)."
            ),
            OptionSpec(
                names: ["--no-rotate"], takesValue: false,
                help: "Keep stored pixels: ignore the display matrix / EXIF orientation."),
            OptionSpec(
                names: ["--no-tonemap"], takesValue: false,
                help: "Keep HDR (PQ/HLG) code values instead of tone-mapping to SDR."),
            OptionSpec(
                names: ["--no-fast-decode"], takesValue: false,
                help:
                    "Keep the deblocking filter even when shrinking 4× or more, decode every reference picture (no "
                        + "H.264 reference skipping), and use one decoder."
            ),
            OptionSpec(
                names: ["--max-pixels"], takesValue: true, valueName: "N",
                help: "Refuse pictures above N pixels (default 150000000).", range: 1...Double(Int32.max) * 4,
                whole: true),
            OptionSpec(
                names: ["-o", "--output"], takesValue: true, valueName: "OUT",
                help:
                    "Output file (default: NAME-TIME.jpg here; - for standard output). With several --at, {index} and "
                        + "{time} are filled in."
            ),
            OptionSpec(
                names: ["--json"], takesValue: false,
                help:
                    "Print {path, output, requestedTime, actualTime, width, height, rotation, exact[, approximate][, "
                        + "cached][, candidates]} per thumbnail; candidates (representative frames): [{time, rejected: "
                            + "[black|white|flat|fade|blurry], luma, contrast, sharpness}] in the order tried."
            ),
            OptionSpec(
                names: ["--cache"], takesValue: false,
                help:
                    "Serve and keep thumbnails in the cache (see 'Cache' below): a repeated request is read, not "
                        + "decoded."
            ),
        ],
        discussion: """
        TIME is on the file's own presentation timeline (as ffprobe shows it): a file whose first frame is at 10 s
        starts at 10 s; a percentage is of [start, start + duration]; times past the end give the last frame.
        Output is written atomically (temporary file, then rename). Exit status 1 when the file or a time failed.

        Cache (--cache): without --at, the file's thumbnail is shared with the desktop (freedesktop.org cache in
        $XDG_CACHE_HOME/thumbnails, the one file managers read; a thumbnail another program made is used when the
        file has not changed since). With --at, thumbnails are kept in $XDG_CACHE_HOME/scrubkit (512 MiB, least
        recently used removed first), keyed on the file's identity (device, inode, size, modification and change
        times) and every setting: a changed file is never served from an older picture. Cache trouble is a warning.
        """,
        operands: .media,
        examples: [
            Example(
                title: "The representative frame of a video (between 10 % and 30 %), 320 pixels",
                command: "scrubkit thumb clip.mp4"),
            Example(
                title: "The exact frame at 1 min 2.5 s, at most 640 pixels, as PNG",
                command: "scrubkit thumb clip.mp4 --at 1:02.5 --exact --max-size 640 -o frame.png"),
            Example(
                title: "Three thumbnails from one open",
                command: "scrubkit thumb clip.mp4 --at 10% --at 50% --at 90% -o 'clip-{index}.jpg'"),
            Example(
                title: "A phone photo, upright, for a web page",
                command: "scrubkit thumb photo.heic --width 800 --height 600 -o photo.webp"),
            Example(
                title: "A thumbnail kept in the cache (a second run reads it)",
                command: "scrubkit thumb film.mkv --at 50% --cache --json"),
        ],
        exclusive: [["--exact", "--fast", "--tolerance"]],
        operandCount: 1...1, oneAtATimeHint: "use 'scrubkit downsample' or several --at")

    static func run(_ args: [String]) throws -> Int32 {
        let p = try ParsedArguments(args, spec: spec)
        let path = p.positional[0]
        let out = try OutputOptions(p, command: "thumb", checksEncoder: !p.flag("--cache"))
        // Without --at: the file's representative frame, searched between 10 % and 30 % (intros and credits left out).
        let atTexts = p.values("--at").isEmpty ? ["20%"] : p.values("--at")
        var times: [TimeExpression] = []
        for t in atTexts {
            do { times.append(try TimeExpression(parsing: t)) } catch let e as TimeExpressionError {
                throw UsageError(message: e.description, command: "thumb")
            }
        }
        var gen = try generator(p, path: path, output: out)
        if p.flag("--scenes") {
            // The file's longest scene (cuts found first, kept with --cache), its representative frame inside it.
            guard p.values("--at").isEmpty else {
                throw UsageError(message: "--scenes chooses the time: leave out --at", command: "thumb")
            }
            do {
                let scenes = try SceneDetector().detect(in: path, cache: p.flag("--cache") ? CommandCache.files : nil)
                    .scenes
                if let longest = SceneDetector.choose(1, from: scenes).first {
                    times = [.absolute(longest.middle)]
                    gen.selectsRepresentativeFrames = true
                    gen.representativeWindow = .within([
                        MediaTimeRange(start: longest.start, duration: longest.duration)
                    ])
                }
            } catch let e as MediaError where e.kind == .noVideo {
                // (A still or an audio file's cover: its picture, as without --scenes.)
            } catch let e as MediaError {
                report(error: e, path: path, json: p.flag("--json"))
                return 1
            }
        } else if p.values("--at").isEmpty {
            gen.selectsRepresentativeFrames = true
            gen.representativeWindow = .fractionOfDuration(0.2)
        } else if p.flag("--best") {
            gen.selectsRepresentativeFrames = true
        }
        let outputTemplate = p.value("--output")
        // `-o -`: the picture goes to standard output, so what is normally printed there goes to standard error.
        let toStdout = outputTemplate == "-"
        if toStdout && times.count > 1 {
            throw UsageError(message: "-o - writes one picture: give one --at", command: "thumb")
        }
        let say: (String) -> Void = toStdout ? { printError($0) } : { printOut($0) }
        let format =
            out.format ?? outputTemplate.flatMap { ImageFormat(fileExtension: URL(fileURLWithPath: $0).pathExtension) }
            ?? .jpeg
        // (With --cache a hit encodes nothing: the encoder is asked for only when a file is made.)
        if !p.flag("--cache") && !format.isAvailable {
            throw UsageError(message: "this FFmpeg build has no \(format.rawValue) encoder", command: "thumb")
        }

        let produced: [ThumbnailGenerator.FileResult]
        do {
            produced = try generateFiles(
                gen, times: times, userGaveTimes: !p.values("--at").isEmpty || p.flag("--scenes"), format: format,
                quality: out.quality, useCache: p.flag("--cache"))
        } catch let e as MediaError {
            report(error: e, path: path, json: p.flag("--json"))
            return 1
        }
        var failed = false
        for r in produced {
            switch r.result {
            case .failure(let e):
                failed = true
                report(error: e, path: path, json: p.flag("--json"))
            case .success(let file):
                let name = outputName(template: outputTemplate, path: path, index: r.index, count: produced.count,
                                      time: file.requestedTime.isNumeric ? file.requestedTime : .zero, format: format)
                do {
                    try AtomicFile.write(file.bytes, to: name)
                } catch {
                    failed = true
                    report(
                        error: (error as? MediaError) ?? MediaError(.writeFailed, path: name, "\(error)"), path: path,
                        json: p.flag("--json"))
                    continue
                }
                say(describe(file, name: name, path: path, fromCache: r.fromCache, json: p.flag("--json")))
            }
        }
        return failed ? 1 : 0
    }

    /// The generator `p` asks for on `path` (the time policy aside: that depends on --at and --scenes).
    static func generator(_ p: ParsedArguments, path: String, output out: OutputOptions) throws -> ThumbnailGenerator {
        var gen = ThumbnailGenerator(path: path)
        gen.maximumSize = out.maximumSize
        gen.allowsUpscaling = out.allowsUpscaling
        gen.appliesPreferredTrackTransform = !p.flag("--no-rotate")
        gen.toneMapsHDR = !p.flag("--no-tonemap")
        gen.allowsFastDecoding = !p.flag("--no-fast-decode")
        gen.allowsParallelDecoding = !p.flag("--no-fast-decode")
        gen.acceptsApproximateFrames = p.flag("--approximate")
        gen.frameCriteria = try FrameCriteriaOptions.parse(p, command: "thumb")
        if let n = try p.int("--max-pixels") { gen.pixelLimit = n }
        if let (before, after) = try p.tolerances(command: "thumb") {
            gen.requestedTimeToleranceBefore = before
            gen.requestedTimeToleranceAfter = after
        }
        return gen
    }

    /// What is printed for a thumbnail written to `name`: a line of text, or a JSON object with `json`.
    static func describe(
        _ file: ThumbnailCache.EncodedFile, name: String, path: String, fromCache: Bool, json: Bool
    ) -> String {
        let seconds: (MediaTime) -> JSON = { $0.isNumeric ? .seconds($0.seconds) : .null }
        if json {
            return JSON.object(
                [
                    ("path", .string(Redaction.display(path))), ("output", .string(name)),
                    ("requestedTime", seconds(file.requestedTime)), ("actualTime", seconds(file.actualTime)),
                    ("width", .int(file.width)), ("height", .int(file.height)),
                    ("rotation", .int(file.rotation)), ("exact", .bool(file.isExact)),
                ] + (file.isApproximate ? [("approximate", .bool(true))] : [])
                    + (fromCache ? [("cached", .bool(true))] : [])
                    + (file.candidates.isEmpty ? [] : [("candidates", FrameCriteriaOptions.json(file.candidates))])
            ).text
        } else if file.actualTime.isNumeric {
            return
                "\(name)  \(file.width)×\(file.height)  at \(file.actualTime.formatted(fractionDigits: 3)) (asked "
                    + "\(file.requestedTime.formatted(fractionDigits: 3)))\(fromCache ? "  (cached)" : "")"
        } else {
            return "\(name)  \(file.width)×\(file.height)  (the desktop's cached thumbnail)"
        }
    }

    /// The thumbnails as encoded files: through the desktop's thumbnail cache when the file's own thumbnail is asked
    /// for (no --at) with --cache, through scrubkit's cache for other --cache requests, else made now.
    static func generateFiles(
        _ gen: ThumbnailGenerator, times: [TimeExpression], userGaveTimes: Bool, format: ImageFormat,
        quality: Int, useCache: Bool
    ) throws -> [ThumbnailGenerator.FileResult] {
        guard useCache else { return try gen.files(at: times, format: format, quality: quality, cache: nil) }
        if !userGaveTimes, gen.appliesPreferredTrackTransform, gen.toneMapsHDR,
            DesktopThumbnailer.flavor(for: gen.maximumSize) != nil,
            let identity = SourceIdentity(path: gen.path)
        {
            // The file as made from the desktop's entry last time, kept in scrubkit's: served without FFmpeg (the entry
            // is a PNG at one of the desktop's sizes, which would need decoding and scaling again) while the entry
            // stays as it was (another program may replace it).
            let side = DesktopThumbnailer.flavor(for: gen.maximumSize)?.rawValue ?? 0
            func key(_ stamp: String) -> CacheKey {
                gen.fileCacheKey(
                    for: times[0], format: format, quality: quality, identity: identity, via: "desktop:" + stamp)
            }
            if let stamp = CommandCache.desktop.desktop.entryStamp(path: gen.path, longestSide: side),
                let file = CommandCache.files.encodedFile(for: key(stamp))
            {
                return [
                    ThumbnailGenerator.FileResult(index: 0, request: times[0], result: .success(file), fromCache: true)
                ]
            }
            let (thumb, hit) = try CommandCache.desktop.thumbnail(gen, at: times[0], identity: identity)
            let file = try ThumbnailCache.encodedFile(
                thumb, format: format, quality: quality, rotation: thumb.orientation.rotation)
            if let stamp = CommandCache.desktop.desktop.entryStamp(path: gen.path, longestSide: side) {
                CommandCache.files.store(file, for: key(stamp))
            }
            return [ThumbnailGenerator.FileResult(index: 0, request: times[0], result: .success(file), fromCache: hit)]
        }
        return try gen.files(at: times, format: format, quality: quality, cache: CommandCache.files)
    }

    static func report(error: MediaError, path: String, json: Bool) {
        if json {
            printOut(
                JSON.object([("path", .string(Redaction.display(path))), ("error", .string(error.description))]).text)
        }
        printError("scrubkit: \(error)")
    }

    /// The output file name: the template with {index}/{time}/{stem}/{ext} filled in, or NAME-TIME.EXT.
    static func outputName(
        template: String?, path: String, index: Int, count: Int, time: MediaTime, format: ImageFormat
    ) -> String {
        let stem = (BatchNaming.fileName(path) as NSString).deletingPathExtension  // (a URL's query string stays out)
        let secs = MediaTime.decimalString((time.seconds * 1000).rounded() / 1000)
        guard var t = template else { return "\(stem)-\(secs)s.\(format.fileExtension)" }
        t = t.replacingOccurrences(of: "{index}", with: String(index)).replacingOccurrences(of: "{time}", with: secs)
            .replacingOccurrences(of: "{stem}", with: stem).replacingOccurrences(
                of: "{ext}", with: format.fileExtension)
        if count > 1 && !(template!.contains("{index}") || template!.contains("{time}")) {
            let u = URL(fileURLWithPath: t)
            let ext = u.pathExtension.isEmpty ? format.fileExtension : u.pathExtension
            return u.deletingPathExtension().path + "-\(index).\(ext)"
        }
        return t
    }
}
