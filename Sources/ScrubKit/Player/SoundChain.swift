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
    private struct State {
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
        var streamNumber = 1
        var streamCount = 0
    }

    private let path: String
    private let options: SoundOptions
    private let clock: MediaClock
    private let state = Locked(State())

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
        let thread = Thread { [self] in
            run(stream: stream, facts: facts, packets: packets, positionsReader: positionsReader)
            packets.setPlayed(false)
        }
        thread.name = "scrubkit.sound"
        thread.start()
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

    private func start(_ time: MediaTime?, snippet: Double?, tempo: Double = 1, pitch: AudioTimePitchAlgorithm = .timeDomain) {
        let now = clock.now()
        state.withLock { s in
            s.serial += 1
            s.target = time
            s.snippet = time == nil ? nil : snippet
            s.tempo = min(4, max(0.25, tempo))
            s.pitch = pitch
            s.written = nil
            s.requestedAt = now
        }
    }

    /// Longest a take may take to start being heard before the player's own clock takes over (a server that accepts
    /// samples and never plays them must not freeze the picture).
    static let startLimit = 2.5

    /// The media time heard at `now` on the player's clock: the end of what was written minus the latency measured after that
    /// write, less the time since (what was queued has been playing meanwhile), never past what was written. While a
    /// take starts (nothing written yet) it is the take's start: the player holds there until sound comes. Nil when no
    /// sound is coming out (none, silent, failed, a take that never started): then the player's own clock rules.
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
            SoundStatus(isAvailable: $0.available, problem: $0.problem, volume: $0.volume, isMuted: $0.muted,
                        streamNumber: $0.streamNumber, streamCount: $0.streamCount)
        }
    }

    /// Stops the thread for good (it frees its FFmpeg objects and the output on the way out).
    func close() {
        state.withLock { $0.closed = true }
    }

    private func fail(_ problem: String) {
        state.withLock { s in
            s.available = false
            s.problem = problem
            s.written = nil
        }
    }

    // MARK: - Sound thread

    private func run(stream: StreamFacts, facts: MediaFacts, packets: QueuedStream, positionsReader: Bool) {
        let rate = stream.sampleRate > 0 ? stream.sampleRate : 48_000
        let channels = stream.channels == 1 ? 1 : 2
        var output: SoundOutput? = nil
        var decoding: StreamDecoder? = nil
        var converter = AudioConverter(rate: rate, channels: channels)
        var serial = -1
        var playing = false
        var skipUntil = MediaTime.invalid
        let fade = rate / 100   // 10 ms of fade-in at each start (and fade-out at a snippet's end): no clicks
        var position = 0        // samples (per channel) written in this take
        var snippetLength: Int? = nil
        // At another speed: the take's start (audio time), how fast it plays, and the pitch-keeping filter (nil:
        // 1×, or varispeed, where the converter resamples to rate / tempo instead).
        var takeStart = MediaTime.zero
        var tempo = 1.0
        var stretcher: TempoFilter? = nil
        while true {
            let (closed, currentSerial, target, volume, muted, snippet, takeTempo, pitch) = state.withLock {
                ($0.closed, $0.serial, $0.target, $0.volume, $0.muted, $0.snippet, $0.tempo, $0.pitch)
            }
            if closed { return }
            if state.withLock({ !$0.available }) { return }
            guard let from = target else {
                if playing { output?.flush(); playing = false; packets.setPlayed(false) }
                state.wait(until: { $0.closed || $0.target != nil }, timeout: 0.2)
                continue
            }
            if currentSerial != serial {
                // A new start: open what is not open yet, drop what was queued, go to the time.
                do {
                    if output == nil {
                        let opened = try options.open(rate, channels, options)
                        output = opened
                        state.withLock { $0.hasOutput = true }
                    }
                    if decoding == nil {
                        decoding = try StreamDecoder(packets, stream: stream, path: path, threading: .single)
                    }
                } catch {
                    fail("\(error)")
                    return
                }
                output?.flush()
                serial = currentSerial
                playing = true
                packets.setPlayed(true)
                position = 0
                snippetLength = snippet.map { Int($0 * Double(rate)) }
                let from = from - MediaTime(seconds: options.offset, preferredTimescale: 1_000_000)   // (audio time)
                skipUntil = from
                takeStart = from
                tempo = takeTempo
                stretcher = nil
                var outRate = rate
                if tempo != 1 && pitch == .timeDomain {
                    // (Without libavfilter the pitch follows the speed rather than no sound at all.)
                    stretcher = try? TempoFilter(rate: rate, channels: channels, tempo: tempo)
                }
                if tempo != 1 && stretcher == nil { outRate = Int((Double(rate) / tempo).rounded()) }   // varispeed
                if converter.rate != outRate { converter = AudioConverter(rate: outRate, channels: channels) }
                // Half a second before: the packet at or before the time, whatever the container's seek precision —
                // from what the queue still holds, else (without a picture) by moving the reader, else reading on.
                let lead = from - MediaTime(value: 1, timescale: 2)
                if let ts = lead.pts(timeBase: stream.timeBase, method: .roundTowardNegativeInfinity), packets.reposition(at: ts) {
                    decoding!.restart()
                } else if positionsReader {
                    decoding!.position(at: lead, start: facts.start)
                } else {
                    decoding!.restart()
                }
                converter.reset()
            }
            guard let decoding, let out = output else { continue }
            // One packet's worth of sound (a packet at a time, so a new start is noticed at once). A read error
            // mid-file (truncation) ends the sound there, as the end of the file would.
            var samples: [Int16] = []
            var startTime = MediaTime.invalid
            do {
                var frame: Frame? = nil
                while frame == nil {
                    frame = try decoding.nextFrame(maxPackets: 1)
                    if decoding.reader.isFinished {
                        // The end of the sound: let what was written play out, then wait for a new start.
                        state.withLock { s in if s.serial == serial { s.target = nil } }
                        playing = false
                        break
                    }
                    if state.withLock({ $0.serial != serial || $0.closed }) { break }
                }
                if let frame {
                    (samples, startTime) = try decoding.samples(of: frame, converter: converter)
                } else if !playing, let s = stretcher {
                    // (The end: what the stretcher holds back comes out.)
                    samples = try s.process([])
                    stretcher = nil
                    startTime = skipUntil.isNumeric ? skipUntil : takeStart
                } else {
                    continue
                }
            } catch {
                fail("the sound stopped: \(error)")
                return
            }
            guard !samples.isEmpty, startTime.isNumeric else { continue }
            options.meter?.measure(samples, channels: channels, rate: converter.rate, at: startTime)   // (media time: any speed)
            // (Samples before the take's time or already played are dropped; a late queue is led by silence.)
            guard let placed = SoundChain.placed(samples, channels: channels, rate: converter.rate, start: startTime, expected: skipUntil,
                                                 firstOfTake: position == 0, maximumSilence: converter.rate * 2) else { continue }
            var chunk = placed.chunk
            startTime = placed.start
            skipUntil = placed.next
            if let s = stretcher {
                do { chunk = try s.process(chunk) } catch { fail("the sound stopped: \(error)"); return }
            }
            var n = chunk.count / channels
            if let length = snippetLength { n = min(n, length - position) }
            if chunk.count != n * channels { chunk.removeLast(chunk.count - n * channels) }
            SoundChain.shape(&chunk, channels: channels, position: position, count: n, gain: muted ? 0 : volume, fade: fade,
                             snippetLength: snippetLength)
            position += n
            if let length = snippetLength, position >= length {
                // The snippet is whole: a little silence behind it so the output starts playing it (it waits for a
                // buffer's worth), then silent until the next take — without a flush, so it is heard to the end.
                chunk += [Int16](repeating: 0, count: rate * options.bufferMilliseconds / 1000 * channels)
                state.withLock { s in if s.serial == serial { s.target = nil; s.snippet = nil } }
                playing = false
            }
            guard !chunk.isEmpty else { continue }
            do { try out.write(chunk) } catch {
                fail("the sound device went away: \(error)")
                return
            }
            // The media time just after what was written: at 1× from the frame's own time (gaps in the stream stay
            // gaps); at another speed from the take's start and the samples written, each `tempo / rate` seconds.
            let end = tempo == 1
                ? startTime + MediaTime(value: Int64(n), timescale: Int32(rate))
                : takeStart + MediaTime(seconds: Double(position) * tempo / Double(rate), preferredTimescale: Int32(rate))
            // (Asked here, on the sound thread, outside the lock: libpulse may wait for fresh timing data.)
            let latency = out.latency ?? Double(options.bufferMilliseconds) / 1000
            let at = clock.now()
            state.withLock { s in if s.serial == serial { s.written = (end, latency, at) } }
        }
    }
}
