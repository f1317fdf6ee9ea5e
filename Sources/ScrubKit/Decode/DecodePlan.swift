import FFmpegBridge

/// How one decoder decodes a video stream, decided once and handed to ``FrameExtractor`` whole: its threads, its
/// shrink-on-load, the picture-size limit, and two shortcuts — no deblocking where the picture is shrunk to a quarter
/// or less each way (its effect cannot be seen there), and an exact request leaving out the reference pictures its
/// answer does not depend on (the answer's pixels are the same). A thumbnail's plan is built by
/// ``ThumbnailGenerator/decodePlan(for:threading:lowres:)``; which frame answers a time (exact, keyframe, within a
/// tolerance; where to stop and drain) is decided per request by the extractor, as a ``FrameReader/Aim``.
struct DecodePlan: Equatable, Sendable {
    /// The decoder's threads.
    var threading: DecoderThreading = .single
    /// JPEG-family shrink-on-load (0: none; clamped to what the codec allows).
    var lowres = 0
    /// Pictures above this many pixels are refused (FFmpeg's `max_pixels`).
    var pixelLimit = MediaInspector.defaultPixelLimit
    /// No deblocking (``deblockingIsInvisible(stream:shrunkTo:)``).
    var skipsLoopFilter = false
    /// An exact request may leave out the reference pictures its answer does not need (``ReferenceSkipPlan``).
    var skipsUnneededReferences = true

    /// Whether `stream`'s pictures fitted in `size` come out at a quarter of its coded size or less each way, where the
    /// loop filter's effect cannot be seen.
    static func deblockingIsInvisible(stream: StreamFacts, shrunkTo size: MaximumSize) -> Bool {
        let display = VideoInfo.displaySize(
            width: stream.width, height: stream.height, sar: stream.sampleAspectRatio, rotation: 0)
        let out = size.fit(width: display.0, height: display.1)
        return out.0 > 0 && out.1 > 0 && stream.width >= 4 * out.0 && stream.height >= 4 * out.1
    }
}

extension ThumbnailGenerator {
    /// The plan for decoding `source` with `threading` and `lowres` under this generator's settings: the shortcuts
    /// only with fast decoding allowed (off for `--no-fast-decode`, which decodes every picture as FFmpeg would), no
    /// deblocking only for a moving picture shrunk enough.
    func decodePlan(for source: VideoSource, threading: DecoderThreading, lowres: Int) -> DecodePlan {
        DecodePlan(
            threading: threading, lowres: lowres, pixelLimit: pixelLimit,
            skipsLoopFilter: allowsFastDecoding && !source.isStill
                && DecodePlan.deblockingIsInvisible(stream: source.stream, shrunkTo: maximumSize),
            skipsUnneededReferences: allowsFastDecoding)
    }
}
