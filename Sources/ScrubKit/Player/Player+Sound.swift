/// The sound's controls (AVPlayer's `volume`, `isMuted` and the item's `audioTimePitchAlgorithm`). The rules — sound
/// at the rates in ``Player/soundRates`` without a seek in flight, the timeline following what is heard — are in
/// the extension below (`syncSound`, `followSound`).
extension Player {
    /// The rates sound plays at (mpv's and AVPlayer's span); outside it the picture plays alone.
    public static let soundRates: ClosedRange<Double> = 0.25...4

    /// How sound plays at rates other than 1: pitch kept (`.timeDomain`, the default) or following the speed
    /// (`.varispeed`), as AVPlayerItem's `audioTimePitchAlgorithm`. Changing it while playing restarts the sound there.
    public var audioTimePitchAlgorithm: AudioTimePitchAlgorithm {
        get { withCore { $0.pitchAlgorithm } }
        set {
            let changed = withCore { c -> Bool in
                defer { c.pitchAlgorithm = newValue }
                return c.pitchAlgorithm != newValue
            }
            if changed { withCore { $0.restartSound() } }
        }
    }

    /// The sound's volume, 0…1 (AVPlayer's `volume`).
    public var volume: Double {
        get { pipeline.soundStatus.volume }
        set { pipeline.setSound(volume: newValue, muted: nil) }
    }

    /// Whether the sound is muted (AVPlayer's `isMuted`).
    public var isMuted: Bool {
        get { pipeline.soundStatus.isMuted }
        set { pipeline.setSound(volume: nil, muted: newValue) }
    }

    /// What the sound is doing: playing, or why there is none.
    public var soundStatus: SoundStatus { pipeline.soundStatus }

    /// Audio scrubbing: while paused, each seek that lands (dragging the bar, holding a seek key, stepping) plays a
    /// short snippet of the sound there, faded in and out, so speech and music can be found by ear. On by default.
    public var playsScrubSound: Bool {
        get { withCore { $0.scrubSound } }
        set { withCore { $0.scrubSound = newValue } }
    }

    /// How long a scrubbing snippet lasts.
    public static let scrubSnippetSeconds = 0.08

    /// Plays the file's next audio stream (after the last, the first), from where the timeline is; its number
    /// (counted from 1), or nil when the file has no other.
    @discardableResult
    public func selectNextAudioStream() -> Int? {
        guard let n = pipeline.nextSoundStream() else { return nil }
        withCore { $0.restartSound() }
        return n
    }

}

/// The sound's rules (under the player's lock).
extension PlayerCore {
    /// Sound plays while the player plays at a rate in ``soundRates`` and no seek is in flight; it starts (a new
    /// start, nothing stale) where the timeline is, and starts again when the rate or the pitch algorithm changes.
    func syncSound(restart: Bool = false) {
        let wanted = Player.soundRates.contains(rate) && !seeking && status == .readyToPlay
        let take = wanted ? (rate: rate, pitch: pitchAlgorithm) : nil
        if let take, restart || soundTake.map({ $0.rate != take.rate || $0.pitch != take.pitch }) ?? true {
            pipeline.playSound(from: anchorMedia, rate: take.rate, pitch: take.pitch)
        } else if take == nil && soundTake != nil {
            pipeline.playSound(from: nil, rate: 1, pitch: pitchAlgorithm)
        }
        soundTake = take
    }

    /// Starts the sound again where the timeline is (another stream or pitch algorithm was chosen).
    func restartSound() {
        // (From now on the timeline, not from its last anchor: nothing may have asked the time since.)
        update()
        let now = clock.now()
        anchorMedia = time(at: now)
        anchorHost = now
        syncSound(restart: true)
    }

    /// Out of data (the pipeline's picture has nothing to show while reading waits on a server, or it is gone): the
    /// timeline holds where it got to, as mpv pauses for its cache, and goes on from there once data comes.
    func holdWhileStarved() {
        guard rate > 0, !seeking, pipeline.isStarved else { starved = false; return }
        let now = clock.now()
        if !starved { anchorMedia = time(at: now); starved = true }
        anchorHost = now
    }

    /// While sound plays, what is heard is the clock: the timeline is re-anchored to it (between its reports the
    /// monotonic clock interpolates).
    func followSound() {
        guard soundTake != nil, !seeking else { return }
        let now = clock.now()
        if pipeline.takeSoundRestartRequest() {
            // The output came back (a sound server restarted): a new take where the timeline is, as mpv reconnects.
            anchorMedia = time(at: now)
            anchorHost = now
            syncSound(restart: true)
            return
        }
        guard var heard = pipeline.soundClock(now: now) else { return }
        if let end, heard > end { heard = end }
        anchorMedia = heard
        anchorHost = now
    }
}
