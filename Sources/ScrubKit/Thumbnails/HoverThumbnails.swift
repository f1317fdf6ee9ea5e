import FFmpegBridge
import Foundation
import MediaTime

/// Keyframe thumbnails for a seek bar's hover preview (what mpv users add thumbfast for, and web players' sprite
/// tracks): a second decoder of its own, on its own thread, so whatever plays is never stopped or sought.
///
/// The newest ``request(_:)`` wins: moves made while a picture is decoding are skipped to the last one. Each picture
/// is the keyframe at or before the time (one seek and one decode), and it is kept for every time that keyframe is
/// known to answer — the stretch up to the next keyframe the packet scan saw — so moving along a bar inside one GOP,
/// or back over it, decodes nothing. Kept pictures are bounded by ``memoryLimit`` (least recently used go first).
///
/// ```swift
/// let hover = HoverThumbnails(path: "clip.mp4", maximumSize: .box(width: 256, height: 144))
/// hover.request(MediaTime(seconds: 42, preferredTimescale: 1000))
/// // later, on the UI's own clock:
/// if let shown = hover.newest { draw(shown.thumbnail.image) }   // the latest ready, maybe for an earlier request
/// ```
public final class HoverThumbnails: Sendable {
    /// A finished picture and the time it was asked for.
    public struct Answer: Sendable {
        /// The time asked for.
        public var requested: MediaTime
        /// The keyframe's picture (its `actualTime` at or before `requested`).
        public var thumbnail: Thumbnail
        /// Counts answers: a new number means a new picture to draw.
        public var serial: Int
    }

    /// The file or URL.
    public let path: String
    /// The pictures' size.
    public let maximumSize: MaximumSize
    /// Bytes of kept pictures above which the least recently used are dropped.
    public let memoryLimit: Int

    private struct Entry {
        var thumbnail: Thumbnail
        /// The keyframe answers [thumbnail.actualTime, validThrough].
        var validThrough: MediaTime
        var lastUse: Int
    }
    private struct State {
        var pending: MediaTime? = nil
        var closed = false
        var started = false
        var newest: Answer? = nil
        var entries: [Entry] = []
        var uses = 0
        var serial = 0
        var failure: MediaError? = nil
        var decoded = 0
        /// Counts requests: an answer decoded for an older one is kept but not shown.
        var requests = 0
        /// A picture is being decoded.
        var serving = false
    }
    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Pictures of `path` fitted to `maximumSize`, at most `memoryLimit` bytes of them kept. Nothing is opened until
    /// the first request.
    public init(path: String, maximumSize: MaximumSize, memoryLimit: Int = 24 << 20) {
        self.path = path
        self.maximumSize = maximumSize
        self.memoryLimit = max(0, memoryLimit)
    }

    deinit { close() }

    /// Asks for the picture at `time`. Answered at once when a kept picture covers it, else decoded on the thread
    /// (replacing any earlier request not yet started).
    public func request(_ time: MediaTime) {
        guard time.isNumeric else { return }
        let startThread: Bool = state.withLock { s in
            guard !s.closed, s.failure == nil else { return false }
            s.requests += 1
            if let i = HoverThumbnails.covering(time, in: s.entries) {
                s.uses += 1
                s.entries[i].lastUse = s.uses
                if s.newest?.requested != time || s.newest?.thumbnail.actualTime != s.entries[i].thumbnail.actualTime {
                    s.serial += 1
                    var shown = s.entries[i].thumbnail
                    shown.requestedTime = time
                    s.newest = Answer(requested: time, thumbnail: shown, serial: s.serial)
                }
                s.pending = nil
                return false
            }
            s.pending = time
            defer { s.started = true }
            return !s.started
        }
        if startThread {
            // The thread holds the object weakly (between waits): one dropped without close() still ends it.
            let thread = Thread { [weak self, path, maximumSize] in
                let worker = Worker(path: path, maximumSize: maximumSize)
                while let me = self, me.serveOne(worker) {}
            }
            thread.name = "scrubkit.hover"
            thread.start()
        }
        wake.signal()
    }

    /// The latest finished answer (for the newest request once it is ready; until then the one before).
    public var newest: Answer? { state.withLock { $0.newest } }

    /// Whether a request is waiting for its picture or one is being decoded.
    public var isBusy: Bool { state.withLock { $0.pending != nil || $0.serving } }

    /// Why no picture can come (the file has no video, cannot be opened): set once the thread found out.
    public var failure: MediaError? { state.withLock { $0.failure } }

    /// Pictures decoded so far (a kept picture answering a request decodes nothing).
    public var decodedCount: Int { state.withLock { $0.decoded } }

    /// Stops the thread (after the picture it is decoding) and drops the kept pictures. Safe to call more than once.
    public func close() {
        let wasOpen = state.withLock { s in
            defer { s.closed = true; s.entries.removeAll() }
            return !s.closed
        }
        if wasOpen { wake.signal() }
    }

    /// The kept picture whose stretch covers `time`.
    private static func covering(_ time: MediaTime, in entries: [Entry]) -> Int? {
        entries.firstIndex { time >= $0.thumbnail.actualTime && time <= $0.validThrough }
    }

    // MARK: - The thread

    /// What lives on the thread only: the decoder and its scaler.
    private final class Worker {
        var extractor: FrameExtractor? = nil
        let scaler = Scaler()
        var generator: ThumbnailGenerator
        init(path: String, maximumSize: MaximumSize) {
            generator = ThumbnailGenerator(path: path)
            generator.maximumSize = maximumSize
            generator.setFastest()
        }
    }

    /// Waits (half a second at most) for a request and answers it; false when the thread should end.
    private func serveOne(_ worker: Worker) -> Bool {
        if wake.wait(timeout: .now() + 0.5) == .timedOut { return state.withLock { !$0.closed } }
        guard let (time, serial) = state.withLock({ s -> (MediaTime, Int)? in
            if s.closed { return nil }
            defer { s.serving = s.pending != nil; s.pending = nil }
            return (s.pending ?? .invalid, s.requests)
        }) else { return false }
        guard time.isNumeric else { return true }   // (answered from the kept pictures meanwhile)
        defer { state.withLock { $0.serving = false } }
        do {
            if worker.extractor == nil { worker.extractor = try HoverThumbnails.open(path, maximumSize: maximumSize) }
            guard let extractor = worker.extractor else { return false }
            let found = try extractor.frame(at: time, toleranceBefore: .positiveInfinity, toleranceAfter: .positiveInfinity)
            let thumbnail = try worker.generator.makeThumbnail(found, scaler: worker.scaler, facts: extractor.source.stream)
            store(thumbnail, requested: time, serial: serial, validThrough: HoverThumbnails.stretch(of: found.time, asked: time, extractor))
        } catch {
            let problem = error as? MediaError ?? MediaError(.decodeFailed, path: path, "\(error)")
            // One bad spot (damaged data) fails that request only; a file that cannot be opened fails them all.
            if worker.extractor == nil { state.withLock { $0.failure = problem; $0.pending = nil }; return false }
        }
        return true
    }

    /// How far the keyframe at `keyframe` (found for `asked`) is known to answer: an MP4/MOV index is complete, so
    /// up to just before the next keyframe entry (decode times, never after that keyframe's presentation) or on to
    /// the end after the last; otherwise as far as the packet scan saw.
    private static func stretch(of keyframe: MediaTime, asked: MediaTime, _ extractor: FrameExtractor) -> MediaTime {
        let source = extractor.source, stream = source.stream.index
        if source.facts.container.hasPrefix("mov,"), let own = source.demuxer.indexedKeyframe(streamIndex: stream, atOrBefore: keyframe) {
            guard let next = source.demuxer.indexedKeyframe(streamIndex: stream, after: own) else { return .positiveInfinity }
            let end = next - MediaTime(value: 1, timescale: 1_000_000)
            if end >= asked { return end }
        }
        let proven = extractor.lastKeyframeValidThrough
        return proven.isNumeric || proven.isPositiveInfinity ? MediaTime.maximum(proven, asked) : asked
    }

    /// The decoder for hover pictures: one thread (the player decodes on the others), the loop filter skipped when
    /// the picture shrinks a lot (invisible at a quarter of the size).
    private static func open(_ path: String, maximumSize: MaximumSize) throws -> FrameExtractor {
        let source = try VideoSource(path: path, pixelLimit: MediaInspector.defaultPixelLimit)
        guard !source.isStill else { throw MediaError(.noVideo, path: path, "a still picture: nothing to preview along a timeline") }
        let extractor = try FrameExtractor(source: source, threading: .single, lowres: 0, pixelLimit: MediaInspector.defaultPixelLimit)
        extractor.skipsLoopFilter(shrinkingTo: maximumSize)
        return extractor
    }

    /// Keeps a decoded picture; shows it when no request came after the one it answers (`serial`).
    private func store(_ thumbnail: Thumbnail, requested: MediaTime, serial: Int, validThrough: MediaTime) {
        state.withLock { s in
            s.decoded += 1
            s.uses += 1
            if let i = s.entries.firstIndex(where: { $0.thumbnail.actualTime == thumbnail.actualTime }) {
                s.entries[i].validThrough = MediaTime.maximum(s.entries[i].validThrough, validThrough)
                s.entries[i].lastUse = s.uses
            } else {
                s.entries.append(Entry(thumbnail: thumbnail, validThrough: validThrough, lastUse: s.uses))
            }
            var bytes = s.entries.reduce(0) { $0 + $1.thumbnail.image.pixels.count }
            while bytes > memoryLimit, s.entries.count > 1, let oldest = s.entries.indices.min(by: { s.entries[$0].lastUse < s.entries[$1].lastUse }) {
                bytes -= s.entries[oldest].thumbnail.image.pixels.count
                s.entries.remove(at: oldest)
            }
            guard s.requests == serial else { return }
            s.serial += 1
            var shown = thumbnail
            shown.requestedTime = requested
            s.newest = Answer(requested: requested, thumbnail: shown, serial: s.serial)
        }
    }
}
