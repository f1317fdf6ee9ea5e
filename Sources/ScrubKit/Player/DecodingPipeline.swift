import FFmpegBridge
import Foundation
import MediaTime
import Locking

/// A player pipeline that decodes a file with FFmpeg on a thread of its own (which owns every FFmpeg object),
/// into a small bounded queue of frames already scaled to the display size. Seeks supersede each other.
public final class DecodingPipeline: PlayerPipeline, Sendable {
    private struct SeekRequest {
        var time: MediaTime
        var before: MediaTime
        var after: MediaTime
        var done: @Sendable (MediaTime?) -> Void
        /// The picture came from the preview cache and is queued: only position the decoder there (for playing on),
        /// and only once no newer seek follows for a moment.
        var positionOnly = false
    }

    /// What a preview picture depends on: the seek and the picture size.
    public struct PreviewKey: Hashable, Sendable {
        var time: MediaTime
        var before: MediaTime
        var after: MediaTime
        var width: Int
        var height: Int
    }

    private struct Shared {
        var seek: SeekRequest? = nil
        var frames: [VideoFrame] = []
        var outputWidth = 0
        var outputHeight = 0
        var closed = false
        var endOfStream = false
        var shown = 0
        var dropped = 0
        /// Bumped by each seek so a frame decoded for an older position is never queued.
        var generation = 0
        var previewsDecoded = 0
        var previewsFromCache = 0
    }

    /// Frames decoded ahead of display. Small: memory stays bounded by the display size.
    public static let queueCapacity = 6

    private let path: String
    private let shared = Locked(Shared())
    /// The pictures seeks landed on, by seek and size: scrubbing back over a place repaints from here at once,
    /// without decoding (the decoder is positioned there only when the scrubbing pauses).
    public let previews: MemoryCache<PreviewKey, VideoFrame>

    /// Default budget of the preview cache: 48 MiB (about 60 pictures of 640×400).
    public static let defaultPreviewBudget = 48 << 20

    /// The sound, when asked for.
    /// The sound (nil: made without it), and the facts it started from (to start another stream's).
    private let soundState: Locked<(playback: SoundPlayback?, facts: MediaFacts?)>
    private let soundOptions: SoundOptions?
    private var sound: SoundPlayback? { soundState.withLock { $0.playback } }

    /// A pipeline for `path` with a preview cache of `previewBudget` bytes, playing sound as `sound` says (nil:
    /// silent); nothing is opened until ``load(_:)``.
    public init(path: String, previewBudget: Int = DecodingPipeline.defaultPreviewBudget, sound: SoundOptions? = nil) {
        self.path = path
        previews = MemoryCache(budget: previewBudget)
        soundOptions = sound
        soundState = Locked((sound.map { SoundPlayback(path: path, options: $0) }, nil))
    }

    /// Plays sound from `time` at `rate` (pitch as `pitch` says), or silences it (nil).
    public func playSound(from time: MediaTime?, rate: Double, pitch: AudioTimePitchAlgorithm) {
        sound?.play(from: time, rate: rate, pitch: pitch)
    }

    /// Plays a scrubbing snippet of sound at `time`.
    public func playSoundSnippet(at time: MediaTime, seconds: Double) { sound?.playSnippet(at: time, seconds: seconds) }

    /// What is heard now, while sound plays.
    public func soundClock(now: Double) -> MediaTime? { sound?.clock(now: now) }

    /// Volume (0…1) and mute.
    public func setSound(volume: Double?, muted: Bool?) { sound?.set(volume: volume, muted: muted) }

    /// Plays the next audio stream (after the last: the first); its number (from 1), nil when there is no other.
    public func nextSoundStream() -> Int? {
        guard var options = soundOptions else { return nil }
        let (old, facts) = soundState.withLock { ($0.playback, $0.facts) }
        guard let facts, facts.audioStreams.count > 1 else { return nil }
        let current = old?.status.streamNumber ?? 1
        options.streamNumber = current % facts.audioStreams.count + 1
        let volume = old?.status.volume ?? 1, muted = old?.status.isMuted ?? false
        let next = SoundPlayback(path: path, options: options)
        next.set(volume: volume, muted: muted)
        next.start(facts: facts)
        soundState.withLock { $0.playback = next }
        old?.close()
        return options.streamNumber
    }

    /// Starts the sound on the facts the front door gathered.
    private func startSound(_ facts: MediaFacts) {
        let playback = soundState.withLock { s -> SoundPlayback? in
            s.facts = facts
            return s.playback
        }
        playback?.start(facts: facts)
    }

    /// What the sound is doing; "sound off" when the pipeline was made without it.
    public var soundStatus: SoundStatus { sound?.status ?? .silent("sound off") }

    /// Seeks whose picture was decoded, and seeks served from the preview cache.
    public var previewStatistics: (decoded: Int, fromCache: Int) { shared.withLock { ($0.previewsDecoded, $0.previewsFromCache) } }

    /// Opens the media on the decoding thread; calls `done` once with its facts or the error.
    public func load(_ done: @escaping @Sendable (Result<PlayerMediaInfo, MediaError>) -> Void) {
        let thread = Thread { [self] in run(done) }
        thread.name = "scrubkit.decode"
        thread.start()
    }

    /// Positions at `time` within the tolerances (from the preview cache when it has the picture); a newer seek supersedes this one, whose `done` then gets nil.
    public func seek(to time: MediaTime, toleranceBefore: MediaTime, toleranceAfter: MediaTime,
                     _ done: @escaping @Sendable (MediaTime?) -> Void) {
        let size = shared.withLock { ($0.outputWidth, $0.outputHeight) }
        let hit = previews.value(for: PreviewKey(time: time, before: toleranceBefore, after: toleranceAfter, width: size.0, height: size.1))
        let superseded = shared.withLock { s -> (@Sendable (MediaTime?) -> Void)? in
            let old = s.seek?.done
            s.generation += 1
            s.frames.removeAll()
            s.endOfStream = false
            if let hit {
                s.frames = [hit]
                s.seek = SeekRequest(time: hit.time, before: .zero, after: .zero, done: { _ in }, positionOnly: true)
                s.previewsFromCache += 1
            } else {
                s.seek = SeekRequest(time: time, before: toleranceBefore, after: toleranceAfter, done: done)
            }
            return old
        }
        superseded?(nil)
        if let hit { done(hit.time) }
    }

    /// The newest decoded frame at or before `time`; older ones are dropped and counted.
    public func takeFrame(atOrBefore time: MediaTime) -> VideoFrame? {
        let f = shared.withLock { s -> VideoFrame? in
            guard let i = s.frames.lastIndex(where: { $0.time <= time }) else { return nil }
            let frame = s.frames[i]
            s.dropped += i          // older frames never shown: late
            s.shown += 1
            s.frames.removeFirst(i + 1)
            return frame
        }
        return f
    }

    /// The size frames are scaled to from now on (the display area); 0×0 stops decoding pictures.
    public func setOutputSize(width: Int, height: Int) {
        shared.withLock { s in
            s.outputWidth = max(0, width)
            s.outputHeight = max(0, height)
        }
    }

    /// Frames handed out and frames dropped so far.
    public var frameStatistics: (shown: Int, dropped: Int) { shared.withLock { ($0.shown, $0.dropped) } }

    /// Stops the decoding thread for good (it frees FFmpeg's state on its way out).
    public func close() {
        shared.withLock { $0.closed = true }
        sound?.close()
    }

    // MARK: - Decode thread

    private func run(_ loaded: @Sendable (Result<PlayerMediaInfo, MediaError>) -> Void) {
        let source: VideoSource
        let extractor: FrameExtractor
        do {
            // Opened once: a file without video plays its timeline from the same facts.
            let opened = try MediaOpener.open(path, .lean(pixelLimit: MediaInspector.defaultPixelLimit))
            let facts = opened.facts
            // Sound without a picture to show (no cover art either): the timeline alone.
            if (facts.kind == .audioOnly && facts.coverPicture == nil) || facts.kind == .nothing, !facts.isText {
                if facts.kind == .audioOnly { startSound(facts) }
                return runWithoutVideo(facts, loaded)
            }
            // (An audio file's cover picture is its picture, for the whole length of the sound.)
            source = try VideoSource(opened, pixelLimit: MediaInspector.defaultPixelLimit, allowsCoverArt: true)
            if !facts.isStill { startSound(facts) }
            extractor = try FrameExtractor(source: source, threading: .frame(min(2, ProcessInfo.processInfo.activeProcessorCount)),
                                           lowres: 0, pixelLimit: MediaInspector.defaultPixelLimit)
        } catch let e as MediaError {
            loaded(.failure(e))
            return
        } catch {
            loaded(.failure(MediaError(.unreadable, path: path, "\(error)")))
            return
        }
        let facts = source.stream
        let (dw, dh) = VideoInfo.displaySize(width: facts.width, height: facts.height, sar: facts.sampleAspectRatio,
                                             rotation: facts.orientation.rotation)
        let rate = facts.averageFrameRate.num > 0 ? facts.averageFrameRate : facts.frameRate
        let frameDuration = rate.num > 0 && rate.den > 0 ? MediaTime(value: Int64(rate.den), timescale: rate.num) : MediaTime.invalid
        // A still image is a picture with a zero-length timeline: shown, and "ended" at once. A cover picture is shown
        // for the length of the sound.
        let coverArt = source.isStill && source.facts.kind == .audioOnly
        let duration = coverArt ? (source.facts.durationKind == .known ? source.facts.duration : .indefinite)
            : source.isStill ? MediaTime.zero : (source.duration.isNumeric ? source.duration : .indefinite)
        loaded(.success(PlayerMediaInfo(start: coverArt ? source.facts.start : source.start, duration: duration,
                                        hasVideo: true, displayWidth: dw, displayHeight: dh, frameDuration: frameDuration,
                                        chapters: source.facts.chapters, hasAudio: !source.facts.audioStreams.isEmpty)))
        let scaler = Scaler()
        /// The found frame as a picture for a `size` display area, queued unless a newer seek came meanwhile.
        @discardableResult
        func queue(_ found: FrameExtractor.Found, size: (Int, Int), generation: Int) throws -> VideoFrame? {
            guard size.0 > 0 && size.1 > 0 else { return nil }
            // Exactly the size asked for: the caller's layout owns the geometry (no second fit with other rounding).
            let (img, _) = try FramePicture.render(found.frame, facts: facts, scaler: scaler, maximumSize: .box(width: size.0, height: size.1),
                                                   allowsUpscaling: true, appliesTransform: true, exactSize: size, path: path)
            push(VideoFrame(time: found.time, image: img), generation: generation)
            return VideoFrame(time: found.time, image: img)
        }
        // Start at the beginning.
        shared.withLock { s in
            if s.seek == nil { s.seek = SeekRequest(time: source.start, before: .zero, after: .zero, done: { _ in }) }
        }
        while true {
            let (request, generation, size, room, closed, ended) = shared.withLock { s in
                let r = s.seek
                s.seek = nil
                return (r, s.generation, (s.outputWidth, s.outputHeight), s.frames.count < DecodingPipeline.queueCapacity, s.closed, s.endOfStream)
            }
            if closed { return }
            if let r = request, r.positionOnly {
                // The picture is on screen from the cache. Position the decoder after it (for playing on) once the
                // scrubbing pauses: a newer seek within 150 ms makes this unnecessary.
                shared.wait(until: { $0.seek != nil || $0.closed || $0.generation != generation }, timeout: 0.15)
                let stillLatest = shared.withLock { $0.seek == nil && $0.generation == generation }
                if stillLatest { _ = try? extractor.frame(at: r.time, toleranceBefore: .zero, toleranceAfter: .zero) }
                continue
            }
            if let r = request {
                do {
                    let found = try extractor.frame(at: r.time, toleranceBefore: r.before, toleranceAfter: r.after)
                    if let shown = try queue(found, size: size, generation: generation) {
                        previews.insert(shown, for: PreviewKey(time: r.time, before: r.before, after: r.after, width: size.0, height: size.1),
                                        cost: shown.image.pixels.count)
                    }
                    shared.withLock { $0.previewsDecoded += 1 }
                    // The picture is queued: the seek has landed (the player may paint now).
                    r.done(found.time)
                    // After a keyframe-only seek the decoder was drained: position it for playing on — unless a
                    // newer seek is already waiting (scrubbing), which would make this work wasted.
                    if !extractor.canContinue && shared.withLock({ $0.seek == nil }) {
                        _ = try? extractor.frame(at: found.time, toleranceBefore: .zero, toleranceAfter: .zero)
                    }
                } catch {
                    shared.withLock { $0.endOfStream = true }
                    r.done(r.time)
                }
                continue
            }
            if room && !ended && size.0 > 0 && size.1 > 0 {
                do {
                    if let found = try extractor.next() {
                        try queue(found, size: size, generation: generation)
                    } else {
                        shared.withLock { $0.endOfStream = true }
                    }
                } catch {
                    shared.withLock { $0.endOfStream = true }
                }
                continue
            }
            // Nothing to do until a seek, the close, or room in the queue (a frame taken, a new size).
            shared.wait(until: { $0.seek != nil || $0.closed || $0.frames.count < DecodingPipeline.queueCapacity && !$0.endOfStream
                                 && $0.outputWidth > 0 && $0.outputHeight > 0 }, timeout: 0.1)
        }
    }

    private func push(_ frame: VideoFrame, generation: Int) {
        shared.withLock { s in
            guard s.generation == generation else { return }
            s.frames.append(frame)
        }
    }

    /// Audio-only media: the timeline works (seeks land where asked), no pictures.
    private func runWithoutVideo(_ facts: MediaFacts, _ loaded: @Sendable (Result<PlayerMediaInfo, MediaError>) -> Void) {
        if let e = facts.emptiness(path: path) { loaded(.failure(e)); return }
        loaded(.success(PlayerMediaInfo(start: facts.start, duration: facts.durationKind == .known ? facts.duration : .indefinite,
                                        hasVideo: false, chapters: facts.chapters, hasAudio: !facts.audioStreams.isEmpty)))
        while true {
            let (request, closed) = shared.withLock { s in
                let r = s.seek
                s.seek = nil
                return (r, s.closed)
            }
            if closed { return }
            if let r = request { r.done(r.time); continue }
            shared.wait(until: { $0.seek != nil || $0.closed }, timeout: 0.2)
        }
    }
}
