import FFmpegBridge
import Foundation
import MediaTime
import Locking

/// Keyframe thumbnails for a seek bar's hover preview (what mpv users add thumbfast for, and web players' sprite
/// tracks): a second decoder of its own, on its own thread, so whatever plays is never stopped or sought.
///
/// The newest ``request(_:)`` wins: moves made while a picture is decoding are skipped to the last one. Each picture
/// is the keyframe at or before the time (one seek and one decode), and it is kept for every time that keyframe is
/// known to answer — the stretch up to the next keyframe the packet scan saw — so moving along a bar inside one
/// GOP, or back over it, decodes nothing. Kept pictures are bounded by ``memoryLimit`` (least recently used go first).
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

    /// A kept picture: its keyframe answers [thumbnail.actualTime, validThrough].
    private struct Entry: Sendable {
        var thumbnail: Thumbnail
        var validThrough: MediaTime
    }
    private struct State {
        var closed = false
        var newest: Answer? = nil
        var serial = 0
        var failure: MediaError? = nil
        var decoded = 0
        /// Counts requests (answered at once or not): an answer decoded for an older one is kept but not shown.
        var requests = 0
        /// The decoding thread, started by the first request a kept picture does not answer.
        var worker: LatestRequestWorker<Request>? = nil
    }
    /// A time to decode, and which request asked for it.
    private struct Request: Sendable {
        var time: MediaTime
        var number: Int
    }
    private let state = Locked(State())
    /// The kept pictures, by keyframe time, least recently used dropped first past ``memoryLimit``.
    private let kept: MemoryCache<MediaTime, Entry>

    /// Pictures of `path` fitted to `maximumSize`, at most `memoryLimit` bytes of them kept. Nothing is opened until
    /// the first request.
    public init(path: String, maximumSize: MaximumSize, memoryLimit: Int = 24 << 20) {
        self.path = path
        self.maximumSize = maximumSize
        self.memoryLimit = max(0, memoryLimit)
        kept = MemoryCache(budget: self.memoryLimit)
    }

    deinit { close() }

    /// Asks for the picture at `time`. Answered at once when a kept picture covers it, else decoded on the thread
    /// (replacing any earlier request not yet started).
    public func request(_ time: MediaTime) {
        guard time.isNumeric else { return }
        state.withLock { s in
            guard !s.closed, s.failure == nil else { return }
            s.requests += 1
            if let (_, entry) = kept.first(where: { time >= $0 && time <= $1.validThrough }) {
                if s.newest?.requested != time || s.newest?.thumbnail.actualTime != entry.thumbnail.actualTime {
                    s.serial += 1
                    var shown = entry.thumbnail
                    shown.requestedTime = time
                    s.newest = Answer(requested: time, thumbnail: shown, serial: s.serial)
                }
                s.worker?.withdraw()   // (an older request still waiting is answered by this one)
                return
            }
            if s.worker == nil {
                // The thread holds this object weakly: one dropped without close() still ends it (deinit closes).
                s.worker = LatestRequestWorker(name: "scrubkit.hover") { [weak self, path, maximumSize] inbox in
                    let worker = Worker(path: path, maximumSize: maximumSize)
                    while case .request(let r, _) = inbox.take(), let me = self, me.serve(r, worker) {}
                }
            }
            s.worker?.submit(Request(time: time, number: s.requests))
        }
    }

    /// The latest finished answer (for the newest request once it is ready; until then the one before).
    public var newest: Answer? { state.withLock { $0.newest } }

    /// Whether a request is waiting for its picture or one is being decoded.
    public var isBusy: Bool { state.withLock { $0.failure == nil && !$0.closed ? $0.worker : nil }?.isBusy ?? false }

    /// Why no picture can come (the file has no video, cannot be opened): set once the thread found out.
    public var failure: MediaError? { state.withLock { $0.failure } }

    /// Pictures decoded so far (a kept picture answering a request decodes nothing).
    public var decodedCount: Int { state.withLock { $0.decoded } }

    /// Stops the thread (after the picture it is decoding) and drops the kept pictures. Safe to call more than once.
    public func close() {
        let worker = state.withLock { s -> LatestRequestWorker<Request>? in
            s.closed = true
            return s.worker
        }
        worker?.close()
        kept.removeAll()
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

    /// Decodes the picture `request` asks for; false when the thread should end (the file cannot be opened).
    private func serve(_ request: Request, _ worker: Worker) -> Bool {
        do {
            if worker.extractor == nil { worker.extractor = try HoverThumbnails.open(path, maximumSize: maximumSize) }
            guard let extractor = worker.extractor else { return false }
            let found = try extractor.frame(
                at: request.time, toleranceBefore: .positiveInfinity, toleranceAfter: .positiveInfinity)
            let thumbnail = try worker.generator.makeThumbnail(
                found, scaler: worker.scaler, facts: extractor.source.stream)
            store(
                thumbnail, for: request,
                validThrough: HoverThumbnails.stretch(of: found.time, asked: request.time, extractor))
        } catch {
            let problem = error as? MediaError ?? MediaError(.decodeFailed, path: path, "\(error)")
            // One bad spot (damaged data) fails that request only; a file that cannot be opened fails them all.
            if worker.extractor == nil {
                let worker = state.withLock { s in s.failure = problem; return s.worker }
                worker?.close()
                return false
            }
        }
        return true
    }

    /// How far the keyframe at `keyframe` (found for `asked`) is known to answer: an MP4/MOV index is complete, so
    /// up to just before the next keyframe entry (decode times, never after that keyframe's presentation) or on to
    /// the end after the last; otherwise as far as the packet scan saw.
    private static func stretch(of keyframe: MediaTime, asked: MediaTime, _ extractor: FrameExtractor) -> MediaTime {
        let source = extractor.source, stream = source.stream.index
        if Demuxer.isMP4Family(source.facts.container),
            let own = source.demuxer.indexedKeyframe(streamIndex: stream, atOrBefore: keyframe)
        {
            guard let next = source.demuxer.indexedKeyframe(streamIndex: stream, after: own) else {
                return .positiveInfinity
            }
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
        guard !source.isStill else {
            throw MediaError(.noVideo, path: path, "a still picture: nothing to preview along a timeline")
        }
        let plan = DecodePlan(
            skipsLoopFilter: DecodePlan.deblockingIsInvisible(stream: source.stream, shrunkTo: maximumSize))
        return try FrameExtractor(source: source, plan: plan)
    }

    /// Keeps a decoded picture; shows it when no request came after the one it answers.
    private func store(_ thumbnail: Thumbnail, for request: Request, validThrough: MediaTime) {
        let key = thumbnail.actualTime
        let through = MediaTime.maximum(kept.value(for: key)?.validThrough ?? validThrough, validThrough)
        kept.insert(Entry(thumbnail: thumbnail, validThrough: through), for: key, cost: thumbnail.image.pixels.count)
        state.withLock { s in
            s.decoded += 1
            guard s.requests == request.number else { return }
            s.serial += 1
            var shown = thumbnail
            shown.requestedTime = request.time
            s.newest = Answer(requested: request.time, thumbnail: shown, serial: s.serial)
        }
    }
}
