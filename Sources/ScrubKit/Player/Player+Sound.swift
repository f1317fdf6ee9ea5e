/// The sound's controls (AVPlayer's `volume`, `isMuted` and the item's `audioTimePitchAlgorithm`). The rules — sound
/// at the rates in ``Player/soundRates`` without a seek in flight, the timeline following what is heard — are in
/// Player.swift (`syncSound`, `followSound`).
extension Player {
    /// The rates sound plays at (mpv's and AVPlayer's span); outside it the picture plays alone.
    public static let soundRates: ClosedRange<Double> = 0.25...4

    /// How sound plays at rates other than 1: pitch kept (`.timeDomain`, the default) or following the speed
    /// (`.varispeed`), as AVPlayerItem's `audioTimePitchAlgorithm`. Changing it while playing restarts the sound there.
    public var audioTimePitchAlgorithm: AudioTimePitchAlgorithm {
        get { core.sync { pitchAlgorithm } }
        set {
            let changed = core.sync { () -> Bool in
                defer { pitchAlgorithm = newValue }
                return pitchAlgorithm != newValue
            }
            if changed { restartSound() }
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
        get { core.sync { scrubSound } }
        set { core.sync { scrubSound = newValue } }
    }

    /// How long a scrubbing snippet lasts.
    public static let scrubSnippetSeconds = 0.08

    /// Plays the file's next audio stream (after the last, the first), from where the timeline is; its number
    /// (counted from 1), or nil when the file has no other.
    @discardableResult
    public func selectNextAudioStream() -> Int? {
        guard let n = pipeline.nextSoundStream() else { return nil }
        restartSound()
        return n
    }
}
