import FFmpegBridge
import Foundation
import MediaTime

/// The formats an animated preview is written in.
public enum PreviewFormat: String, Sendable, CaseIterable {
    /// Animated WebP (libwebp's animation encoder): small, in every browser.
    case webp
    /// H.264 MP4 (libx264 when FFmpeg has it).
    case mp4
    /// Animated GIF with one palette for the clip (libavfilter's palettegen and paletteuse; the frames are decoded
    /// once and kept until the palette is learnt).
    case gif

    /// The format a file name's extension asks for.
    public init?(fileExtension: String) { self.init(rawValue: fileExtension.lowercased()) }
}

/// What an animated preview is made of.
public struct PreviewOptions: Sendable {
    /// The frames' size.
    public var maximumSize = MaximumSize.longestSide(320)
    /// How many excerpts (from as many scenes).
    public var count = 6
    /// Seconds per excerpt.
    public var excerptSeconds = 1.0
    /// Frames per second.
    public var framesPerSecond = 10
    /// Lossy quality, 0–100 (WebP; MP4 uses CRF 23).
    public var quality = 75
    /// The output's format.
    public var format = PreviewFormat.webp

    /// The defaults: 6 excerpts of 1 s at 10 fps, 320 px, WebP.
    public init() {}
}

/// An animated preview written, and what is in it.
public struct PreviewReport: Sendable {
    /// The file written.
    public var output: String
    /// Where each excerpt starts on the file's timeline.
    public var excerpts: [MediaTime]
    /// Frames in the preview.
    public var frames: Int
    /// Its length in seconds.
    public var seconds: Double
    /// Frame size.
    public var width: Int, height: Int
}

/// Short moving previews of a whole video (the hover clip of video sites): `count` excerpts from different scenes
/// (``SceneDetector``: the longest scenes; evenly spread when there are no cuts), spread over the file and stitched
/// in order. Frames are made at the output size, one excerpt at a time (a GIF keeps them until its palette is learnt:
/// memory, then a file); the file is written atomically.
public enum PreviewMaker {
    /// Writes the preview of `path` to `output` as `options` say.
    public static func make(
        _ path: String, to output: String, options: PreviewOptions = PreviewOptions()
    ) throws -> PreviewReport {
        try make(path, options: options, output: output)
    }

    /// The preview of `path` as a file's bytes (for a batch, which writes and caches its outputs itself); the
    /// report's `output` is empty.
    public static func render(
        _ path: String, options: PreviewOptions = PreviewOptions()
    ) throws -> (bytes: [UInt8], report: PreviewReport) {
        let temporary = FileIO.temporaryPath(
            beside: FileManager.default.temporaryDirectory.appendingPathComponent(
                "scrubkit-preview.\(options.format.rawValue)"
            ).path)
        defer { FileIO.removeTemporary(temporary) }
        var report = try make(path, options: options, output: temporary)
        guard let bytes = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: temporary))) else {
            throw MediaError(.writeFailed, path: path, "the preview was made but cannot be read back")
        }
        report.output = ""
        return (bytes, report)
    }

    private static func make(_ path: String, options: PreviewOptions, output: String) throws -> PreviewReport {
        let sink = PreviewSink(
            output: output, format: options.format, quality: options.quality, fps: options.framesPerSecond)
        let made: (starts: [MediaTime], frames: Int)
        do {
            made = try frames(of: path, options: options) { image, n in
                try sink.add(image, at: n * 1000 / options.framesPerSecond)
            }
        } catch { sink.abandon(); throw error }
        let size = try sink.finish(at: made.frames * 1000 / options.framesPerSecond)
        return PreviewReport(
            output: output, excerpts: made.starts, frames: made.frames,
            seconds: Double(made.frames) / Double(options.framesPerSecond),
            width: size.width, height: size.height)
    }

    /// Every frame of the preview of `path` as `options` say (its excerpts from chosen scenes, in order, one excerpt
    /// decoded at a time) handed to `body` with its number, fitted to `options.maximumSize` — what a preview file
    /// holds, for showing in place (`browse`'s moving tiles). Returns where the excerpts start and how many frames
    /// there were; `isCancelled` stops it (the scene scan too) between pictures and excerpts. Throws when the file has
    /// no video or no frame decodes.
    public static func frames(of path: String, options: PreviewOptions, isCancelled: @Sendable () -> Bool = { false },
                              _ body: (RGBImage, Int) throws -> Void) throws -> (starts: [MediaTime], frames: Int) {
        guard options.count > 0, options.excerptSeconds > 0, options.framesPerSecond > 0 else {
            throw MediaError(
                .invalidRequest, path: path, "a preview needs at least one excerpt, a length and a frame rate")
        }
        let found: (cuts: [SceneCut], scenes: [Scene])
        do { found = try SceneDetector().detect(in: path, isCancelled: isCancelled) } catch let e as MediaError
            where e.kind == .noVideo
        {
            throw MediaError(.noVideo, path: path, "no video to preview")
        }
        if isCancelled() { return ([], 0) }
        guard let first = found.scenes.first, let last = found.scenes.last else {
            throw MediaError(.noVideo, path: path, "no video to preview")
        }
        let start = first.start, end = last.start + last.duration
        let excerpt = MediaTime(seconds: options.excerptSeconds, preferredTimescale: 1000)
        let starts = excerptStarts(found.scenes, count: options.count, excerpt: excerpt, start: start, end: end)
        let perExcerpt = max(1, Int((options.excerptSeconds * Double(options.framesPerSecond)).rounded()))
        let step = MediaTime(value: 1000 / Int64(options.framesPerSecond), timescale: 1000)
        var generator = ThumbnailGenerator(path: path)
        generator.maximumSize = options.maximumSize
        generator.setExact()
        generator.acceptsApproximateFrames = true
        var n = 0
        for s in starts where !isCancelled() {
            let times = (0..<perExcerpt).map {
                TimeExpression.absolute(MediaTime.minimum(s + step.multiplied(by: Int32($0)), end))
            }
            for r in try generator.generate(at: times) {
                guard case .success(let thumb) = r.result else { continue }  // (a damaged stretch: its frames left out)
                try body(thumb.image, n)
                n += 1
            }
        }
        guard n > 0 || isCancelled() else {
            throw MediaError(.decodeFailed, path: path, "no frame of the preview could be decoded")
        }
        return (starts, n)
    }

    /// Where the excerpts start: in the chosen scenes (their middles, the excerpt centred and kept inside the file),
    /// in time order.
    static func excerptStarts(
        _ scenes: [Scene], count: Int, excerpt: MediaTime, start: MediaTime, end: MediaTime
    ) -> [MediaTime] {
        SceneDetector.choose(count, from: scenes).map { scene in
            let centred = scene.middle - excerpt.multiplied(byRatio: 1, divisor: 2)
            let inScene = scene.duration > excerpt ? MediaTime.maximum(centred, scene.start) : scene.start
            return MediaTime.maximum(start, MediaTime.minimum(inScene, end - excerpt))
        }
    }
}

/// Where a preview's frames go: the format's ``AnimationEncoder``, opened for the first frame's size (every later
/// frame cut to it); any failure leaves nothing behind.
private final class PreviewSink {
    private let output: String
    private let format: PreviewFormat
    private let quality: Int
    private let fps: Int
    private var encoder: (any AnimationEncoder)? = nil
    private var size: (width: Int, height: Int)? = nil

    init(output: String, format: PreviewFormat, quality: Int, fps: Int) {
        self.output = output
        self.format = format
        self.quality = quality
        self.fps = fps
    }

    func add(_ image: RGBImage, at milliseconds: Int) throws {
        let encoder = try start(image)
        let picture = try fitted(image)
        do { try encoder.add(picture, at: milliseconds) } catch {
            abandon()
            throw (error as? MediaError)
                ?? MediaError(.writeFailed, path: output, "cannot encode the preview: \(error)")
        }
    }

    func finish(at milliseconds: Int) throws -> (width: Int, height: Int) {
        do { try encoder?.finish(at: milliseconds) } catch {
            abandon()
            throw (error as? MediaError) ?? MediaError(.writeFailed, path: output, "cannot write the preview: \(error)")
        }
        return size ?? (0, 0)
    }

    /// Leaves nothing behind.
    func abandon() { encoder?.abandon() }

    /// The encoder, opened for the first frame's size.
    private func start(_ image: RGBImage) throws -> any AnimationEncoder {
        if let encoder { return encoder }
        let even = format.needsEvenSides
        let size = (
            width: max(2, even ? image.width & ~1 : image.width),
            height: max(2, even ? image.height & ~1 : image.height)
        )
        self.size = size
        do {
            let made = try format.encoder(
                output: output, width: size.width, height: size.height, fps: fps, quality: quality)
            encoder = made
            return made
        } catch { throw MediaError(.writeFailed, path: output, "cannot start the preview: \(error)") }
    }

    private func fitted(_ image: RGBImage) throws -> RGBImage {
        guard let size, image.width != size.width || image.height != size.height else { return image }
        return try image.resized(width: size.width, height: size.height)
    }

    deinit { abandon() }
}
