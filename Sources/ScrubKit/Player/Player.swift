import Dispatch
import Foundation
import Locking
import MediaTime

/// An AVPlayer-style player: readiness, duration, play/pause/rate against an injected clock, seeks with
/// tolerances (a newer seek finishes the older with `false`), slider seeks coalesced like Apple's QA1820,
/// periodic and boundary time observers, end-of-media handling, and frames for display from a pipeline.
///
/// All state lives on one serial queue; public calls are synchronous and thread-safe. Callbacks (seek
/// completions, end of media) run on `callbackQueue`; observers on their own serial queues.
// unchecked: all mutable state is touched only on the serial queue `core`
public final class Player: @unchecked Sendable {
    /// Readiness, as AVPlayerItem.Status.
    public enum Status: Sendable, Equatable {
        case unknown, readyToPlay, failed(MediaError)
    }

    /// What happens at the end of the media.
    public enum ActionAtItemEnd: Sendable { case pause, loop }

    let core = DispatchQueue(label: "scrubkit.player")
    /// Where seek completions and end-of-media callbacks run.
    public let callbackQueue = DispatchQueue(label: "scrubkit.player.callbacks")
    /// The one clock of this player: the timeline, the sound's stamps and a front end's pacing all read it.
    public let clock: MediaClock
    /// The media side (decoding, sound); the player owns the clock and the rules.
    let pipeline: PlayerPipeline

    // State (core queue only).
    var _status: Status = .unknown
    var info: PlayerMediaInfo? = nil
    var anchorMedia: MediaTime = .zero
    var anchorHost: Double = 0
    var _rate: Double = 0
    /// The rate `play()` uses.
    var defaultRate: Double = 1
    var lastReported: MediaTime = .zero
    var seeking = false
    /// Keyboard scrubbing: the jump waiting to be made exact, and the latest time seen (Player+Scrubbing.swift).
    var scrubbing = ScrubbingState()
    private var seekGeneration = 0
    private var pendingSeekCompletion: (@Sendable (Bool) -> Void)? = nil
    /// Runs on the core queue when the current seek lands or is replaced (slider coalescing).
    private var pendingInternalCompletion: ((Bool) -> Void)? = nil
    var sliderSeekInFlight = false
    var chase: (time: MediaTime, before: MediaTime, after: MediaTime)? = nil
    var pendingFraction: (Double, Bool)? = nil
    var nextObserverID = 0
    var periodic: [Int: PeriodicObserver] = [:]
    var boundaries: [Int: BoundaryObserver] = [:]
    var endObservers: [Int: ObserverMailbox] = [:]
    private var readyWaiters: [@Sendable () -> Void] = []
    var _actionAtItemEnd: ActionAtItemEnd = .pause
    /// The rate and pitch the pipeline was last told to play sound at; nil: silent.
    var soundTake: (rate: Double, pitch: AudioTimePitchAlgorithm)? = nil
    /// How sound plays at rates other than 1.
    var pitchAlgorithm = AudioTimePitchAlgorithm.timeDomain
    /// Audio scrubbing: a short snippet of sound where each seek lands while paused.
    var scrubSound = true
    /// The pipeline ran out of data while playing: the timeline holds (``holdWhileStarved()``).
    var starved = false
    /// The A-B loop (Player+Loop.swift).
    var _loopRange: MediaTimeRange? = nil
    /// The subtitle track shown and its delay (Player+Subtitles.swift).
    var _subtitleTrack: Int? = nil
    var _subtitleDelay: MediaTime = .zero

    /// Creates a player for `pipeline` and starts loading. Use ``init(path:clock:sound:subtitleFiles:)`` for a file.
    public init(pipeline: PlayerPipeline, clock: MediaClock = SystemClock()) {
        self.pipeline = pipeline
        self.clock = clock
        pipeline.load { [weak self] result in
            guard let self else { return }
            self.core.async { self.loaded(result) }
        }
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
    public var status: Status { core.sync { _status } }

    /// Indefinite until loaded (and for media without a known length).
    public var duration: MediaTime { core.sync { info?.duration ?? .indefinite } }

    /// First presentation time of the media.
    public var startTime: MediaTime { core.sync { info?.start ?? .zero } }

    /// How reading the media goes, for a status line: a server waited for or gone, the file cut short or deleted.
    public var readingStatus: ReadingStatus { pipeline.readingStatus }

    /// What was learned at load time, nil before.
    public var mediaInfo: PlayerMediaInfo? { core.sync { info } }

    /// The current media time (held still while a seek is in flight or paused).
    public var currentTime: MediaTime { core.sync { now() } }

    /// The current time, following the sound and remembering the latest seen (on `core`).
    func now() -> MediaTime {
        followSound()
        holdWhileStarved()
        settleIfDue()
        let t = time(at: clock.now())
        if t.isNumeric && (!scrubbing.seenEnd.isNumeric || t > scrubbing.seenEnd) { scrubbing.seenEnd = t }
        return t
    }

    /// 0 when paused. Setting a positive rate plays at it; 0 pauses.
    public var rate: Double {
        get { core.sync { _rate } }
        set { core.sync { setRate(newValue) } }
    }

    /// Pause (default) or start over when the end is reached.
    public var actionAtItemEnd: ActionAtItemEnd {
        get { core.sync { _actionAtItemEnd } }
        set { core.sync { _actionAtItemEnd = newValue } }
    }

    /// Whether a seek has not finished yet.
    public var isSeeking: Bool { core.sync { seeking } }

    /// Calls `body` once the player is ready (or failed): at once if it already is.
    public func whenReady(_ body: @escaping @Sendable () -> Void) {
        core.sync {
            if case .unknown = _status { readyWaiters.append(body) } else { callbackQueue.async(execute: body) }
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
    public func play() { core.sync { setRate(defaultRate) } }

    /// Pauses.
    public func pause() { core.sync { setRate(0) } }

    // MARK: - Seeking

    /// Seeks to `time` (clamped to the media), landing within `[time − before, time + after]`; zero/zero is
    /// frame-exact. `completion(true)` when it lands, `false` when a newer seek replaced it.
    public func seek(to time: MediaTime, toleranceBefore: MediaTime = .positiveInfinity,
                     toleranceAfter: MediaTime = .positiveInfinity, completion: (@Sendable (Bool) -> Void)? = nil) {
        core.sync { startSeek(time, toleranceBefore, toleranceAfter, completion) }
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
        core.sync { sliderSeek(fraction, dragging) }
    }

    /// Steps `count` frames (negative: back), pausing first; exact seeks by the nominal frame duration.
    public func step(byFrames count: Int) {
        core.sync {
            setRate(0)
            guard let info, info.frameDuration.isNumeric else { return }
            let target = anchorMedia + info.frameDuration.multiplied(by: Int32(clamping: count))
            startSeek(target, .zero, .zero, nil)
        }
    }

    /// Runs queued work on the player's queue (tests use it to wait for asynchronous completions).
    func flush() { core.sync {} }

    // MARK: - Core (on `core`)

    private func loaded(_ result: Result<PlayerMediaInfo, MediaError>) {
        switch result {
        case .success(let i):
            info = i
            anchorMedia = i.start.isNumeric ? i.start : .zero
            lastReported = anchorMedia
            _status = .readyToPlay
            if let (f, d) = pendingFraction { pendingFraction = nil; sliderSeek(f, d) }
            syncSound()
        case .failure(let e):
            _status = .failed(e)
        }
        for w in readyWaiters { callbackQueue.async(execute: w) }
        readyWaiters.removeAll()
        scheduleWake()
    }

    var end: MediaTime? {
        guard let info, info.duration.isNumeric, info.start.isValid else { return nil }
        return (info.start.isNumeric ? info.start : .zero) + info.duration
    }

    func time(at host: Double) -> MediaTime {
        guard _rate != 0, !seeking else { return anchorMedia }
        let elapsed = (host - anchorHost) * _rate
        var t = anchorMedia + MediaTime(seconds: elapsed, preferredTimescale: 1_000_000)
        if let end, t > end { t = end }
        return t
    }

    private func setRate(_ r: Double) {
        let newRate = r.isFinite ? max(0, r) : 0
        update()
        let now = clock.now()
        anchorMedia = time(at: now)
        anchorHost = now
        let changed = (newRate == 0) != (_rate == 0)
        if newRate > 0 { defaultRate = newRate }
        // Playing at the end of a paused-at-end item starts over.
        if newRate > 0, let end, anchorMedia >= end, let info {
            anchorMedia = info.start.isNumeric ? info.start : .zero
        }
        _rate = newRate
        lastReported = anchorMedia
        if changed || newRate > 0 { postPeriodic(anchorMedia) }
        syncSound()
        scheduleWake()
    }

    func startSeek(
        _ requested: MediaTime, _ before: MediaTime, _ after: MediaTime, _ completion: (@Sendable (Bool) -> Void)?,
        internal internalCompletion: ((Bool) -> Void)? = nil
    ) {
        guard case .readyToPlay = _status, requested.isValid else {
            if let completion { callbackQueue.async { completion(false) } }
            internalCompletion?(false)
            return
        }
        update()
        var target = requested
        if let info, info.start.isNumeric, target < info.start { target = info.start }
        if let end, target > end { target = end }
        if let old = pendingSeekCompletion { callbackQueue.async { old(false) } }
        let oldInternal = pendingInternalCompletion
        pendingSeekCompletion = completion
        pendingInternalCompletion = internalCompletion
        seekGeneration += 1
        let generation = seekGeneration
        anchorMedia = target
        anchorHost = clock.now()
        lastReported = target
        seeking = true
        syncSound()
        postPeriodic(target)
        oldInternal?(false)
        let exact = before == .zero && after == .zero
        let sought = target
        pipeline.seek(to: target, toleranceBefore: before, toleranceAfter: after) { [weak self] landed in
            guard let self else { return }
            self.core.async { self.seekLanded(generation, target: sought, landed: landed, exact: exact) }
        }
    }

    private func seekLanded(_ generation: Int, target: MediaTime, landed: MediaTime?, exact: Bool) {
        guard generation == seekGeneration, seeking else { return }
        seeking = false
        let actual = (exact ? target : (landed ?? target))
        anchorMedia = actual
        anchorHost = clock.now()
        lastReported = actual
        if actual != target { postPeriodic(actual) }
        if let c = pendingSeekCompletion { pendingSeekCompletion = nil; callbackQueue.async { c(true) } }
        if let c = pendingInternalCompletion { pendingInternalCompletion = nil; c(true) }
        syncSound()
        // Paused (scrubbing, stepping): what is heard where the seek landed, for a moment.
        if _rate == 0, scrubSound { pipeline.playSoundSnippet(at: actual, seconds: Player.scrubSnippetSeconds) }
        scheduleWake()
    }

}
