import Foundation
import MediaTime
import ScrubKit

/// `thumbs`' options read into the library's ``BatchOptions``: times, modes, sheets, previews, shards.
extension ThumbsCommand {
    /// The batch `p` asks for, and the shard (K of N) when one is given.
    static func batchOptions(_ p: ParsedArguments) throws -> (BatchOptions, (k: Int, n: Int)?) {
        let out = try OutputOptions(p, command: "thumbs")
        var opts = BatchOptions(outputDirectory: p.value("--out") ?? "thumbs")
        opts.maximumSize = out.maximumSize
        opts.format = out.format ?? .jpeg
        opts.quality = out.quality
        if let t = p.value("--name") { opts.nameTemplate = t }
        if let j = try p.int("--jobs") { opts.jobs = j }
        if let n = try p.int("--max-pixels") { opts.pixelLimit = n }
        opts.resume = p.flag("--resume")
        if p.flag("--cache") {
            opts.cache = CommandCache.files
            opts.desktop = CommandCache.desktop
        }
        opts.vtt = p.flag("--vtt")
        if opts.vtt { opts.times = .track }   // (unless a plan is given below)
        opts.skipsBlankFrames = !p.flag("--keep-blank")

        if let n = try p.int("--count") { opts.times = .count(n) }
        if let e = p.value("--every") {
            guard case .absolute(let t)? = try? TimeExpression(parsing: e), t > .zero else {
                throw UsageError(
                    message: "--every expects a duration such as 10s or 500ms, got '\(e)'", command: "thumbs")
            }
            opts.times = .every(t)
        }
        if let a = p.value("--at") {
            do { opts.times = .at(try a.split(separator: ",").map { try TimeExpression(parsing: String($0)) }) }
            catch let e as TimeExpressionError { throw UsageError(message: e.description, command: "thumbs") }
        }
        opts.acceptsApproximateFrames = p.flag("--approximate")
        if let (before, after) = try p.tolerances(command: "thumbs") {
            (opts.toleranceBefore, opts.toleranceAfter) = (before, after)
        }
        if let s = p.value("--sheet") {
            let parts = s.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, (1...20).contains(parts[0]), (1...20).contains(parts[1]) else {
                throw UsageError(message: "--sheet expects COLSxROWS such as 4x3, got '\(s)'", command: "thumbs")
            }
            opts.sheet = (parts[0], parts[1])
        }
        if p.value("--columns") != nil || p.value("--rows") != nil {
            let c = try p.int("--columns") ?? 4
            let r = try p.int("--rows") ?? 4
            opts.sheet = (c, r)
        }
        if let f = try p.choice("--preview", PreviewFormat.init(fileExtension:)) {
            opts.preview = try previewOptions(p, format: f, size: opts.maximumSize)
        }
        opts.scenes = p.flag("--scenes")
        if let sheet = opts.sheet {
            try sheetOptions(p, sheet, into: &opts)
        } else {
            opts.selectsRepresentativeFrames = p.flag("--best")
        }
        opts.frameCriteria = try FrameCriteriaOptions.parse(p, command: "thumbs")
        if let skip = p.value("--skip") {
            guard let v = Double(skip.hasSuffix("%") ? String(skip.dropLast()) : skip), v >= 0, v < 45 else {
                throw UsageError(
                    message: "--skip expects a percentage below 45, such as 7%, got '\(skip)'", command: "thumbs")
            }
            opts.skipsEdges = v / 100
        }
        var shard: (k: Int, n: Int)? = nil
        if let s = p.value("--shard") {
            let parts = s.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 2, parts[1] >= 1, parts[0] >= 0, parts[0] < parts[1] else {
                throw UsageError(message: "--shard expects K/N with 0 ≤ K < N, got '\(s)'", command: "thumbs")
            }
            shard = (parts[0], parts[1])
            opts.shardLabel = "\(parts[0])-of-\(parts[1])"
        }
        return (opts, shard)
    }

    /// An animated preview per file (`--preview F`): `size` when the command line gave one.
    static func previewOptions(
        _ p: ParsedArguments, format: PreviewFormat, size: MaximumSize
    ) throws -> PreviewOptions {
        var preview = PreviewOptions()
        preview.format = format
        if let n = try p.int("--count", in: 1...100) { preview.count = n }
        if let n = try p.int("--fps") { preview.framesPerSecond = n }
        if p.value("--max-size") != nil || p.value("--width") != nil || p.value("--height") != nil {
            preview.maximumSize = size
        }
        if let v = try p.number("--excerpt") { preview.excerptSeconds = v }
        return preview
    }

    /// A contact sheet per file (`--sheet CxR` or `--columns`/`--rows`): its style, and the frames a sheet wants.
    static func sheetOptions(
        _ p: ParsedArguments, _ sheet: (columns: Int, rows: Int), into opts: inout BatchOptions
    ) throws {
        // With a sheet, --width is the sheet's width: the tiles are made to fit it.
        if let w = try p.int("--width", in: 64...20_000) {
            if p.value("--max-size") != nil {
                throw UsageError(
                    message: "with --sheet, use --width (the sheet's) or --max-size (the tiles'), not both",
                    command: "thumbs")
            }
            opts.sheetStyle.width = w
            if p.value("--height") != nil {
                throw UsageError(
                    message: "with --sheet, the height follows from --width and the rows", command: "thumbs")
            }
        }
        opts.sheetStyle.columns = sheet.columns
        if let sp = try p.int("--spacing") { opts.sheetStyle.spacing = sp }
        if let b = p.value("--background") {
            guard let c = RGBColor(parsing: b) else {
                throw UsageError(
                    message: "--background expects #rrggbb or a colour name, got '\(b)'", command: "thumbs")
            }
            opts.sheetStyle.background = c
        }
        opts.sheetStyle.font = p.value("--font")
        opts.absoluteTimes = p.flag("--absolute-times")
        opts.skipsEdges = 0.07
        opts.selectsRepresentativeFrames = !p.flag("--no-best")
    }
}
