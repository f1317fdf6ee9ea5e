import FFmpegBridge
import Foundation
import MediaTime
import Locking

/// The loudness of one stretch of a file's sound.
public struct LoudnessBucket: Sendable, Equatable {
    /// Which bucket (0 ..< count): bucket `i` covers `[start + i·length, start + (i+1)·length)` of the timeline.
    public var index: Int
    /// Where it starts on the timeline.
    public var start: MediaTime
    /// The loudest sample, 0…1 of full scale.
    public var peak: Double
    /// The root-mean-square level, 0…1 of full scale.
    public var rms: Double

    /// The peak in dBFS (−∞ for silence).
    public var peakDecibels: Double { 20 * log10(peak) }
}

/// Loudness over a whole file, from its sound alone (no picture is decoded), in the background: for the player's
/// loudness strip and for library users who want to see where the sound is.
public enum Loudness {
    /// The loudness of `count` equal stretches of `path`'s audio stream number `streamNumber` (counted from 1, as the
    /// player's; nil: the first decodable), in time order, as they are computed (a few seconds per hour of sound).
    /// Memory is bounded: one stretch at a time. Finishes at once for a file without sound or of unknown length; stops
    /// when the consumer stops listening.
    public static func buckets(of path: String, count: Int, streamNumber: Int? = nil) -> AsyncStream<LoudnessBucket> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let stop = Locked(false)
            continuation.onTermination = { _ in stop.withLock { $0 = true } }
            NamedThread.start("scrubkit.loud") {
                scan(path, count: max(1, count), streamNumber: streamNumber, stopped: { stop.withLock { $0 } }) {
                    continuation.yield($0)
                }
                continuation.finish()
            }
        }
    }

    /// Whether the player's strip for `path` is scanned over the whole file in the background (a local file), or
    /// measured as the sound plays (a URL: a scan would download it whole).
    public static func isScannedWhole(_ path: String) -> Bool { !Demuxer.isURL(path) }

    /// Decodes the sound once (down-mixed to mono) and hands out each bucket as soon as the sound passes its end.
    static func scan(
        _ path: String, count: Int, streamNumber: Int? = nil, stopped: @Sendable () -> Bool,
        yield: (LoudnessBucket) -> Void
    ) {
        guard let opened = try? MediaOpener.open(path, .lean(pixelLimit: MediaInspector.defaultPixelLimit)) else {
            return
        }
        let facts = opened.facts
        guard let stream = facts.audioStream(number: streamNumber).stream, facts.durationKind == .known,
            facts.duration > .zero
        else { return }
        guard let decoding = try? StreamDecoder(opened.demuxer, stream: stream, path: path, threading: .single) else {
            return
        }
        // At the stream's own rate: resampling would smear a loud onset into the quiet before it (filter ringing).
        let rate = stream.sampleRate > 0 ? stream.sampleRate : 48_000
        let converter = AudioConverter(rate: rate, channels: 1)
        let start = facts.start, length = facts.duration.seconds / Double(count)
        var current = 0, peak = 0, sumSquares = 0.0, samples = 0
        func emit() {
            let rms = samples > 0 ? (sumSquares / Double(samples)).squareRoot() / 32768 : 0
            yield(
                LoudnessBucket(
                    index: current,
                    start: start + MediaTime(seconds: Double(current) * length, preferredTimescale: 1000),
                    peak: Double(peak) / 32768, rms: rms))
            current += 1
            (peak, sumSquares, samples) = (0, 0, 0)
        }
        while !stopped() {
            do {
                guard let frame = try decoding.nextFrame() else { break }
                let (pcm, t) = try decoding.samples(of: frame, converter: converter)
                guard t.isNumeric else { continue }
                var position = (t - start).seconds
                for s in pcm {
                    while position >= Double(current + 1) * length, current < count - 1 { emit() }
                    let a = abs(Int(s))
                    if a > peak { peak = a }
                    sumSquares += Double(s) * Double(s)
                    samples += 1
                    position += 1 / Double(rate)
                }
            } catch {
                break   // damaged sound: what was measured stands
            }
        }
        if !stopped() { while current < count { emit() } }
    }
}

/// Loudness measured from the sound as it plays, into the same buckets as ``Loudness/buckets(of:count:streamNumber:)``:
/// the strip of a file that is not scanned whole (a URL: its sound is measured only where it is played, so nothing
/// is read for it). The player's sound chain feeds it (``SoundOptions/meter``); each bucket is handed to `deliver` as
/// the sound passes its end (or leaves it: a seek).
public final class LoudnessMeter: Sendable {
    private struct State {
        var start = MediaTime.invalid
        var length = 0.0
        var current = -1
        var peak = 0
        var sumSquares = 0.0
        var samples = 0
    }
    private let count: Int
    private let deliver: @Sendable (LoudnessBucket) -> Void
    private let state = Locked(State())

    /// A meter of `count` buckets over the timeline, handing each measured bucket to `deliver` (on the sound's thread).
    public init(count: Int, deliver: @escaping @Sendable (LoudnessBucket) -> Void) {
        self.count = max(1, count)
        self.deliver = deliver
    }

    /// The timeline the buckets divide (the sound chain sets it from the file's facts); nothing is measured without it.
    func prepare(start: MediaTime, duration: MediaTime) {
        state.withLock { s in
            s.start = start.isNumeric && duration.isNumeric && duration > .zero ? start : .invalid
            s.length = duration.seconds / Double(count)
            s.current = -1
        }
    }

    /// Measures interleaved `samples` of `channels` channels at `rate` Hz, the first at media time `time`.
    func measure(_ samples: [Int16], channels: Int, rate: Int, at time: MediaTime) {
        var done: [LoudnessBucket] = []
        state.withLock { s in
            guard s.start.isValid, time.isNumeric, s.length > 0, rate > 0, channels > 0 else { return }
            let first = (time - s.start).seconds
            for i in stride(from: 0, to: samples.count - channels + 1, by: channels) {
                let position = first + Double(i / channels) / Double(rate)
                let index = min(count - 1, max(0, Int(position / s.length)))
                if index != s.current {
                    if s.samples > 0, let b = bucket(s) { done.append(b) }
                    (s.current, s.peak, s.sumSquares, s.samples) = (index, 0, 0, 0)
                }
                for c in 0..<channels {
                    let v = Int(samples[i + c])
                    s.peak = max(s.peak, abs(v))
                    s.sumSquares += Double(v * v)
                    s.samples += 1
                }
            }
        }
        done.forEach(deliver)
    }

    private func bucket(_ s: State) -> LoudnessBucket? {
        guard s.current >= 0 else { return nil }
        return LoudnessBucket(
            index: s.current,
            start: s.start + MediaTime(seconds: Double(s.current) * s.length, preferredTimescale: 1000),
            peak: Double(s.peak) / 32768, rms: (s.sumSquares / Double(s.samples)).squareRoot() / 32768)
    }
}
