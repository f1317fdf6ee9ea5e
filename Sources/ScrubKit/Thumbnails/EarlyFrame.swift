import FFmpegBridge
import Foundation
import MediaTime
import Locking

/// The picture for a single requested time, looked for on another core while the front door still probes the file:
/// FFmpeg's probe decodes the file's first picture just to learn its pixel format (13–17 ms of a 1080p H.264 clip's
/// ~90 ms thumbnail), and nothing else could start before it ends.
///
/// A second open of the same file reads only its header (``MediaOpener/Probing/headerOnly(pixelLimit:)``): MP4/MOV
/// only, whose header holds the sizes, times and index a frame needs. It resolves the time and asks its own
/// ``FrameExtractor`` exactly what the thumbnail's would (the same tolerances and decoding settings). The thumbnail
/// takes that picture when the probed file agrees — the same stream and time base, and the same resolved time (or,
/// in the fastest mode, a keyframe proven to still be the last one at or before it:
/// ``FrameExtractor/adopt(keyframe:at:validThrough:)``) — and otherwise stops it and decodes as it would have.
/// Not for pictures of 4K and up (two decoders would each hold such frames at once) nor for URLs (a second
/// connection).
final class EarlyFrame: Sendable {
    /// What the other core found.
    struct Found: @unchecked Sendable {   // unchecked: the frame is handed over once, after its decoder let it go
        /// The time the header resolved the request to.
        let target: MediaTime
        let frame: Frame
        let time: MediaTime
        /// The extractor's ``FrameExtractor/Found/containsTime``.
        let containsTime: Bool
        /// Fastest mode: the keyframe answers every time from `time` through this one (else invalid).
        let keyframeValidThrough: MediaTime
        let streamIndex: Int
        let timeBase: (num: Int32, den: Int32)
    }

    private struct State {
        var target: MediaTime? = nil
        var found: Found? = nil
        var cancelled = false
        /// The time is resolved (or the thread gave up before): `target` is what it will be.
        var resolved = false
        /// The thread has finished: `found` is its answer.
        var finished = false
    }
    private let state = Locked(State())

    /// Starts looking for `generator`'s picture at `time` (with its own settings: tolerances, size, pixel limit,
    /// fast decoding) on a thread of its own; nil when the file is not a local MP4/MOV (from its first bytes, `head`)
    /// or there is only one core.
    static func start(
        _ generator: ThumbnailGenerator, at time: TimeExpression, cores: Int, head: [UInt8]?
    ) -> EarlyFrame? {
        guard cores >= 2, !Demuxer.isURL(generator.path), let head, looksLikeMP4(head) else { return nil }
        let early = EarlyFrame()
        NamedThread.start("scrubkit.early") {
            let found = try? early.find(generator, at: time, cores: cores, head: head)
            early.state.withLock { $0.found = found; $0.resolved = true; $0.finished = true }
        }
        return early
    }

    /// The picture for `time` (the probed file's resolution of the request) on `streamIndex`/`timeBase`, if the
    /// other core's answers it; nil otherwise — stopped at once when its time differs and only that time would do.
    func answer(
        for time: MediaTime, streamIndex: Int, timeBase: (num: Int32, den: Int32), keyframesOnly: Bool
    ) -> Found? {
        let target = state.withLock(waitingUntil: \.resolved) { s, _ in s.target }
        if !keyframesOnly, let target, target != time { cancel() }
        guard let found = state.withLock(waitingUntil: \.finished, { s, _ in s.found }),
            found.streamIndex == streamIndex, found.timeBase == timeBase,
            found.target == time || found.keyframeValidThrough.isValid
        else { return nil }
        return found
    }

    /// Stops the other core at its next frame.
    func cancel() { state.withLock { $0.cancelled = true } }

    private var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// ISO base media (`ftyp`) or an old QuickTime file (its first box `moov`, `mdat`, `wide`, `free` or `skip`).
    static func looksLikeMP4(_ head: [UInt8]) -> Bool {
        guard head.count >= 8 else { return false }
        let box = String(decoding: head[4..<8], as: UTF8.self)
        return ["ftyp", "moov", "mdat", "wide", "free", "skip"].contains(box)
    }

    /// The picture for `generator`'s request at `time` from the file's header alone; nil where that is not the fast
    /// way.
    private func find(
        _ generator: ThumbnailGenerator, at request: TimeExpression, cores: Int, head: [UInt8]
    ) throws -> Found? {
        let opened = try MediaOpener.open(generator.path, .headerOnly(pixelLimit: generator.pixelLimit), head: head)
        guard Demuxer.isMP4Family(opened.facts.container) else { return nil }
        let source = try VideoSource(opened, pixelLimit: generator.pixelLimit)
        guard !source.isStill, source.stream.width > 0, !ThumbnailGenerator.hasBigFrames(source.stream) else {
            return nil
        }
        let time = try source.resolve(request)
        state.withLock {
            $0.target = time; $0.resolved = true
        }
        let extractor = try FrameExtractor(
            source: source,
            plan: generator.decodePlan(
                for: source, threading: generator.threading(for: source, cores: cores), lowres: 0))
        extractor.isCancelled = { [weak self] in self?.isCancelled ?? true }
        extractor.upcoming = .positiveInfinity   // (the one request)
        let keyframesOnly = generator.requestedTimeToleranceBefore.isPositiveInfinity
        let picture = try extractor.frame(at: time, toleranceBefore: generator.requestedTimeToleranceBefore,
                                          toleranceAfter: generator.requestedTimeToleranceAfter)
        if isCancelled { return nil }
        let keyframe =
            keyframesOnly && picture.time == extractor.lastKeyframeReturned
            && extractor.lastKeyframeValidThrough.isValid
        let frame = try Frame()
        frame.take(from: picture.frame)
        return Found(target: time, frame: frame, time: picture.time, containsTime: picture.containsTime,
                     keyframeValidThrough: keyframe ? extractor.lastKeyframeValidThrough : .invalid,
                     streamIndex: source.stream.index, timeBase: extractor.decoder.timeBase)
    }
}
