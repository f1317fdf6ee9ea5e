import FFmpegBridge
import Foundation
import MediaTime
import Locking

/// A cut between two scenes: the first frame of the new scene, and how different it is from the frame before.
public struct SceneCut: Sendable, Equatable {
    /// The presentation time of the first frame of the new scene.
    public var time: MediaTime
    /// The change, 0–1, on FFmpeg's `scene` scale (`select='gt(scene,0.3)'`).
    public var score: Double
}

/// A stretch of the timeline between cuts.
public struct Scene: Sendable, Equatable {
    /// Where it starts.
    public var start: MediaTime
    /// How long it lasts.
    public var duration: MediaTime
    /// Its middle.
    public var middle: MediaTime { start + duration.multiplied(byRatio: 1, divisor: 2) }
}

/// Finds the cuts of a video from a tiny picture of each frame (64×36 RGB): the mean absolute difference from the
/// frame before (MAFD), scored as FFmpeg's scene filter does — min(MAFD, |MAFD − previous MAFD|) / 100 — so a
/// steady change (a fade, a pan) scores low and a jump high. A cut needs ``threshold`` and twice the recent average
/// score (fast motion raises that average); scenes shorter than ``minimumSceneLength`` are merged into the one before
/// (flash frames). By default the keyframes are looked at first (each decodes alone: cheap) and only the stretches
/// between two keyframes that differ are decoded frame by frame — the cuts land on their exact frames at a fraction
/// of a full decode; a cut away and back between two keyframes that look alike is then missed, which
/// ``isFrameAccurate`` (every frame decoded, as FFmpeg's filter does) is for.
public struct SceneDetector: Sendable {
    /// The score a cut needs, 0–1 (FFmpeg's scale; 0.3 is the usual `select` threshold).
    public var threshold = 0.3
    /// Scenes shorter than this are merged into the one before.
    public var minimumSceneLength = MediaTime(value: 1, timescale: 2)
    /// Decode every frame instead of only the stretches between keyframes that differ.
    public var isFrameAccurate = false
    /// Two keyframes differing by less than this MAFD (0–255, at 64×36) have no cut between them worth looking for.
    public var keyframeDifference = 12.0

    /// A detector with the defaults.
    public init() {}

    /// The cuts of the video at `path`, in order, as the pass finds them (it runs on its own thread; ending the
    /// iteration stops it). Throws the ``MediaError`` of a file that cannot be opened or has no video.
    public func cuts(in path: String) -> AsyncThrowingStream<SceneCut, Error> {
        AsyncThrowingStream { continuation in
            let stop = Locked(false)
            continuation.onTermination = { _ in stop.withLock { $0 = true } }
            NamedThread.start("scrubkit.scenes") {
                do {
                    _ = try detect(in: path, isCancelled: { stop.withLock { $0 } }) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
        }
    }

    /// The file's cuts and scenes as ``detect(in:isCancelled:found:)`` finds them, kept in `cache` (on disk) for the
    /// file as it is now and these settings: a second run reads them instead of decoding. URLs are not cached.
    public func detect(in path: String, cache: ThumbnailCache?) throws -> (cuts: [SceneCut], scenes: [Scene]) {
        guard let cache, cache.disk != nil, let identity = SourceIdentity(path: path) else {
            return try detect(in: path)
        }
        let key = CacheKey(
            .scenes, identity: identity,
            parts: [
                "\(threshold)", minimumSceneLength.description, "\(isFrameAccurate)",
                "\(keyframeDifference)",
            ])
        if let bytes = cache.bytes(for: key) {
            var r = ByteReader(bytes)
            if let start = r.time(), let end = r.time(), let n = r.int(), n >= 0, n <= 1_000_000 {
                var cuts: [SceneCut] = []
                for _ in 0..<n {
                    guard let t = r.time(), let score = r.int() else { break }
                    cuts.append(SceneCut(time: t, score: Double(score) / 1_000_000))
                }
                if cuts.count == n { return (cuts, SceneDetector.scenes(cuts: cuts, start: start, end: end)) }
            }
        }
        let found = try detect(in: path)
        if let first = found.scenes.first, let last = found.scenes.last {
            var w = ByteWriter()
            w.time(first.start); w.time(last.start + last.duration); w.int(found.cuts.count)
            for c in found.cuts { w.time(c.time); w.int(Int((c.score * 1_000_000).rounded())) }
            cache.store(w.bytes, for: key)
        }
        return found
    }

    /// The file's cuts and scenes, its start and duration; `found` sees each cut as it is found, in order.
    @discardableResult
    public func detect(in path: String, isCancelled: @Sendable () -> Bool = { false },
                       found: (SceneCut) -> Void = { _ in }) throws -> (cuts: [SceneCut], scenes: [Scene]) {
        let opened = try MediaOpener.open(path, .lean(pixelLimit: MediaInspector.defaultPixelLimit))
        let facts = opened.facts
        guard let video = facts.video, !facts.isStill else {
            throw MediaError(.noVideo, path: path, "no video to find scenes in")
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let decoding = try StreamDecoder(
            opened.demuxer, stream: video, path: path, threading: .frame(max(1, cores)),
            skipsLoopFilter: true,  // (invisible at 64×36)
            describe: { e in e as? MediaError ?? MediaError(.unsupported, path: path, "cannot decode the video: \(e)") }
        )
        let reader = decoding.reader, decoder = decoding.decoder
        let scaler = Scaler()
        func picture(_ frame: Frame) -> [UInt8]? {
            (try? scaler.rgb(from: frame, width: 64, height: 36)).map { RGBImage($0).pixels }
        }
        var scorer = CutScorer(threshold: threshold, minimumSceneLength: minimumSceneLength, start: facts.start)
        var lastTime = facts.start
        /// A frame read past the end of the last stretch, scored first by the next one when it continues from there.
        var carried: (time: MediaTime, pixels: [UInt8])? = nil
        /// Scores every frame from the reader's position up to `until` (inclusive; nil: the end). With `like`, stops
        /// (true) at the first frame that looks like it (the next keyframe: the rest of the stretch has no cut to
        /// find).
        func scan(until: MediaTime?, from: MediaTime?, like: [UInt8]? = nil) -> Bool {
            while !isCancelled() {
                let time: MediaTime, pixels: [UInt8]
                if let c = carried {
                    (time, pixels) = c
                    carried = nil
                } else {
                    let frame: Frame?
                    // damaged data further on: the scenes so far
                    do { frame = try reader.nextFrame() } catch { return false }
                    guard let frame else { return false }
                    let t = decoder.time(of: frame)
                    guard t.isNumeric, from.map({ t >= $0 }) ?? true, let p = picture(frame) else { continue }
                    (time, pixels) = (t, p)
                }
                if let until, time > until { carried = (time, pixels); return false }
                lastTime = MediaTime.maximum(lastTime, time)
                if let cut = scorer.add(pixels, at: time) { found(cut) }
                if let like, until.map({ time < $0 }) ?? true, CutScorer.mafd(pixels, like) < keyframeDifference {
                    return true
                }
            }
            return false
        }
        if isFrameAccurate {
            _ = scan(until: nil, from: nil)
        } else {
            // 1. The keyframes alone.
            reader.keyframesOnly = true
            var keys: [(time: MediaTime, pixels: [UInt8])] = []
            while !isCancelled() {
                guard let frame = try? reader.nextFrame() else { break }
                let time = decoder.time(of: frame)
                if time.isNumeric, let pixels = picture(frame), time > (keys.last?.time ?? .negativeInfinity) {
                    keys.append((time, pixels))
                }
            }
            reader.keyframesOnly = false
            lastTime = keys.last?.time ?? facts.start
            // 2. Frame by frame between keyframes that differ (and after the last, to the end), each stretch only until
            // a frame looks like the next keyframe: past the cut (or the cuts) that made them differ, the rest of the
            // stretch cannot hold one (short of a cut away and back, which keyframes cannot see anyway). Where the
            // scan stopped early the next stretch starts with a seek; else it goes on from where the last ended.
            var positioned: Int? = nil   // the keyframe the reader goes on from, without a seek
            for i in keys.indices where !isCancelled() {
                let next = i + 1 < keys.count ? keys[i + 1] : nil
                let differs = next.map { CutScorer.mafd(keys[i].pixels, $0.pixels) >= keyframeDifference } ?? true
                guard differs else { continue }
                if positioned != i {
                    do { try reader.seek(to: keys[i].time) } catch { break }
                    scorer.restart()
                    carried = nil
                }
                let stoppedEarly = scan(until: next?.time, from: keys[i].time, like: next?.pixels)
                positioned = stoppedEarly ? nil : i + 1
            }
        }
        let end = facts.duration.isNumeric ? facts.start + facts.duration : lastTime
        return (scorer.cuts, SceneDetector.scenes(cuts: scorer.cuts, start: facts.start, end: end))
    }

    /// The scenes between `cuts` on [start, end).
    public static func scenes(cuts: [SceneCut], start: MediaTime, end: MediaTime) -> [Scene] {
        let bounds = [start] + cuts.map(\.time).filter { $0 > start && $0 < end } + [end]
        return zip(bounds, bounds.dropFirst()).compactMap { a, b in b > a ? Scene(start: a, duration: b - a) : nil }
    }

    /// `count` scenes to show, in time order: the longest when there are more (the short ones are what a reader
    /// misses least), and the longest split in halves until there are enough when there are fewer.
    public static func choose(_ count: Int, from scenes: [Scene]) -> [Scene] {
        guard count > 0, !scenes.isEmpty else { return [] }
        var chosen = scenes
        if chosen.count > count {
            chosen = Array(
                chosen.enumerated().sorted { ($0.element.duration, -$0.offset) > ($1.element.duration, -$1.offset) }
                    .prefix(count).map(\.element))
        }
        while chosen.count < count {
            guard let i = chosen.indices.max(by: { chosen[$0].duration < chosen[$1].duration }) else { break }
            let s = chosen[i], half = s.duration.multiplied(byRatio: 1, divisor: 2)
            guard half > .zero else { break }
            chosen[i] = Scene(start: s.start, duration: half)
            chosen.insert(Scene(start: s.start + half, duration: s.duration - half), at: i + 1)
        }
        return chosen.sorted { $0.start < $1.start }
    }
}

/// The cut test, frame after frame: FFmpeg's scene score against the threshold and the recent average.
struct CutScorer {
    let threshold: Double
    let minimumSceneLength: MediaTime
    let start: MediaTime
    private var previous: [UInt8]? = nil
    private var previousMAFD: Double? = nil
    private var recent: [Double] = []
    private(set) var cuts: [SceneCut] = []

    init(threshold: Double, minimumSceneLength: MediaTime, start: MediaTime) {
        self.threshold = threshold
        self.minimumSceneLength = minimumSceneLength
        self.start = start
    }

    /// Mean absolute difference of two pictures of the same size, 0–255.
    static func mafd(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var sum = 0
        for i in 0..<a.count { sum += abs(Int(a[i]) - Int(b[i])) }
        return Double(sum) / Double(a.count)
    }

    /// Starting again from another place: the next picture only sets the comparison up (unless it differs from the
    /// one before by a cut's worth on its own).
    mutating func restart() {
        previous = nil
        previousMAFD = nil
        recent.removeAll()
    }

    /// The next frame's picture; the cut it starts, if it does.
    mutating func add(_ pixels: [UInt8], at time: MediaTime) -> SceneCut? {
        defer { previous = pixels }
        guard let before = previous else { return nil }
        let mafd = CutScorer.mafd(pixels, before)
        // (Just after a restart there is no previous difference: only a jump twice the threshold counts.)
        let score = min(
            1, max(0, (previousMAFD.map { min(mafd, abs(mafd - $0)) } ?? (mafd >= 200 * threshold ? mafd : 0)) / 100))
        previousMAFD = mafd
        let average = recent.isEmpty ? 0 : recent.reduce(0, +) / Double(recent.count)
        recent.append(score)
        if recent.count > 10 { recent.removeFirst() }
        guard score >= threshold, score > 2 * average else { return nil }
        guard time - (cuts.last?.time ?? start) >= minimumSceneLength else { return nil }
        let cut = SceneCut(time: time, score: score)
        cuts.append(cut)
        return cut
    }
}
