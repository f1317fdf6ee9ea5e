import FFmpegBridge
import Foundation
import MediaTime

/// Settings of a batch thumbnail run (`scrubkit thumbs`).
public struct BatchOptions: Sendable {
    /// Where thumbnails, sheets, sprites and the resume journal are written (created if needed).
    public var outputDirectory: String
    /// Which times of each video: evenly spread (`--count`), every so often (`--every`) or listed (`--at`).
    public var times: BatchTimes = .count(10)
    /// Fit each thumbnail inside this (aspect kept, no upscaling).
    public var maximumSize: MaximumSize = .longestSide(320)
    /// The encoding of the outputs.
    public var format: ImageFormat = .jpeg
    /// JPEG/WebP quality, 1–100.
    public var quality = 85
    /// How much earlier than each time a frame may be (see ``ThumbnailGenerator/requestedTimeToleranceBefore``).
    public var toleranceBefore: MediaTime = ThumbnailGenerator.defaultToleranceBefore
    /// How much later than each time a frame may be.
    public var toleranceAfter: MediaTime = .zero
    /// Output names, with placeholders (``BatchNaming``): `{name}-{index}.{ext}` by default.
    public var nameTemplate = BatchNaming.defaultTemplate
    /// Files processed at once; each holds one decoder.
    public var jobs = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Skip files whose outputs from an earlier run with the same settings are complete and valid.
    public var resume = false
    /// One contact sheet per file instead of separate thumbnails.
    public var sheet: (columns: Int, rows: Int)? = nil
    /// Contact sheets: replace blank tiles (fades, solid frames) by a nearby frame that shows something.
    public var skipsBlankFrames = true
    /// Contact sheets: layout, colours, font.
    public var sheetStyle = SheetStyle()
    /// Contact sheets: label tiles with presentation timestamps instead of times from the start of the file.
    public var absoluteTimes = false
    /// `.count` plans: leave out this fraction of the timeline at each end (intros, credits; vcsi leaves 7 %).
    public var skipsEdges = 0.0
    /// Representative frames (``ThumbnailGenerator/selectsRepresentativeFrames``), each searched for within half
    /// the distance to its neighbours.
    public var selectsRepresentativeFrames = false
    /// One thumbnail per scene (`--scenes`): the file's cuts are found first (``SceneDetector``) and the times are
    /// the middles of the scenes ``SceneDetector/choose(_:from:)`` picks — as many as the plan's count or the sheet's
    /// tiles.
    public var scenes = false
    /// An animated preview per file (`--preview`) instead of thumbnails: ``PreviewMaker`` with these options.
    public var preview: PreviewOptions? = nil
    /// What a representative frame must be (``ThumbnailGenerator/frameCriteria``).
    public var frameCriteria = FrameCriteria()
    /// Sprites plus a WebVTT thumbnail track per file instead of separate thumbnails.
    public var vtt = false
    /// Refuse pictures above this many pixels, before decoding.
    public var pixelLimit = MediaInspector.defaultPixelLimit
    /// Decoded-frame pixels held at once across parallel jobs (see `PixelBudget`).
    public var pixelBudget = PixelBudget.defaultCapacity
    /// Where the data near a time is damaged, keep the nearest frame that decodes, flagged `approximate` in the
    /// manifest (default: that time fails).
    public var acceptsApproximateFrames = false
    /// This run's shard ("3-of-8"), when sharded: it keeps a resume journal of its own, so shards sharing one output
    /// directory (pods on one volume) never write the same file. A resume reads every shard's journal.
    public var shardLabel: String? = nil
    /// Where finished files' outputs are kept (disk tier): a file seen before with the same settings is written from
    /// it without decoding. Keyed on the source's identity, so a changed file is redone.
    public var cache: ThumbnailCache? = nil
    /// Also offer each file's thumbnail nearest 10 % to the desktop's thumbnail cache (freedesktop.org), so file
    /// managers show it without making their own.
    public var desktop: DesktopThumbnailer? = nil

    /// Default settings writing into `outputDirectory`.
    public init(outputDirectory: String) { self.outputDirectory = outputDirectory }

    /// Identifies the settings that decide the outputs, so `--resume` never reuses work done differently.
    var signature: String {
        let t: String
        switch times {
        case .count(let n): t = "count:\(n)"
        case .every(let s): t = "every:\(s.value)/\(s.timescale)"
        case .at(let l): t = "at:" + l.map(\.description).joined(separator: ",")
        case .track: t = "track"
        }
        var planned = scenes ? t + "|scenes" : t
        if let p = preview {
            planned = "preview:\(p.format.rawValue)|\(p.maximumSize.key)|\(p.count)|\(p.excerptSeconds)"
                + "|\(p.framesPerSecond)|\(p.quality)"
        }
        let st = sheetStyle
        let s =
            sheet.map {
                "\($0.columns)x\($0.rows)\(skipsBlankFrames ? "" : "+blank")|w\(st.width ?? 0)|sp\(st.spacing)"
                    + "|bg\(st.background.r),\(st.background.g),\(st.background.b)|f\(st.font ?? "")"
                    + "|\(absoluteTimes ? "abs" : "rel")"
            } ?? "-"
        // What decides the pixels comes from the generator this batch configures (the same builder as the cache key);
        // the rest is the batch's own: times, encoding, names, sheets, sprites.
        return
            ([planned] + generator(for: "", parallelFiles: 1).settingsKey
            + [
                format.rawValue, String(quality), nameTemplate, s, String(vtt),
                skipsEdges > 0 ? "skip\(skipsEdges)" : "-",
            ])
            .joined(separator: "|")
    }

    /// The generator that makes `source`'s thumbnails under these options (`parallelFiles`: files decoded at once,
    /// so that a file already running beside others uses one decoder).
    func generator(for source: String, parallelFiles: Int) -> ThumbnailGenerator {
        var gen = ThumbnailGenerator(path: source)
        gen.maximumSize = maximumSize
        gen.requestedTimeToleranceBefore = toleranceBefore
        gen.requestedTimeToleranceAfter = toleranceAfter
        gen.pixelLimit = pixelLimit
        gen.acceptsApproximateFrames = acceptsApproximateFrames
        gen.allowsParallelDecoding = parallelFiles <= 1   // files already run in parallel: one decoder each
        gen.selectsRepresentativeFrames = selectsRepresentativeFrames
        gen.representativeWindow = .betweenNeighbours
        gen.frameCriteria = frameCriteria
        if let w = sheetStyle.tileWidth, sheet != nil { gen.maximumSize = .box(width: w, height: 0) }
        return gen
    }
}
