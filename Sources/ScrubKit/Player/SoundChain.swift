import FFmpegBridge
import Foundation
import MediaTime
import Locking

/// The player's sound chain, a peer of the picture's: one thread that owns the audio decoder, the converter and the
/// output, reads its stream's packets from the player's one reader (``QueuedStream``) and plays from the time it is
/// told. What is heard is the player's master clock: the presentation time of the last sample written minus the
/// latency the output reported, less the time since on the player's clock (``clock(now:)``); until the output starts
/// playing that holds still at the start, so picture and sound start together.
///
/// Each ``play(from:)`` is a new serial (as ffplay's): queued samples are flushed, so after a seek sound starts at
/// the new place, never with stale samples. It starts from the packets its queue still holds (half a second before
/// the time, from the queue's back buffer) without moving the file; only without a picture does it position the
/// reader itself (with a picture, the picture's seek already did). Without an output (no server, `--no-audio`) or
/// after the stream fails, ``status`` says why once and the clock is nil: the player's own clock rules.
final class SoundChain: Sendable {
    struct State {
        var serial = 0
        /// Where to play from; nil: silent (paused, seeking).
        var target: MediaTime? = nil
        /// The take is a scrubbing snippet of this many seconds (faded in and out), not playback.
        var snippet: Double? = nil
        /// How many times as fast this take plays, and how its pitch goes.
        var tempo = 1.0
        var pitch = AudioTimePitchAlgorithm.timeDomain
        var closed = false
        var volume = 1.0
        var muted = false
        /// The presentation time just after the last sample written in this take, the output's latency measured
        /// right after that write, and when (monotonic); nil before the first write. The sound thread measures: the
        /// output is never asked from the player's thread (libpulse can wait there for fresh timing data).
        var written: (end: MediaTime, latency: Double, at: Double)? = nil
        /// Whether an output is open.
        var hasOutput = false
        /// When this take was asked for (monotonic), to give up leading a clock that never starts.
        var requestedAt = 0.0
        var problem: String? = nil
        var available = true
        /// The output went away (a sound server restarted, a device unplugged): why, while it is opened again; and
        /// that it is back, for the player to start a take where its timeline is.
        var lost: String? = nil
        var restartWanted = false
        var streamNumber = 1
        var streamCount = 0
    }

    let path: String
    let options: SoundOptions
    let clock: MediaClock
    let state = Locked(State())

    /// Sound for `path` as `options` say, timed on `clock` (the player's); nothing is opened until
    /// ``start(facts:reader:positionsReader:)``.
    init(path: String, options: SoundOptions, clock: MediaClock) {
        self.path = path
        self.options = options
        self.clock = clock
    }

    /// Starts the sound thread on the chosen audio stream of the file `reader` reads; with `positionsReader` (no
    /// picture) a take moves the reader to its time, else it reads on from where the picture's seek put it.
    func start(facts: MediaFacts, reader: PlayerReader, positionsReader: Bool) {
        let (chosen, problem) = facts.audioStream(number: options.streamNumber)
        state.withLock { s in
            s.streamCount = facts.audioStreams.count
            if let chosen { s.streamNumber = facts.audioStreamNumber(of: chosen) }
        }
        guard let stream = chosen else { fail(problem ?? "no audio stream"); return }
        options.meter?.prepare(start: facts.start, duration: facts.durationKind == .known ? facts.duration : .invalid)
        guard let packets = reader.stream(stream.index) else { fail("the audio stream is not read"); return }
        NamedThread.start("scrubkit.sound") { [self] in
            run(stream: stream, facts: facts, packets: packets, positionsReader: positionsReader)
            packets.setPlayed(false)
        }
    }

    /// Plays from `time` at `rate` times normal speed (a new serial: what was queued is dropped); nil: silent now.
    func play(from time: MediaTime?, rate: Double = 1, pitch: AudioTimePitchAlgorithm = .timeDomain) {
        start(time, snippet: nil, tempo: rate, pitch: pitch)
    }

    /// Plays `seconds` of sound at `time`, faded in and out (audio scrubbing: what is heard where the scrub landed),
    /// then falls silent; a newer take replaces it at once.
    func playSnippet(at time: MediaTime, seconds: Double) {
        start(time, snippet: seconds)
    }

    private func start(
        _ time: MediaTime?, snippet: Double?, tempo: Double = 1, pitch: AudioTimePitchAlgorithm = .timeDomain
    ) {
        let now = clock.now()
        state.withLock { s in
            s.serial += 1
            s.target = time
            s.snippet = time == nil ? nil : snippet
            s.tempo = min(4, max(0.25, tempo))
            s.pitch = pitch
            s.written = nil
            s.requestedAt = now
            s.restartWanted = false
        }
    }

    /// Longest a take may take to start being heard before the player's own clock takes over (a server that accepts
    /// samples and never plays them must not freeze the picture).
    static let startLimit = 2.5

    /// The media time heard at `now` on the player's clock: the end of what was written minus the latency measured
    /// after that write, less the time since (what was queued has been playing meanwhile), never past what was written.
    /// While a take starts (nothing written yet) it is the take's start: the player holds there until sound comes. Nil
    /// when no sound is coming out (none, silent, failed, a take that never started): then the player's own clock
    /// rules.
    func clock(now: Double) -> MediaTime? {
        state.withLock { s in
            guard s.available, s.snippet == nil, let from = s.target, s.hasOutput else { return nil }
            guard let w = s.written else {
                return now - s.requestedAt < SoundChain.startLimit ? from : nil
            }
            // (Queued output seconds hold `tempo` times as much media time.)
            let queued = max(0, w.latency - (now - w.at)) * s.tempo
            // (What is heard is audio time; the picture shows it `offset` later.)
            let heard = w.end - MediaTime(seconds: queued - options.offset, preferredTimescale: 1_000_000)
            if heard <= from && now - s.requestedAt >= SoundChain.startLimit { return nil }
            return MediaTime.maximum(heard, from)
        }
    }

    /// Volume (0…1) and mute, applied to the next samples written.
    func set(volume: Double? = nil, muted: Bool? = nil) {
        state.withLock { s in
            if let v = volume { s.volume = min(1, max(0, v)) }
            if let m = muted { s.muted = m }
        }
    }

    /// What the sound is doing.
    var status: SoundStatus {
        state.withLock {
            SoundStatus(isAvailable: $0.available && $0.lost == nil, problem: $0.lost ?? $0.problem, volume: $0.volume,
                        isMuted: $0.muted, streamNumber: $0.streamNumber, streamCount: $0.streamCount)
        }
    }

    /// Whether the output came back after it went away (once: the player then starts sound where it is).
    func takeRestartRequest() -> Bool {
        state.withLock { s in
            defer { s.restartWanted = false }
            return s.restartWanted
        }
    }

    /// How often an output that went away is opened again while sound is wanted (mpv's PulseAudio output reconnects).
    static let reopenInterval = 1.0

    /// Stops the thread for good (it frees its FFmpeg objects and the output on the way out).
    func close() {
        state.withLock { $0.closed = true }
    }

    /// The sound stops for good with `problem` (the picture plays on).
    func fail(_ problem: String) {
        state.withLock { s in
            s.available = false
            s.problem = problem
            s.written = nil
        }
    }
}
