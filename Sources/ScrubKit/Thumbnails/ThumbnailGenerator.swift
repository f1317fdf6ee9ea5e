import FFmpegBridge
import Foundation
import MediaTime

/// Makes thumbnails of a video (frames at requested times) or a still image, at a maximum pixel size —
/// AVAssetImageGenerator and ImageIO's thumbnail options in one API: the caller need not know which a file is.
///
/// A value type holding the settings; each call opens the file once (through `MediaOpener`) and decodes on the calling
/// thread (``images(at:)``: on a task of its own; several exact times: a second decoder on a thread of its own, with
/// its own open), so no FFmpeg context is ever used by two threads.
public struct ThumbnailGenerator: Sendable {
    /// The file.
    public var path: String
    /// Fit inside this (aspect kept). Default: 320 px longest side.
    public var maximumSize: MaximumSize = .longestSide(320)
    /// Enlarge pictures smaller than `maximumSize` (off by default, like ImageIO).
    public var allowsUpscaling = false
    /// Rotate/mirror per the display matrix or EXIF orientation (on by default, like
    /// `appliesPreferredTrackTransform = true`).
    public var appliesPreferredTrackTransform = true
    /// How much earlier than requested a frame may be. Default 1 s: see ``defaultToleranceBefore``.
    public var requestedTimeToleranceBefore: MediaTime = ThumbnailGenerator.defaultToleranceBefore
    /// How much later than requested a frame may be. Default 0: a thumbnail never shows what comes after the time.
    public var requestedTimeToleranceAfter: MediaTime = .zero
    /// Tone-map HDR (PQ/HLG) pictures to SDR, like AVAssetImageGenerator (on by default; off keeps the coded values).
    public var toneMapsHDR = true
    /// Decode JPEGs at 1/2, 1/4 or 1/8 size when that still covers the output (on by default; off to measure).
    public var allowsShrinkOnLoad = true
    /// Video: when the thumbnail is at most a quarter of the coded picture in each direction, decode without the
    /// in-loop deblocking filter (H.264/HEVC/VP9…): about 20 % less decoding. What it changes is finer than the
    /// reduction keeps — a mean difference under 1/255 for 1080p → 320 px, 29 frames into a GOP — so the default
    /// is on; turn it off for bit-exact reference renders. Off, an exact request also decodes every reference picture
    /// (on, H.264 reference B-pictures the answer does not need are left out: `ReferenceSkipPlan`).
    public var allowsFastDecoding = true
    /// Video: use a second core — several exact times decode two halves of the timeline at once with two decoders,
    /// and a single picture of an MP4/MOV is looked for while the file is still being probed (on by
    /// default on multi-core machines). Turn it off when files are already processed in parallel (batch jobs).
    public var allowsParallelDecoding = true
    /// Refuse pictures above this many pixels, before allocating (default ``MediaInspector/defaultPixelLimit``).
    public var pixelLimit: Int = MediaInspector.defaultPixelLimit
    /// When the only frame that decodes near a time is outside the tolerance window (damaged or truncated data),
    /// return it flagged ``Thumbnail/isApproximate`` instead of failing that time (off by default: a result is
    /// never silently further from the time than asked).
    public var acceptsApproximateFrames = false
    /// Where finished thumbnails are kept and looked up (nil: none). Hits skip opening the file; only local files
    /// are cached (their ``SourceIdentity`` is part of the key), and only calls with fixed times (`image(at:)`,
    /// `generate(at:)`, `images(at:)`).
    public var cache: ThumbnailCache? = nil
    /// Representative frames (`--best`): instead of the frame at each time, the best-looking of several frames in
    /// ``representativeWindow`` around it — not blank, not a fade, the sharpest and most colourful (``FrameScore``).
    /// Candidates are the keyframes found across the window (one frame decoded each, scored at the output size). When
    /// none passes ``frameCriteria``, the search keeps looking — between those, then past the window up to halfway to
    /// the neighbouring requested times (the file's ends for a single time), at most 12 more frames — and stops at
    /// the first that passes; failing that, the best-scoring frame seen wins, so a black frame is returned only when
    /// nothing else was seen. `actualTime` says which frame won, ``Thumbnail/candidates`` what was considered.
    public var selectsRepresentativeFrames = false
    /// What a representative frame must be (not black, white, flat, a fade or blurry); when no frame in the window
    /// passes, the search goes on further (see ``selectsRepresentativeFrames``).
    public var frameCriteria = FrameCriteria()
    /// The span (centred on each requested time) searched for a representative frame. Default 2 s.
    public var representativeWindow = RepresentativeWindow.span(MediaTime(value: 2, timescale: 1))

    /// How wide the search for a representative frame is.
    public enum RepresentativeWindow: Sendable, Equatable, CustomStringConvertible {
        /// This long, centred on the time.
        case span(MediaTime)
        /// This fraction of the file's duration (2 s when unknown): `thumb` without `--at` looks at 10–30 %.
        case fractionOfDuration(Double)
        /// 0.9 of the distance to the nearest neighbouring requested time (2 s for a single time), centred: windows
        /// never overlap, so a batch's thumbnails stay in time order.
        case betweenNeighbours
        /// The range holding the time (a scene), which is also as far as the search may go; ``betweenNeighbours``
        /// for a time in none.
        case within([MediaTimeRange])

        /// The window's width for a time whose nearest requested neighbour is `gapToNearest` away (nil: none), in a
        /// file lasting `duration`.
        func width(duration: MediaTime, gapToNearest: MediaTime?) -> MediaTime {
            let fallback = MediaTime(value: 2, timescale: 1)
            switch self {
            case .span(let w): return w
            case .fractionOfDuration(let f):
                return duration.isNumeric
                    ? MediaTime(seconds: duration.seconds * f, preferredTimescale: 1000) : fallback
            case .betweenNeighbours, .within: return gapToNearest?.multiplied(byRatio: 9, divisor: 10) ?? fallback
            }
        }

        /// The window as text (used in cache keys).
        public var description: String {
            switch self {
            case .span(let t): return "span:\(t.description)"
            case .fractionOfDuration(let f): return "fraction:\(f)"
            case .betweenNeighbours: return "neighbours"
            case .within(let ranges):
                return "within:"
                    + ranges.map { "\($0.start.description)+\($0.duration.description)" }.joined(separator: ",")
            }
        }
    }

    /// The default tolerance before the requested time: 1 s. AVAssetImageGenerator's default (+∞) can return a
    /// frame a whole GOP (often 2–10 s) early, which surprises users who asked for a time; 1 s keeps results close
    /// while still letting a keyframe within that second serve without decoding the GOP.
    public static let defaultToleranceBefore = MediaTime(value: 1, timescale: 1)

    /// A generator for the file or URL at `path` with the default settings (320 px, 1 s tolerance before, upright).
    public init(path: String) { self.path = path }

    /// Zero/zero tolerances: frame-exact.
    public mutating func setExact() {
        requestedTimeToleranceBefore = .zero
        requestedTimeToleranceAfter = .zero
    }

    /// Infinite tolerances: the nearest keyframe at or before the time (fastest).
    public mutating func setFastest() {
        requestedTimeToleranceBefore = .positiveInfinity
        requestedTimeToleranceAfter = .positiveInfinity
    }

    var isExact: Bool { requestedTimeToleranceBefore == .zero && requestedTimeToleranceAfter == .zero }

    /// One thumbnail. Throws ``MediaError`` naming the file on failure.
    public func image(at time: TimeExpression) throws -> Thumbnail {
        let results = try generate(at: [time])
        return try results[0].result.get()
    }

    /// Thumbnails for many times from one open, in the order of `times`. Per-time failures are in the results;
    /// a failure to open the file throws.
    public func generate(at times: [TimeExpression]) throws -> [ThumbnailResult] {
        var out: [ThumbnailResult] = []
        try run(times, isCancelled: { false }) { out.append($0) }
        return out.sorted { $0.index < $1.index }
    }

    /// Thumbnails for many times as an async sequence, delivered in ascending time order (each carries the index
    /// of its time in `times`). Decoding runs on a thread of its own, a bounded step ahead of the consumer
    /// (``ThumbnailResults``); leaving the loop or cancelling the consuming task stops it at the next frame.
    public func images(at times: [TimeExpression]) -> ThumbnailResults {
        ThumbnailResults(generator: self, times: times)
    }

    /// Tests' view of ``images(at:)``'s decoding thread: called with the number of results handed over so far after
    /// each one, and with `finished` true when the thread ends (done, failed or cancelled).
    var streamProbe: (@Sendable (_ delivered: Int, _ finished: Bool) -> Void)? = nil

    /// The timeline of an opened file, as a batch plan sees it.
    public struct Timeline: Sendable {
        /// The first presentation time.
        public var start: MediaTime
        /// Invalid when unknown.
        public var duration: MediaTime
        /// A single picture: no timeline.
        public var isStill: Bool
        /// Codec and display size, for headers of contact sheets.
        public var codec: String
        /// Display width (SAR and rotation applied).
        public var displayWidth: Int
        /// Display height (rotation applied).
        public var displayHeight: Int
        /// The rest of a contact sheet's header, as `info` reports it, from the open that made the thumbnails (nil and
        /// empty for stills read without FFmpeg).
        public var video: VideoInfo? = nil
        /// The audio streams, as `info` reports them.
        public var audio: [AudioInfo] = []
        /// The file's bit rate, as `info` reports it.
        public var bitRate: Int? = nil
    }

    /// Opens the file once, asks `plan` which times to take given its timeline, and generates them.
    /// `plan` returning nil or throwing fails the file. Results are in request order.
    public func generate(
        planning plan: (Timeline) throws -> [TimeExpression],
        isCancelled: @escaping @Sendable () -> Bool = { false }
    ) throws -> (Timeline, [ThumbnailResult]) {
        var out: [ThumbnailResult] = []
        var timeline: Timeline? = nil
        try withoutActuallyEscaping(plan) { plan in
            try run(nil, plan: { t in timeline = t; return try plan(t) }, isCancelled: isCancelled) { out.append($0) }
        }
        return (timeline!, out.sorted { $0.index < $1.index })
    }
}
