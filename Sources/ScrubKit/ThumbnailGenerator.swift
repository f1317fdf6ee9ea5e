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
    /// is on; turn it off for bit-exact reference renders.
    public var allowsFastDecoding = true
    /// Video, several exact times: decode two halves of the timeline at once with two decoders (on by default on
    /// multi-core machines). Turn it off when files are already processed in parallel (batch jobs).
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
    /// Candidates are the keyframes found across the window (one frame decoded each, scored at the output size); the
    /// frame at the time itself is added when none of them shows anything. `actualTime` says which frame won.
    public var selectsRepresentativeFrames = false
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

        /// The window's width for a time whose nearest requested neighbour is `gapToNearest` away (nil: none), in a
        /// file lasting `duration`.
        func width(duration: MediaTime, gapToNearest: MediaTime?) -> MediaTime {
            let fallback = MediaTime(value: 2, timescale: 1)
            switch self {
            case .span(let w): return w
            case .fractionOfDuration(let f):
                return duration.isNumeric ? MediaTime(seconds: duration.seconds * f, preferredTimescale: 1000) : fallback
            case .betweenNeighbours: return gapToNearest?.multiplied(byRatio: 9, divisor: 10) ?? fallback
            }
        }

        /// The window as text (used in cache keys).
        public var description: String {
            switch self {
            case .span(let t): return "span:\(t.description)"
            case .fractionOfDuration(let f): return "fraction:\(f)"
            case .betweenNeighbours: return "neighbours"
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
    /// of its time in `times`). Decoding runs on one task of its own; cancelling the consumer stops it promptly.
    public func images(at times: [TimeExpression]) -> AsyncThrowingStream<ThumbnailResult, Error> {
        AsyncThrowingStream { continuation in
            let task = Task.detached { [self] in
                var delivered = 0
                defer { self.streamProbe?(delivered, true) }
                do {
                    try self.run(times, isCancelled: { Task.isCancelled }) {
                        continuation.yield($0)
                        delivered += 1
                        self.streamProbe?(delivered, false)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Tests' view of ``images(at:)``'s decoding task: called with the number of results handed over so far after each
    /// one, and with `finished` true when the task ends (done, failed or cancelled).
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
    public func generate(planning plan: (Timeline) throws -> [TimeExpression],
                         isCancelled: @escaping () -> Bool = { false }) throws -> (Timeline, [ThumbnailResult]) {
        var out: [ThumbnailResult] = []
        var timeline: Timeline? = nil
        try withoutActuallyEscaping(plan) { plan in
            try run(nil, plan: { t in timeline = t; return try plan(t) }, isCancelled: isCancelled) { out.append($0) }
        }
        return (timeline!, out.sorted { $0.index < $1.index })
    }

    private func run(_ times: [TimeExpression], isCancelled: @escaping () -> Bool, deliver: (ThumbnailResult) -> Void) throws {
        guard let cache, let identity = SourceIdentity(path: path) else {
            return try run(times, plan: nil, isCancelled: isCancelled, deliver: deliver)
        }
        // Hits are delivered at once; the misses are generated together (one open) and kept.
        var misses: [(index: Int, time: TimeExpression)] = []
        for (i, t) in times.enumerated() {
            if let hit = cache.thumbnail(for: cacheKey(for: t, identity: identity)) {
                deliver(ThumbnailResult(index: i, request: t, result: .success(hit)))
            } else {
                misses.append((i, t))
            }
        }
        if misses.isEmpty { return }
        try run(misses.map(\.time), plan: nil, isCancelled: isCancelled) { r in
            let original = misses[r.index]
            if case .success(let t) = r.result { cache.store(t, for: cacheKey(for: original.time, identity: identity)) }
            deliver(ThumbnailResult(index: original.index, request: original.time, result: r.result))
        }
    }

    /// The cache key of the thumbnail at `time` of the file whose identity is `identity`: the identity and every
    /// setting that changes the pixels or the frame chosen (size, upscaling, transform, tolerances, tone mapping,
    /// shrink-on-load, fast decoding, approximate frames, representative frames and their window). Settings that only
    /// change speed (parallel decoding, the pixel limit) are left out.
    public func cacheKey(for time: TimeExpression, identity: SourceIdentity) -> String {
        (["v1", identity.description, time.description] + settingsKey).joined(separator: "|")
    }

    /// The settings that change the pixels or the frame chosen, in a fixed order: the one builder behind
    /// ``cacheKey(for:identity:)`` and the batch's resume and cache signature (a new such setting goes here only).
    var settingsKey: [String] {
        [maximumSize.key, allowsUpscaling ? "up" : "-",
         appliesPreferredTrackTransform ? "rot" : "norot", requestedTimeToleranceBefore.description,
         requestedTimeToleranceAfter.description, toneMapsHDR ? "tm" : "notm", allowsShrinkOnLoad ? "sol" : "-",
         allowsFastDecoding ? "fd" : "-", acceptsApproximateFrames ? "approx" : "-",
         selectsRepresentativeFrames ? "best:\(representativeWindow.description)" : "-"]
    }

    /// The engine: open once, plan the decode (threads, shrink-on-load), then serve the times in ascending order.
    private func run(_ fixedTimes: [TimeExpression]?, plan: ((Timeline) throws -> [TimeExpression])?,
                     isCancelled: @escaping () -> Bool, deliver: (ThumbnailResult) -> Void) throws {
        // Stills a registered decoder reads (StillDecoders: JPEG, WebP, HEIF/AVIF), decoded at the output size when
        // it accepts the file; any time names the picture. (The file's head is read once for all of them; a file
        // that cannot be read gets FFmpeg's path and its errors.)
        if MediaOpener.checkReadable(path) == nil, let head = MediaOpener.head(path),
           let still = try StillDecoders.thumbnail(path: path, head: head, request: stillRequest) {
            let times = try fixedTimes ?? plan!(still.timeline)
            for (i, t) in times.enumerated() { deliver(ThumbnailResult(index: i, request: t, result: .success(still.thumbnail))) }
            return
        }
        let source = try VideoSource(path: path, pixelLimit: pixelLimit, allowsCoverArt: true)
        let displaySize = VideoInfo.displaySize(width: source.stream.width, height: source.stream.height,
                                                sar: source.stream.sampleAspectRatio, rotation: source.stream.orientation.rotation)
        // A plan (`--count`, `--every`) needs a length: for a stream that does not say (raw H.264), count its frames.
        let duration = plan == nil ? source.duration : source.lengthForPlanning
        let timeline = Timeline(start: source.start, duration: duration, isStill: source.isStill,
                                codec: source.stream.codecName, displayWidth: displaySize.0, displayHeight: displaySize.1,
                                video: MediaInspector.describe(source.stream, isStill: source.isStill),
                                audio: MediaInspector.audio(source.demuxer.streams),
                                bitRate: source.isStill ? nil : MediaInspector.bitRate(source.demuxer, duration: source.duration))
        let times = try fixedTimes ?? plan!(timeline)
        let facts = source.stream
        // Output size before rotation, from the display size (SAR applied; the orientation of a still is only
        // known after decoding, so its lowres choice uses the larger side to stay safe).
        let display = VideoInfo.displaySize(width: facts.width, height: facts.height, sar: facts.sampleAspectRatio, rotation: 0)
        let lowres = source.isStill && allowsShrinkOnLoad ? ThumbnailGenerator.lowresFactor(width: facts.width, height: facts.height,
                                                                     display: display, maximumSize: maximumSize,
                                                                     maxLowres: Decoder.maxLowres(demuxer: source.demuxer, streamIndex: facts.index)) : 0
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let bigFrames = facts.width * facts.height >= 3840 * 2160   // 4K and up: no frame threads (each holds frames)
        let keyframesOnly = requestedTimeToleranceBefore.isPositiveInfinity

        // Resolve, then serve in ascending time order.
        var resolved: [(Int, TimeExpression, Result<MediaTime, MediaError>)] = []
        for (i, t) in times.enumerated() {
            do { resolved.append((i, t, .success(try source.resolve(t)))) }
            catch let e as MediaError { resolved.append((i, t, .failure(e))) }
        }
        for case let (i, t, .failure(e)) in resolved { deliver(ThumbnailResult(index: i, request: t, result: .failure(e))) }
        let ordered = resolved.compactMap { r -> Request? in
            if case .success(let m) = r.2 { return Request(index: r.0, expression: r.1, time: m) } else { return nil }
        }.sorted { $0.time < $1.time || ($0.time == $1.time && $0.index < $1.index) }

        // Several exact times on a multi-core machine: two decoders on two halves of the timeline, each on its own
        // core, scale better than frame threads (which stall at every seek). Otherwise one decoder: slice threads
        // for keyframes only, stills and huge frames (latency, memory: no extra frames held); frame threads wherever
        // a time may need decoding forward from a keyframe, a single one included (H.264 from x264 has one slice per
        // picture, so slice threads leave the second core idle: an exact frame 57 pictures into a 1080p GOP took
        // 0.38 s with slice threads, 0.28 s with frame threads — tools/bench-seek).
        if allowsParallelDecoding && cores >= 2 && !keyframesOnly && !bigFrames && !source.isStill && ordered.count >= 4,
           let halves = ThumbnailGenerator.split(ordered, at: source) {
            try serveInParallel(halves.0, halves.1, source: source, isCancelled: isCancelled, deliver: deliver)
            return
        }
        // (Representative frames are mostly keyframes, one decoded per seek: like keyframes only.)
        let threading: DecoderThreading = (keyframesOnly || bigFrames || source.isStill || selectsRepresentativeFrames)
            ? .slice(cores) : .frame(cores)
        if lowres > 0 {
            // Shrink-on-load is refused by some decoders for some pictures (FFmpeg: lossless JPEG, "Operation not
            // permitted"): then the picture is decoded at full size, from a fresh open (image2 cannot rewind).
            var held: [ThumbnailResult] = []
            try serve(ordered, source: source, threading: threading, lowres: lowres, isCancelled: isCancelled) { held.append($0) }
            if held.contains(where: { if case .failure = $0.result { return true } else { return false } }) {
                let fresh = try VideoSource(path: path, pixelLimit: pixelLimit, allowsCoverArt: true)
                try serve(ordered, source: fresh, threading: threading, lowres: 0, isCancelled: isCancelled, deliver: deliver)
            } else {
                held.forEach(deliver)
            }
            return
        }
        try serve(ordered, source: source, threading: threading, lowres: lowres, isCancelled: isCancelled, deliver: deliver)
    }

    /// The settings a still decoder needs.
    var stillRequest: StillRequest {
        StillRequest(maximumSize: maximumSize, allowsUpscaling: allowsUpscaling, appliesOrientation: appliesPreferredTrackTransform,
                     allowsShrinkOnLoad: allowsShrinkOnLoad, pixelLimit: pixelLimit)
    }

    /// One requested time, resolved onto the timeline.
    struct Request: Sendable {
        var index: Int
        var expression: TimeExpression
        var time: MediaTime
    }

    /// Serves `requests` (ascending) from `source` with one decoder.
    /// `after`: the latest time already served by another decoder (results never go back before it).
    func serve(_ requests: [Request], source: VideoSource, threading: DecoderThreading, lowres: Int, after: MediaTime = .invalid,
               isCancelled: @escaping () -> Bool, deliver: (ThumbnailResult) -> Void) throws {
        let facts = source.stream
        let extractor = try FrameExtractor(source: source, threading: threading, lowres: lowres, pixelLimit: pixelLimit)
        extractor.isCancelled = isCancelled
        extractor.lastReturned = after
        if allowsFastDecoding && !source.isStill {
            let display = VideoInfo.displaySize(width: facts.width, height: facts.height, sar: facts.sampleAspectRatio, rotation: 0)
            let out = maximumSize.fit(width: display.0, height: display.1)
            extractor.decoder.skipsLoopFilter = out.0 > 0 && out.1 > 0 && facts.width >= 4 * out.0 && facts.height >= 4 * out.1
        }
        let scaler = Scaler()
        var cache: (time: MediaTime, thumb: Thumbnail)? = nil
        for (k, r) in requests.enumerated() {
            if isCancelled() { throw MediaError(.cancelled, path: path, "cancelled") }
            do {
                if selectsRepresentativeFrames && !source.isStill {
                    let gaps = [k > 0 ? r.time - requests[k - 1].time : nil, k + 1 < requests.count ? requests[k + 1].time - r.time : nil]
                        .compactMap { $0 }.filter { $0 > .zero }
                    let window = representativeWindow.width(duration: source.duration, gapToNearest: gaps.min())
                    var thumb = try representativeFrame(near: r.time, window: window, source: source, extractor: extractor, scaler: scaler)
                    thumb.requestedTime = r.time
                    deliver(ThumbnailResult(index: r.index, request: r.expression, result: .success(thumb)))
                    continue
                }
                let found = try extractor.frame(at: r.time, toleranceBefore: requestedTimeToleranceBefore,
                                                toleranceAfter: requestedTimeToleranceAfter)
                var thumb: Thumbnail
                if let c = cache, (found.reused || source.isStill) && c.time == found.time {
                    thumb = c.thumb
                } else {
                    thumb = try makeThumbnail(found, scaler: scaler, facts: facts)
                    cache = (found.time, thumb)
                }
                thumb.requestedTime = r.time
                let satisfied = source.isStill || found.containsTime || inWindow(found.time, of: r.time)
                if !satisfied && !acceptsApproximateFrames {
                    throw MediaError.frameNotFound(path, at: r.time, nearest: found.time, exact: isExact)
                }
                thumb.isExact = isExact && !source.isStill && satisfied
                thumb.isApproximate = !satisfied
                deliver(ThumbnailResult(index: r.index, request: r.expression, result: .success(thumb)))
            } catch let e as MediaError {
                if e.kind == .cancelled { throw e }
                deliver(ThumbnailResult(index: r.index, request: r.expression, result: .failure(e)))
            }
        }
    }

    /// Whether a frame at `actual` is inside the tolerance window around `requested`.
    func inWindow(_ actual: MediaTime, of requested: MediaTime) -> Bool {
        (requestedTimeToleranceBefore.isPositiveInfinity || actual >= requested - requestedTimeToleranceBefore) &&
            (requestedTimeToleranceAfter.isPositiveInfinity || actual <= requested + requestedTimeToleranceAfter)
    }

    /// The best-scoring frame around `time` (see ``selectsRepresentativeFrames``). Only the best picture so far is
    /// kept, at the output size.
    func representativeFrame(near time: MediaTime, window: MediaTime, source: VideoSource, extractor: FrameExtractor,
                             scaler: Scaler) throws -> Thumbnail {
        let half = window.multiplied(byRatio: 1, divisor: 2)
        var lo = time - half, hi = time + half
        if lo < source.start { lo = source.start }
        if source.duration.isNumeric, hi > source.start + source.duration { hi = source.start + source.duration }
        if hi < lo { hi = lo }
        var best: (score: FrameScore, thumb: Thumbnail)? = nil
        var seen: Set<MediaTime> = []
        func consider(_ found: FrameExtractor.Found) throws {
            guard seen.insert(found.time).inserted else { return }
            let thumb = try makeThumbnail(found, scaler: scaler, facts: source.stream)
            let score = FrameScore(thumb.image)
            if best == nil || best!.score < score { best = (score, thumb) }
        }
        let steps = 4
        for i in 0...steps {
            let c = lo + (hi - lo).multiplied(byRatio: Int32(i), divisor: Int32(steps))
            guard let found = try? extractor.frame(at: c, toleranceBefore: .positiveInfinity, toleranceAfter: .zero),
                  found.time >= lo, found.time <= hi else { continue }
            try consider(found)
        }
        if best == nil || best!.score.isBlank {
            let found = try extractor.frame(at: time, toleranceBefore: requestedTimeToleranceBefore, toleranceAfter: requestedTimeToleranceAfter)
            // The same rule as for plain frames: outside the window only when the data there is damaged, and then
            // only when approximate frames are accepted (or a keyframe candidate is there to fall back on).
            if found.containsTime || inWindow(found.time, of: time) || acceptsApproximateFrames {
                try consider(found)
            } else if best == nil {
                throw MediaError.frameNotFound(path, at: time, nearest: found.time, exact: isExact)
            }
        }
        var thumb = best!.thumb
        thumb.isExact = false
        thumb.isApproximate = false
        return thumb
    }

    /// Scales straight from the decoder's YUV to the output size in one pass, then rotates the small picture.
    private func makeThumbnail(_ found: FrameExtractor.Found, scaler: Scaler, facts: StreamFacts) throws -> Thumbnail {
        let (image, orientation) = try FramePicture.render(found.frame, facts: facts, scaler: scaler, maximumSize: maximumSize,
                                                           allowsUpscaling: allowsUpscaling, appliesTransform: appliesPreferredTrackTransform,
                                                           toneMapsHDR: toneMapsHDR, path: path)
        return Thumbnail(requestedTime: found.time, actualTime: found.time, image: image, orientation: orientation, isExact: false,
                         isApproximate: false)
    }

    /// JPEG shrink-on-load: the largest `lowres` (≤ `maxLowres`) whose decoded picture still covers the output
    /// in both directions, whichever way the picture turns out to be rotated.
    static func lowresFactor(width: Int, height: Int, display: (Int, Int), maximumSize: MaximumSize, maxLowres: Int) -> Int {
        guard maxLowres > 0, width > 0, height > 0, maximumSize != .unscaled else { return 0 }
        let a = maximumSize.fit(width: display.0, height: display.1)
        let b = maximumSize.fit(width: display.1, height: display.0)
        // The shrunk picture must cover the target in both orientations.
        return shrinkFactor(width: width, height: height, covering: (max(a.0, b.1), max(a.1, b.0)), maximum: maxLowres)
    }

    /// The largest k ≤ min(`maximum`, 3) such that the picture at 1/2^k (sides rounded up, as decoders do) is still
    /// at least `covering` in both directions: shrink-on-load never goes below the output.
    static func shrinkFactor(width: Int, height: Int, covering: (Int, Int), maximum: Int = 3) -> Int {
        var k = 0
        while k < min(maximum, 3) {
            let next = k + 1
            if (width + (1 << next) - 1) >> next >= covering.0 && (height + (1 << next) - 1) >> next >= covering.1 { k = next } else { break }
        }
        return k
    }
}
