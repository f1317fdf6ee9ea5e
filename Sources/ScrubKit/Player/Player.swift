import Dispatch
import Foundation
import Locking
import MediaTime

/// An AVPlayer-style player: readiness, duration, play/pause/rate against an injected clock, seeks with
/// tolerances (a newer seek finishes the older with `false`), slider seeks coalesced like Apple's QA1820,
/// periodic and boundary time observers, end-of-media handling, and frames for display from a pipeline.
///
/// All state is one `PlayerCore` behind a `Locked`; public calls are synchronous and thread-safe. Callbacks (seek
/// completions, end of media) run on `callbackQueue`; observers on their own serial queues.
public final class Player: Sendable {
    /// Readiness, as AVPlayerItem.Status.
    public enum Status: Sendable, Equatable {
        case unknown, readyToPlay, failed(MediaError)
    }

    /// What happens at the end of the media.
    public enum ActionAtItemEnd: Sendable { case pause, loop }

    /// The player's state, behind its lock (the rules that change it are ``PlayerCore``'s).
    let core: Locked<PlayerCore>
    /// Where seek completions and end-of-media callbacks run.
    public let callbackQueue: DispatchQueue
    /// The one clock of this player: the timeline, the sound's stamps and a front end's pacing all read it.
    public let clock: MediaClock
    /// The media side (decoding, sound); the player owns the clock and the rules.
    let pipeline: PlayerPipeline

    /// Creates a player for `pipeline` and starts loading. Use ``init(path:clock:sound:subtitleFiles:)`` for a file.
    public init(pipeline: PlayerPipeline, clock: MediaClock = SystemClock()) {
        self.pipeline = pipeline
        self.clock = clock
        let callbackQueue = DispatchQueue(label: "scrubkit.player.callbacks")
        self.callbackQueue = callbackQueue
        core = PlayerCore.locked(pipeline: pipeline, clock: clock, callbackQueue: callbackQueue)
        let hop = core.withLock { $0.hop }
        pipeline.load { result in hop { $0.loaded(result) } }
    }

    /// A player decoding `path` with FFmpeg, playing its sound as `sound` says (the default: the PulseAudio server's
    /// default sink; nil: silent), offering `subtitleFiles` besides the file's own subtitles and those beside it.
    /// Without a sound server the picture plays on the monotonic clock.
    public convenience init(
        path: String, clock: MediaClock = SystemClock(), sound: SoundOptions? = SoundOptions(),
        subtitleFiles: [String] = []
    ) {
        self.init(
            pipeline: FilePlayback(path: path, sound: sound, subtitleFiles: subtitleFiles, clock: clock), clock: clock)
    }

    deinit { pipeline.close() }

    // MARK: - Readiness and timeline

    /// Whether the media is loading, ready to play or failed (as `AVPlayerItem.status`).
    public var status: Status { withCore { $0.status } }

    /// Indefinite until loaded (and for media without a known length).
    public var duration: MediaTime { withCore { $0.info?.duration ?? .indefinite } }

    /// First presentation time of the media.
    public var startTime: MediaTime { withCore { $0.info?.start ?? .zero } }

    /// How reading the media goes, for a status line: a server waited for or gone, the file cut short or deleted.
    public var readingStatus: ReadingStatus { pipeline.readingStatus }

    /// What was learned at load time, nil before.
    public var mediaInfo: PlayerMediaInfo? { withCore { $0.info } }

    /// The current media time (held still while a seek is in flight or paused).
    public var currentTime: MediaTime { withCore { $0.now() } }

    /// 0 when paused. Setting a positive rate plays at it; 0 pauses.
    public var rate: Double {
        get { withCore { $0.rate } }
        set { withCore { $0.setRate(newValue) } }
    }

    /// Pause (default) or start over when the end is reached.
    public var actionAtItemEnd: ActionAtItemEnd {
        get { withCore { $0.actionAtItemEnd } }
        set { withCore { $0.actionAtItemEnd = newValue } }
    }

    /// Whether a seek has not finished yet.
    public var isSeeking: Bool { withCore { $0.seeking } }

    /// Calls `body` once the player is ready (or failed): at once if it already is.
    public func whenReady(_ body: @escaping @Sendable () -> Void) {
        withCore { c in
            if case .unknown = c.status { c.readyWaiters.append(body) } else { callbackQueue.async(execute: body) }
        }
    }

    /// Blocks until the player is ready or failed, at most `timeout` seconds; the status then.
    public func waitUntilReady(timeout: Double) -> Status {
        let done = Locked(false)
        whenReady { done.withLock { $0 = true } }
        done.wait(until: { $0 }, timeout: timeout)
        return status
    }

    /// Waits until the player is ready or failed.
    public func waitUntilReady() async -> Status {
        await withCheckedContinuation { c in whenReady { c.resume() } }
        return status
    }

    /// Plays at the default rate (1, or the last positive rate set).
    public func play() { withCore { $0.setRate($0.defaultRate) } }

    /// Pauses.
    public func pause() { withCore { $0.setRate(0) } }

    // MARK: - Seeking

    /// Seeks to `time` (clamped to the media), landing within `[time − before, time + after]`; zero/zero is
    /// frame-exact. `completion(true)` when it lands, `false` when a newer seek replaced it.
    public func seek(to time: MediaTime, toleranceBefore: MediaTime = .positiveInfinity,
                     toleranceAfter: MediaTime = .positiveInfinity, completion: (@Sendable (Bool) -> Void)? = nil) {
        withCore { $0.startSeek(time, toleranceBefore, toleranceAfter, completion) }
    }

    /// `seek(to:toleranceBefore:toleranceAfter:)` as an async call returning `finished`.
    public func seek(to time: MediaTime, toleranceBefore: MediaTime = .positiveInfinity,
                     toleranceAfter: MediaTime = .positiveInfinity) async -> Bool {
        await withCheckedContinuation { c in
            seek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter) { c.resume(returning: $0) }
        }
    }

    /// Seeks to a slider position, coalesced: at most one such seek in flight; newer positions wait as a single
    /// chase target, sought when the running seek ends. `dragging` seeks loosely (keyframes: fast feedback);
    /// the final position (`dragging: false`) seeks exactly. Safe before the duration is known (applied on load).
    public func seek(toFraction fraction: Double, dragging: Bool) {
        withCore { $0.sliderSeek(fraction, dragging) }
    }

    /// Steps `count` frames (negative: back), pausing first; exact seeks by the nominal frame duration.
    public func step(byFrames count: Int) {
        withCore { c in
            c.setRate(0)
            guard let info = c.info, info.frameDuration.isNumeric else { return }
            let target = c.anchorMedia + info.frameDuration.multiplied(by: Int32(clamping: count))
            c.startSeek(target, .zero, .zero, nil)
        }
    }

    /// Runs what the pipeline handed to the player so far (tests wait for completions so).
    func flush() { withCore { _ in } }

    /// Runs `body` on the player's state under its lock, after what the pipeline handed over before (as it came).
    func withCore<Result>(_ body: (PlayerCore) -> Result) -> Result {
        core.withLock { c in
            c.takeInbox()
            return body(c)
        }
    }
}
