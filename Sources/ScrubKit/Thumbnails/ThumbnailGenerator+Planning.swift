import FFmpegBridge
import Foundation
import MediaTime

/// Planning: which decoder reads the file (a still decoder or FFmpeg), where each time falls on the timeline, in
/// what order the times are served, with which threading, shrink-on-load and how many decoders.
extension ThumbnailGenerator {
    /// The engine: open once, plan the decode (threads, shrink-on-load), then serve the times in ascending order.
    func run(_ fixedTimes: [TimeExpression]?, plan: ((Timeline) throws -> [TimeExpression])?,
                     isCancelled: @escaping @Sendable () -> Bool, deliver: (ThumbnailResult) -> Void) throws {
        // Stills a registered decoder reads (StillDecoders: JPEG, WebP, HEIF/AVIF), decoded at the output size when
        // it accepts the file; any time names the picture. (The file's head is read once for all of them; a file
        // that cannot be read gets FFmpeg's path and its errors.)
        let head = MediaOpener.checkReadable(path) == nil ? MediaOpener.head(path) : nil
        if let still = try MediaOpener.still(path, head: head, request: stillRequest) {
            let times = try fixedTimes ?? plan!(still.timeline)
            for (i, t) in times.enumerated() {
                deliver(ThumbnailResult(index: i, request: t, result: .success(still.thumbnail)))
            }
            return
        }
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let keyframesOnly = requestedTimeToleranceBefore.isPositiveInfinity
        // One picture: it is looked for on the other core while the file is probed (EarlyFrame).
        let early = allowsParallelDecoding && !selectsRepresentativeFrames && fixedTimes?.count == 1
            ? EarlyFrame.start(self, at: fixedTimes![0], cores: cores, head: head) : nil
        defer { early?.cancel() }  // (whatever happens here, the other core stops at its next frame)
        let source = try VideoSource(
            path: path, pixelLimit: pixelLimit, allowsCoverArt: true, head: head,
            onePicture: !selectsRepresentativeFrames && fixedTimes?.count == 1)
        let displaySize = VideoInfo.displaySize(
            width: source.stream.width, height: source.stream.height,
            sar: source.stream.sampleAspectRatio, rotation: source.stream.orientation.rotation)
        // A plan (`--count`, `--every`) needs a length: for a stream that does not say (raw H.264), count its frames.
        let duration = plan == nil ? source.duration : source.lengthForPlanning
        let timeline = Timeline(
            start: source.start, duration: duration, isStill: source.isStill,
            codec: source.stream.codecName, displayWidth: displaySize.0, displayHeight: displaySize.1,
            video: MediaInspector.describe(source.stream, isStill: source.isStill),
            audio: MediaInspector.audio(source.facts.streams),
            bitRate: source.isStill ? nil : source.facts.bitRate)
        let times = try fixedTimes ?? plan!(timeline)
        let facts = source.stream
        // Output size before rotation, from the display size (SAR applied; the orientation of a still is only
        // known after decoding, so its lowres choice uses the larger side to stay safe).
        let display = VideoInfo.displaySize(
            width: facts.width, height: facts.height, sar: facts.sampleAspectRatio, rotation: 0)
        let lowres =
            source.isStill && allowsShrinkOnLoad
            ? ThumbnailGenerator.lowresFactor(
                width: facts.width, height: facts.height,
                display: display, maximumSize: maximumSize,
                maxLowres: Decoder.maxLowres(demuxer: source.demuxer, streamIndex: facts.index)) : 0
        let bigFrames = ThumbnailGenerator.hasBigFrames(facts)

        // Resolve, then serve in ascending time order.
        var resolved: [(Int, TimeExpression, Result<MediaTime, MediaError>)] = []
        for (i, t) in times.enumerated() {
            do { resolved.append((i, t, .success(try source.resolve(t)))) }
            catch let e as MediaError { resolved.append((i, t, .failure(e))) }
        }
        for case let (i, t, .failure(e)) in resolved {
            deliver(ThumbnailResult(index: i, request: t, result: .failure(e)))
        }
        let ordered = resolved.compactMap { r -> Request? in
            if case .success(let m) = r.2 { return Request(index: r.0, expression: r.1, time: m) } else { return nil }
        }.sorted { $0.time < $1.time || ($0.time == $1.time && $0.index < $1.index) }

        // Several exact times on a multi-core machine: two decoders on two halves of the timeline, each on its own
        // core, scale better than frame threads (which stall at every seek). Otherwise one decoder: slice threads
        // for keyframes only, stills and huge frames (latency, memory: no extra frames held); frame threads wherever
        // a time may need decoding forward from a keyframe, a single one included (H.264 from x264 has one slice per
        // picture, so slice threads leave the second core idle: an exact frame 57 pictures into a 1080p GOP took
        // 0.38 s with slice threads, 0.28 s with frame threads — tools/bench-seek).
        if allowsParallelDecoding && cores >= 2 && !keyframesOnly && !bigFrames && !source.isStill
            && ordered.count >= 4,
            let halves = ThumbnailGenerator.split(ordered, at: source)
        {
            try serveInParallel(halves.0, halves.1, source: source, isCancelled: isCancelled, deliver: deliver)
            return
        }
        let threading = self.threading(for: source, cores: cores)
        if lowres > 0 {
            // Shrink-on-load is refused by some decoders for some pictures (FFmpeg: lossless JPEG, "Operation not
            // permitted"): then the picture is decoded at full size, from a fresh open (image2 cannot rewind).
            var held: [ThumbnailResult] = []
            try serve(ordered, source: source, threading: threading, lowres: lowres, isCancelled: isCancelled) {
                held.append($0)
            }
            if held.contains(where: { if case .failure = $0.result { return true } else { return false } }) {
                let fresh = try VideoSource(
                    reopening: path, facts: source.facts, pixelLimit: pixelLimit, allowsCoverArt: true)
                try serve(
                    ordered, source: fresh, threading: threading, lowres: 0, isCancelled: isCancelled, deliver: deliver)
            } else {
                held.forEach(deliver)
            }
            return
        }
        try serve(
            ordered, source: source, threading: threading, lowres: lowres, early: early, isCancelled: isCancelled,
            deliver: deliver)
    }

    /// 4K and up: no frame threads (each thread holds frames), and no second decoder beside the first.
    static func hasBigFrames(_ stream: StreamFacts) -> Bool { stream.width * stream.height >= 3840 * 2160 }

    /// The threading of the one decoder that serves `source`: slice threads for keyframes only, stills and huge
    /// frames (latency, memory: no extra frames held) — representative frames are mostly keyframes, one decoded per
    /// seek, like keyframes only; frame threads wherever a time may need decoding forward from a keyframe.
    func threading(for source: VideoSource, cores: Int) -> DecoderThreading {
        requestedTimeToleranceBefore.isPositiveInfinity || ThumbnailGenerator.hasBigFrames(source.stream)
            || source.isStill
            || selectsRepresentativeFrames ? .slice(cores) : .frame(cores)
    }

    /// The settings a still decoder needs.
    var stillRequest: StillRequest {
        StillRequest(
            maximumSize: maximumSize, allowsUpscaling: allowsUpscaling,
            appliesOrientation: appliesPreferredTrackTransform,
            allowsShrinkOnLoad: allowsShrinkOnLoad, pixelLimit: pixelLimit)
    }

    /// One requested time, resolved onto the timeline.
    struct Request: Sendable {
        var index: Int
        var expression: TimeExpression
        var time: MediaTime
    }

    /// JPEG shrink-on-load: the largest `lowres` (≤ `maxLowres`) whose decoded picture still covers the output
    /// in both directions, whichever way the picture turns out to be rotated.
    static func lowresFactor(
        width: Int, height: Int, display: (Int, Int), maximumSize: MaximumSize, maxLowres: Int
    ) -> Int {
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
            if (width + (1 << next) - 1) >> next >= covering.0 && (height + (1 << next) - 1) >> next >= covering.1 {
                k = next
            } else {
                break
            }
        }
        return k
    }
}
