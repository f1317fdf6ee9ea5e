import Dispatch
import Locking
import MediaTime

/// The player's state and the rules that change it: the timeline (an anchor moved by the clock at the rate), seeks
/// and their completions, slider coalescing, observers, the sound's take, the A-B loop. It lives behind one `Locked`
/// (``Player/core``) and is only touched under that lock. The pipeline's callbacks (loaded, a seek landed) come back
/// through ``hop``, in order, without taking that lock on the pipeline's thread (which may hold a lock of its own the
/// player's calls take: the two would wait for each other); the clock's wake-ups take it directly (a clock holds
/// none).
final class PlayerCore {
    let pipeline: PlayerPipeline
    let clock: MediaClock
    let callbackQueue: DispatchQueue
    /// The serial queue `scrubkit.player`, where the callbacks handed back to the player are taken in when no call on
    /// the player takes them first (it guards no state: the lock does).
    let hops = DispatchQueue(label: "scrubkit.player")
    /// The callbacks handed back to the player and not run yet, oldest first.
    let inbox = Locked<[@Sendable (PlayerCore) -> Void]>([])
    /// The lock the core lives behind (set once, by ``locked(pipeline:clock:callbackQueue:)``).
    private(set) weak var lock: Locked<PlayerCore>?

    var status: Player.Status = .unknown
    var info: PlayerMediaInfo? = nil
    var anchorMedia: MediaTime = .zero
    var anchorHost: Double = 0
    var rate: Double = 0
    /// The rate `play()` uses.
    var defaultRate: Double = 1
    var lastReported: MediaTime = .zero
    var seeking = false
    /// Keyboard scrubbing: the jump waiting to be made exact, and the latest time seen (Player+Scrubbing.swift).
    var scrubbing = ScrubbingState()
    private var seekGeneration = 0
    private var pendingSeekCompletion: (@Sendable (Bool) -> Void)? = nil
    /// Runs under the lock when the current seek lands or is replaced (slider coalescing).
    private var pendingInternalCompletion: ((Bool) -> Void)? = nil
    var sliderSeekInFlight = false
    var chase: (time: MediaTime, before: MediaTime, after: MediaTime)? = nil
    var pendingFraction: (Double, Bool)? = nil
    var nextObserverID = 0
    var periodic: [Int: PeriodicObserver] = [:]
    var boundaries: [Int: BoundaryObserver] = [:]
    var endObservers: [Int: ObserverMailbox] = [:]
    var readyWaiters: [@Sendable () -> Void] = []
    var actionAtItemEnd: Player.ActionAtItemEnd = .pause
    /// The rate and pitch the pipeline was last told to play sound at; nil: silent.
    var soundTake: (rate: Double, pitch: AudioTimePitchAlgorithm)? = nil
    /// How sound plays at rates other than 1.
    var pitchAlgorithm = AudioTimePitchAlgorithm.timeDomain
    /// Audio scrubbing: a short snippet of sound where each seek lands while paused.
    var scrubSound = true
    /// The pipeline ran out of data while playing: the timeline holds (``holdWhileStarved()``).
    var starved = false
    /// The A-B loop (Player+Loop.swift).
    var loopRange: MediaTimeRange? = nil
    /// The subtitle track shown and its delay (Player+Subtitles.swift).
    var subtitleTrack: Int? = nil
    var subtitleDelay: MediaTime = .zero

    private init(pipeline: PlayerPipeline, clock: MediaClock, callbackQueue: DispatchQueue) {
        self.pipeline = pipeline
        self.clock = clock
        self.callbackQueue = callbackQueue
    }

    /// A core behind its lock, for a player.
    static func locked(
        pipeline: PlayerPipeline, clock: MediaClock, callbackQueue: DispatchQueue
    ) -> Locked<PlayerCore> {
        let core = Locked(PlayerCore(pipeline: pipeline, clock: clock, callbackQueue: callbackQueue))
        core.withLock { $0.lock = core }
        return core
    }

    /// Hands work to the core, to run under its lock after what was handed over before it and before any later call
    /// on the player: what a pipeline thread calls to reach the player. The work waits in ``inbox`` (whose lock is
    /// never held while calling out), and a run on ``hops`` takes it in when no call on the player does so first.
    var hop: @Sendable (_ work: @escaping @Sendable (PlayerCore) -> Void) -> Void {
        let (hops, inbox) = (self.hops, self.inbox)
        return { [weak lock = self.lock] work in
            inbox.withLock { $0.append(work) }
            hops.async { [weak lock] in lock?.withLock { $0.takeInbox() } }
        }
    }

    /// Runs what was handed over (``hop``), in order; every call on the player does this first.
    func takeInbox() {
        while case let works = inbox.withLock({ w in defer { w = [] }; return w }), !works.isEmpty {
            for work in works { work(self) }
        }
    }

    /// The current time, following the sound and remembering the latest seen.
    func now() -> MediaTime {
        followSound()
        holdWhileStarved()
        settleIfDue()
        let t = time(at: clock.now())
        if t.isNumeric && (!scrubbing.seenEnd.isNumeric || t > scrubbing.seenEnd) { scrubbing.seenEnd = t }
        return t
    }

    func loaded(_ result: Result<PlayerMediaInfo, MediaError>) {
        switch result {
        case .success(let i):
            info = i
            anchorMedia = i.start.isNumeric ? i.start : .zero
            lastReported = anchorMedia
            status = .readyToPlay
            if let (f, d) = pendingFraction { pendingFraction = nil; sliderSeek(f, d) }
            syncSound()
        case .failure(let e):
            status = .failed(e)
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
        guard rate != 0, !seeking else { return anchorMedia }
        let elapsed = (host - anchorHost) * rate
        var t = anchorMedia + MediaTime(seconds: elapsed, preferredTimescale: 1_000_000)
        if let end, t > end { t = end }
        return t
    }

    func setRate(_ r: Double) {
        let newRate = r.isFinite ? max(0, r) : 0
        update()
        let now = clock.now()
        anchorMedia = time(at: now)
        anchorHost = now
        let changed = (newRate == 0) != (rate == 0)
        if newRate > 0 { defaultRate = newRate }
        // Playing at the end of a paused-at-end item starts over.
        if newRate > 0, let end, anchorMedia >= end, let info {
            anchorMedia = info.start.isNumeric ? info.start : .zero
        }
        rate = newRate
        lastReported = anchorMedia
        if changed || newRate > 0 { postPeriodic(anchorMedia) }
        syncSound()
        scheduleWake()
    }

    func startSeek(
        _ requested: MediaTime, _ before: MediaTime, _ after: MediaTime, _ completion: (@Sendable (Bool) -> Void)?,
        internal internalCompletion: ((Bool) -> Void)? = nil
    ) {
        guard case .readyToPlay = status, requested.isValid else {
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
        let hop = self.hop
        pipeline.seek(to: target, toleranceBefore: before, toleranceAfter: after) { landed in
            hop { $0.seekLanded(generation, target: sought, landed: landed, exact: exact) }
        }
    }

    func seekLanded(_ generation: Int, target: MediaTime, landed: MediaTime?, exact: Bool) {
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
        if rate == 0, scrubSound { pipeline.playSoundSnippet(at: actual, seconds: Player.scrubSnippetSeconds) }
        scheduleWake()
    }
}
