import FFmpegBridge
import Foundation
import Locking
import MediaTime

/// The player's picture chain: one decoder on a thread of its own (a ``LatestRequestWorker``: the newest seek wins),
/// reading the picture stream's packets from the ``PlayerReader`` (``QueuedStream``), with the same exact, keyframe
/// and tolerance policies as thumbnails (``FrameExtractor``), into a small bounded queue of frames already scaled to
/// the display size. Seeks land from the preview cache when it has their picture.
final class VideoChain: Sendable {
    /// A seek as the chain's thread takes it.
    struct SeekRequest: Sendable {
        var time: MediaTime
        var before: MediaTime
        var after: MediaTime
        var done: @Sendable (MediaTime?) -> Void
        /// The picture came from the preview cache and is queued: only position the decoder there (for playing on),
        /// and only once no newer seek follows for a moment.
        var positionOnly = false
        /// The frames queue's generation when it was asked: a frame decoded for an older one is never queued.
        var generation = 0
    }

    /// What a preview picture depends on: the seek and the picture size.
    struct PreviewKey: Hashable, Sendable {
        var time: MediaTime
        var before: MediaTime
        var after: MediaTime
        var width: Int
        var height: Int
    }

    struct Shared {
        var frames: [VideoFrame] = []
        var outputWidth = 0
        var outputHeight = 0
        var endOfStream = false
        var shown = 0
        var dropped = 0
        /// Bumped by each seek so a frame decoded for an older position is never queued.
        var generation = 0
        /// The seek not yet landed (its `done` is called with nil when a newer one replaces it).
        var unlanded: (@Sendable (MediaTime?) -> Void)? = nil
        var previewsDecoded = 0
        var previewsFromCache = 0
    }

    /// Frames decoded ahead of display. Small: memory stays bounded by the display size.
    static let queueCapacity = 6

    private let path: String
    private let shared = Locked(Shared())
    private let worker: LatestRequestWorker<SeekRequest>
    /// The pictures seeks landed on, by seek and size: scrubbing back over a place repaints from here at once,
    /// without decoding (the decoder is positioned there only when the scrubbing pauses).
    let previews: MemoryCache<PreviewKey, VideoFrame>

    /// A chain decoding `source`'s picture stream from `packets`, starting at the beginning, timed on `clock` (the
    /// player's).
    init(source: VideoSource, packets: QueuedStream, previewBudget: Int, clock: MediaClock) {
        let path = source.path
        self.path = path
        let previews = MemoryCache<PreviewKey, VideoFrame>(budget: previewBudget)
        self.previews = previews
        let shared = self.shared
        nonisolated(unsafe) let unsafeSource = source   // (confined to the chain's thread from here on)
        worker = LatestRequestWorker(name: "scrubkit.video") { inbox in
            if let picture = VideoChain.stillPictures(of: unsafeSource) {
                VideoChain.runStill(picture, start: unsafeSource.start, shared: shared, inbox: inbox)
            } else {
                VideoChain.run(
                    source: unsafeSource, packets: packets, shared: shared, previews: previews, path: path,
                    inbox: inbox, clock: clock)
            }
        }
        worker.submit(SeekRequest(time: source.start, before: .zero, after: .zero, done: { _ in }))
    }

    /// Positions at `time` within the tolerances (from the preview cache when it has the picture); a newer seek
    /// supersedes this one, whose `done` then gets nil.
    func seek(
        to time: MediaTime, toleranceBefore: MediaTime, toleranceAfter: MediaTime,
        _ done: @escaping @Sendable (MediaTime?) -> Void
    ) {
        let size = shared.withLock { ($0.outputWidth, $0.outputHeight) }
        let hit = previews.value(
            for: PreviewKey(time: time, before: toleranceBefore, after: toleranceAfter, width: size.0, height: size.1))
        let (superseded, generation) = shared.withLock { s -> ((@Sendable (MediaTime?) -> Void)?, Int) in
            let old = s.unlanded
            s.generation += 1
            s.frames.removeAll()
            s.endOfStream = false
            if let hit {
                s.frames = [hit]
                s.previewsFromCache += 1
                s.unlanded = nil
            } else {
                s.unlanded = done
            }
            return (old, s.generation)
        }
        superseded?(nil)
        if let hit {
            worker.submit(
                SeekRequest(
                    time: hit.time, before: .zero, after: .zero, done: { _ in }, positionOnly: true,
                    generation: generation))
            done(hit.time)
        } else {
            worker.submit(
                SeekRequest(
                    time: time, before: toleranceBefore, after: toleranceAfter, done: done, generation: generation))
        }
    }

    /// The newest decoded frame at or before `time`; older ones are dropped and counted.
    func takeFrame(atOrBefore time: MediaTime) -> VideoFrame? {
        let f = shared.withLock { s -> VideoFrame? in
            guard let i = s.frames.lastIndex(where: { $0.time <= time }) else { return nil }
            let frame = s.frames[i]
            s.dropped += i          // older frames never shown: late
            s.shown += 1
            s.frames.removeFirst(i + 1)
            return frame
        }
        if f != nil { worker.wake() }   // (room to decode into)
        return f
    }

    /// The size frames are scaled to from now on (the display area); 0×0 stops decoding pictures (seeks are still
    /// served: they say where playback is), and the reader then keeps no picture packets for the chain between them.
    func setOutputSize(width: Int, height: Int) {
        shared.withLock { s in
            s.outputWidth = max(0, width)
            s.outputHeight = max(0, height)
        }
        worker.wake()
    }

    /// Whether decoded frames wait to be shown.
    var hasFramesQueued: Bool { shared.withLock { !$0.frames.isEmpty } }

    /// Frames handed out and frames dropped so far.
    var frameStatistics: (shown: Int, dropped: Int) { shared.withLock { ($0.shown, $0.dropped) } }

    /// Seeks whose picture was decoded, and seeks served from the preview cache.
    var previewStatistics: (decoded: Int, fromCache: Int) {
        shared.withLock { ($0.previewsDecoded, $0.previewsFromCache) }
    }

    /// Stops the thread for good (it frees its FFmpeg state on its way out).
    func close() { worker.close() }

    // MARK: - The chain's thread

    private static func run(
        source: VideoSource, packets: QueuedStream, shared: Locked<Shared>,
        previews: MemoryCache<PreviewKey, VideoFrame>,
        path: String, inbox: LatestRequestWorker<SeekRequest>.Inbox, clock: MediaClock
    ) {
        guard
            let extractor = try? FrameExtractor(
                source: source,
                plan: DecodePlan(threading: .frame(min(2, ProcessInfo.processInfo.activeProcessorCount))),
                packets: packets)
        else { return }
        let facts = source.stream
        let scaler = Scaler()
        /// The found frame as a picture for a `size` display area, queued unless a newer seek came meanwhile.
        func queue(_ found: FrameExtractor.Found, size: (Int, Int), generation: Int) throws -> VideoFrame? {
            guard size.0 > 0 && size.1 > 0 else { return nil }
            // Exactly the size asked for: the caller's layout owns the geometry (no second fit with other rounding).
            let (img, _) = try FramePicture.render(
                found.frame, facts: facts, scaler: scaler, maximumSize: .box(width: size.0, height: size.1),
                allowsUpscaling: true, appliesTransform: true, exactSize: size, path: path)
            let frame = VideoFrame(time: found.time, image: img)
            shared.withLock { s in if s.generation == generation { s.frames.append(frame) } }
            return frame
        }
        // (The stream is in a gap: no packet near where the file is read — the picture ended before the sound, or
        // starts later. Asked again after an idle wait, while the sound's chain takes the reader on.)
        var inGap = false
        // Whether the reader fills the picture's queue ahead: only while pictures are decoded (set by this thread
        // alone; a still's one packet needs no read-ahead).
        var played = false
        func setPlayed(_ on: Bool) {
            guard on != played else { return }
            packets.setPlayed(on)
            played = on
            // (Not played, the queue keeps none of the packets after the decoder's place: it must seek again.)
            if !on { extractor.forgetPosition() }
        }
        while true {
            let (generation, size, room, ended) = shared.withLock { s in
                (
                    s.generation, (s.outputWidth, s.outputHeight), s.frames.count < VideoChain.queueCapacity,
                    s.endOfStream
                )
            }
            let showing = size.0 > 0 && size.1 > 0 && !source.isStill
            if showing && !played && extractor.lastReturned.isNumeric {
                // (Pictures again after none: the packets between were not kept. Decode again from the last one.)
                setPlayed(true)
                _ = try? extractor.frame(at: extractor.lastReturned, toleranceBefore: .zero, toleranceAfter: .zero)
            }
            setPlayed(showing)
            let idle = !(room && !ended && size.0 > 0 && size.1 > 0) || inGap
            switch inbox.take(waitingAtMost: idle ? 0.1 : 0) {
            case .closed: return
            case .request(var r, _):
                // A picture from the preview cache is on screen: the decoder is positioned after it (for playing on)
                // only once the scrubbing pauses — a newer seek within 150 ms makes that work unnecessary.
                let deadline = clock.now() + 0.15
                pausing: while r.positionOnly, case let left = deadline - clock.now(), left > 0 {
                    switch inbox.take(waitingAtMost: left) {
                    case .request(let newer, _): r = newer
                    case .closed: return
                    case .idle: continue pausing
                    }
                }
                inGap = false
                // (A seek takes its packets as a played stream, pictures decoded or not: none is dropped under it.)
                let wasPlayed = played
                setPlayed(!source.isStill)
                serve(r, extractor: extractor, queue: queue, shared: shared, previews: previews, inbox: inbox)
                setPlayed(wasPlayed)
            case .idle:
                if inGap { inGap = false; continue }
                guard !idle else { continue }
                do {
                    if let found = try extractor.next() {
                        _ = try queue(found, size: size, generation: generation)
                    } else {
                        shared.withLock { $0.endOfStream = true }
                    }
                } catch is PacketGap {
                    inGap = true
                } catch {
                    shared.withLock { $0.endOfStream = true }
                }
            }
        }
    }

    /// Decodes the picture a seek asks for, queues it and keeps it as a preview; tells the seek it landed.
    private static func serve(_ r: SeekRequest, extractor: FrameExtractor,
                              queue: (FrameExtractor.Found, (Int, Int), Int) throws -> VideoFrame?,
                              shared: Locked<Shared>, previews: MemoryCache<PreviewKey, VideoFrame>,
                              inbox: LatestRequestWorker<SeekRequest>.Inbox) {
        if r.positionOnly {
            // (A cached picture's seek came right after another: position there once nothing newer follows.)
            if shared.withLock({ $0.generation == r.generation }) {
                _ = try? extractor.frame(at: r.time, toleranceBefore: .zero, toleranceAfter: .zero)
            }
            return
        }
        let size = shared.withLock { ($0.outputWidth, $0.outputHeight) }
        do {
            let found = try extractor.frame(at: r.time, toleranceBefore: r.before, toleranceAfter: r.after)
            if let shown = try queue(found, size, r.generation) {
                previews.insert(
                    shown,
                    for: PreviewKey(time: r.time, before: r.before, after: r.after, width: size.0, height: size.1),
                    cost: shown.image.pixels.count)
            }
            landed(r, at: found.time, shared: shared)
            // After a keyframe-only seek the decoder was drained: position it for playing on — unless a newer seek is
            // already waiting (scrubbing), which would make this work wasted.
            if !extractor.canContinue && !inbox.hasNewer {
                _ = try? extractor.frame(at: found.time, toleranceBefore: .zero, toleranceAfter: .zero)
            }
        } catch {
            shared.withLock { $0.endOfStream = true }
            landed(r, at: r.time, shared: shared)
        }
    }

    /// The seek's picture is queued: it has landed (the player may paint now), unless a newer seek replaced it.
    static func landed(_ r: SeekRequest, at time: MediaTime, shared: Locked<Shared>) {
        let current = shared.withLock { s -> Bool in
            guard s.generation == r.generation else { return false }
            s.previewsDecoded += 1
            s.unlanded = nil
            return true
        }
        if current { r.done(time) }
    }
}
