import FFmpegBridge
import Foundation
import MediaTime

/// The sound thread: waits for a start, opens the output and the decoder once, and plays each take — decoding a
/// packet at a time (so a new start is noticed at once), placing, stretching and shaping the samples, writing them
/// and noting what was written when, for the audio clock.
extension SoundChain {
    /// What the thread keeps for the take it plays.
    struct Take {
        /// The start this take answers (``State``'s serial).
        var serial = -1
        /// Whether sound is being written (false: waiting for a start, or the take ended).
        var playing = false
        /// The media time the next samples should start at (earlier ones are dropped).
        var skipUntil = MediaTime.invalid
        /// Samples (per channel) written in this take.
        var position = 0
        /// A snippet's length in samples (scrubbing while paused), nil for playing on.
        var snippetLength: Int?
        /// The take's start (audio time), how fast it plays, and the pitch-keeping filter (nil: 1×, or varispeed,
        /// where the converter resamples to rate / tempo instead).
        var takeStart = MediaTime.zero
        var tempo = 1.0
        var stretcher: TempoFilter?
        var converter: AudioConverter
        /// Samples that came after a gap, held until the silence before them has been written.
        var pending: (samples: [Int16], start: MediaTime)? = nil
        /// The stream was in a gap: the next packet is taken only once it is due (taken early, it would take the
        /// reader on past what is played).
        var afterGap = false
    }

    /// The silence written at a time where the stream has nothing (a gap, sound that ended before the picture, a late
    /// start): the output keeps playing, so the clock goes on and the picture with it, and sound that comes later is
    /// heard at its own time. Short, so that a new start is noticed at once.
    static let silencePiece = 0.1

    /// The thread's loop, until the chain closes or the sound fails.
    func run(stream: StreamFacts, facts: MediaFacts, packets: QueuedStream, positionsReader: Bool) {
        let rate = stream.sampleRate > 0 ? stream.sampleRate : 48_000
        let channels = stream.channels == 1 ? 1 : 2
        var output: SoundOutput? = nil
        var decoding: StreamDecoder? = nil
        var take = Take(converter: AudioConverter(rate: rate, channels: channels))
        var reopenedAt = -Double.infinity
        while true {
            let (closed, currentSerial, target, snippet, tempo, pitch) = state.withLock {
                ($0.closed, $0.serial, $0.target, $0.snippet, $0.tempo, $0.pitch)
            }
            if closed { return }
            if state.withLock({ !$0.available }) { return }
            guard let from = target else {
                if take.playing { output?.flush(); take.playing = false; packets.setPlayed(false) }
                state.wait(until: { $0.closed || $0.target != nil }, timeout: 0.2)
                continue
            }
            if output == nil, state.withLock({ $0.lost != nil }) {
                // The output went away: opened again every second while sound is wanted; once it is, the player starts
                // a take where its timeline is (this one's place is stale by now).
                if clock.now() - reopenedAt < SoundChain.reopenInterval {
                    state.wait(until: { $0.closed || $0.target == nil }, timeout: 0.1)
                    continue
                }
                reopenedAt = clock.now()
                if let reopened = try? options.open(rate, channels, options) {
                    output = reopened
                    state.withLock { s in (s.hasOutput, s.lost, s.restartWanted, s.target) = (true, nil, true, nil) }
                }
                continue
            }
            if currentSerial != take.serial {
                // A new start: open what is not open yet, drop what was queued, go to the time.
                do {
                    if output == nil {
                        output = try options.open(rate, channels, options)
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
                packets.setPlayed(true)
                begin(
                    &take, serial: currentSerial, at: from, snippet: snippet, tempo: tempo, pitch: pitch, rate: rate,
                    channels: channels)
                reposition(
                    decoding!, packets: packets, stream: stream, facts: facts, at: take.skipUntil,
                    positionsReader: positionsReader)
                take.converter.reset()
            }
            guard let decoding, let out = output else { continue }
            let next: (samples: [Int16], start: MediaTime)?
            do { next = try nextSamples(&take, decoding: decoding, packets: packets) } catch {
                // A read error mid-file (truncation) ends the sound there, as the end of the file would.
                fail("the sound stopped: \(error)")
                return
            }
            guard let next, !next.samples.isEmpty, next.start.isNumeric else { continue }
            if !write(next.samples, at: next.start, take: &take, to: out, rate: rate, channels: channels) {
                guard state.withLock({ $0.available }) else { return }
                // (The output went away: without it until it is opened again.)
                (output, take.serial, take.playing) = (nil, -1, false)
                packets.setPlayed(false)
                reopenedAt = clock.now()
            }
        }
    }

    /// Starts `take` as start `serial` asks: at `time` (media time; the sound's offset applied), a snippet of
    /// `snippet` seconds or playing on, at `tempo` with `pitch`.
    private func begin(_ take: inout Take, serial: Int, at time: MediaTime, snippet: Double?, tempo: Double,
                       pitch: AudioTimePitchAlgorithm, rate: Int, channels: Int) {
        take.serial = serial
        take.playing = true
        take.position = 0
        take.snippetLength = snippet.map { Int($0 * Double(rate)) }
        let from = time - MediaTime(seconds: options.offset, preferredTimescale: 1_000_000)   // (audio time)
        take.skipUntil = from
        take.takeStart = from
        take.tempo = tempo
        take.stretcher = nil
        take.pending = nil
        take.afterGap = false
        var outRate = rate
        if tempo != 1 && pitch == .timeDomain {
            // (Without libavfilter the pitch follows the speed rather than no sound at all.)
            take.stretcher = try? TempoFilter(rate: rate, channels: channels, tempo: tempo)
        }
        if tempo != 1 && take.stretcher == nil { outRate = Int((Double(rate) / tempo).rounded()) }   // varispeed
        if take.converter.rate != outRate { take.converter = AudioConverter(rate: outRate, channels: channels) }
    }

    /// Half a second before `time`: the packet at or before it, whatever the container's seek precision — from what
    /// the queue still holds, else (without a picture) by moving the reader, else reading on.
    private func reposition(_ decoding: StreamDecoder, packets: QueuedStream, stream: StreamFacts, facts: MediaFacts,
                            at time: MediaTime, positionsReader: Bool) {
        let lead = time - MediaTime(value: 1, timescale: 2)
        if let ts = lead.pts(timeBase: stream.timeBase, method: .roundTowardNegativeInfinity),
            packets.reposition(at: ts)
        {
            decoding.restart()
        } else if positionsReader {
            decoding.position(at: lead, start: facts.start)
        } else {
            decoding.restart()
        }
    }

    /// One packet's worth of sound and its media time; nil when there is none this time round (the end, a new
    /// start). At the end, what the stretcher holds back comes out. Where the stream has nothing (the reader says it
    /// is in a gap), or its next samples start later than the take has got to, a piece of silence.
    private func nextSamples(_ take: inout Take, decoding: StreamDecoder,
                             packets: QueuedStream) throws -> (samples: [Int16], start: MediaTime)? {
        if let pending = take.pending {
            if let silence = silence(before: pending.start, take) { return silence }
            take.pending = nil
            return pending
        }
        let timeBase = decoding.stream.timeBase
        /// Silence where the stream has nothing: the reader is told the chain got that far (it reads on for what
        /// comes after the gap as the time passes, whatever the other chains take).
        func gapSilence(before start: MediaTime?) -> (samples: [Int16], start: MediaTime)? {
            guard let piece = silence(before: start, take) else { return nil }
            let end = piece.start + MediaTime(seconds: SoundChain.silencePiece, preferredTimescale: 1_000_000)
            if let ts = end.pts(timeBase: timeBase, method: .roundTowardNegativeInfinity) { packets.reached(ts) }
            return piece
        }
        if take.afterGap, let next = packets.nextTimestamp, next != MediaTime.noTimestamp,
           let silence = gapSilence(before: MediaTime(pts: next, timeBase: timeBase)) {
            return silence
        }
        let serial = take.serial
        var frame: Frame? = nil
        while frame == nil {
            do { frame = try decoding.nextFrame(maxPackets: 1) } catch is PacketGap {
                take.afterGap = true
                return gapSilence(before: nil)
            }
            if decoding.reader.isFinished {
                // The end of the sound: let what was written play out, then wait for a new start.
                state.withLock { s in if s.serial == serial { s.target = nil } }
                take.playing = false
                break
            }
            if state.withLock({ $0.serial != serial || $0.closed }) { break }
        }
        if let frame {
            take.afterGap = false
            let got = try decoding.samples(of: frame, converter: take.converter)
            if let silence = silence(before: got.start, take) {
                take.pending = got
                return silence
            }
            return got
        }
        if !take.playing, let s = take.stretcher {
            take.stretcher = nil
            return (try s.process([]), take.skipUntil.isNumeric ? take.skipUntil : take.takeStart)
        }
        return nil
    }

    /// A piece of silence where the take has got to, when `start` (nil: the stream has nothing now) is more than a
    /// piece after it; nil when the next samples are due sooner (a shorter gap is filled when they are placed).
    private func silence(before start: MediaTime?, _ take: Take) -> (samples: [Int16], start: MediaTime)? {
        let at = take.skipUntil.isNumeric ? take.skipUntil : take.takeStart
        if let start, !start.isNumeric || (start - at).seconds <= SoundChain.silencePiece { return nil }
        let channels = take.converter.channels
        let frames = Int(Double(take.converter.rate) * SoundChain.silencePiece)
        return ([Int16](repeating: 0, count: frames * channels), at)
    }

    /// Places `samples` (starting at `startTime`) in the take, stretches and shapes them, writes them to `out` and
    /// notes for the clock the media time just after them. False when the sound failed (the thread ends).
    private func write(
        _ samples: [Int16], at startTime: MediaTime, take: inout Take, to out: SoundOutput, rate: Int, channels: Int
    ) -> Bool {
        let (volume, muted) = state.withLock { ($0.volume, $0.muted) }
        let converted = take.converter.rate
        options.meter?.measure(samples, channels: channels, rate: converted, at: startTime)   // (media time: any speed)
        // (Samples before the take's time or already played are dropped; a late queue is led by silence.)
        guard
            let placed = SoundChain.placed(
                samples, channels: channels, rate: converted, start: startTime, expected: take.skipUntil,
                maximumSilence: converted * 2)
        else { return true }
        var chunk = placed.chunk
        let start = placed.start
        take.skipUntil = placed.next
        if let s = take.stretcher {
            do { chunk = try s.process(chunk) } catch { fail("the sound stopped: \(error)"); return false }
        }
        var n = chunk.count / channels
        if let length = take.snippetLength { n = min(n, length - take.position) }
        if chunk.count != n * channels { chunk.removeLast(chunk.count - n * channels) }
        let fade = rate / 100  // 10 ms of fade-in at each start (and fade-out at a snippet's end): no clicks
        SoundChain.shape(
            &chunk, channels: channels, position: take.position, count: n, gain: muted ? 0 : volume, fade: fade,
            snippetLength: take.snippetLength)
        take.position += n
        let serial = take.serial
        if let length = take.snippetLength, take.position >= length {
            // The snippet is whole: a little silence behind it so the output starts playing it (it waits for a
            // buffer's worth), then silent until the next take — without a flush, so it is heard to the end.
            chunk += [Int16](repeating: 0, count: rate * options.bufferMilliseconds / 1000 * channels)
            state.withLock { s in if s.serial == serial { s.target = nil; s.snippet = nil } }
            take.playing = false
        }
        guard !chunk.isEmpty else { return true }
        do { try out.write(chunk) } catch {
            let why = "the sound server went away: \(error)"
            state.withLock { s in (s.lost, s.hasOutput, s.written) = (why, false, nil) }
            return false
        }
        // The media time just after what was written: at 1× from the frame's own time (gaps in the stream stay
        // gaps); at another speed from the take's start and the samples written, each `tempo / rate` seconds.
        let end = take.tempo == 1
            ? start + MediaTime(value: Int64(n), timescale: Int32(rate))
            : take.takeStart
                + MediaTime(seconds: Double(take.position) * take.tempo / Double(rate), preferredTimescale: Int32(rate))
        // (Asked here, on the sound thread, outside the lock: libpulse may wait for fresh timing data.)
        let latency = out.latency ?? Double(options.bufferMilliseconds) / 1000
        let at = clock.now()
        state.withLock { s in if s.serial == serial { s.written = (end, latency, at) } }
        return true
    }
}
