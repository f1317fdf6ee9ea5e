import FFmpegBridge
import Foundation

/// Where a player's sound goes: a stream of interleaved signed 16-bit samples that reports how long until what was
/// written is heard. Behind a protocol so tests (and other servers) can stand in for PulseAudio. Used from one thread
/// (the sound thread writes, flushes and asks the latency).
public protocol SoundOutput: AnyObject, Sendable {
    /// Queues samples, blocking while the output's buffer is full.
    func write(_ samples: [Int16]) throws
    /// Seconds between the last sample written and what is heard now; nil when unknown.
    var latency: Double? { get }
    /// Drops what is queued and not yet heard.
    func flush()
}

/// How a player plays sound.
public struct SoundOptions: Sendable {
    /// The PulseAudio server (`unix:/run/user/1000/pulse/native`, `tcp:host`); nil: `PULSE_SERVER`, else the user's.
    public var server: String?
    /// The sink to play on (PulseAudio's sink name); nil: the server's default.
    public var device: String?
    /// Which audio stream, counted from 1 in file order (mpv's `--aid`); nil: the container's default.
    public var streamNumber: Int?
    /// The output's buffer in milliseconds: how far ahead sound is queued (and how late a pause or seek is heard
    /// without a flush).
    public var bufferMilliseconds: Int
    /// Seconds the sound is shifted against the picture (mpv's `--audio-delay`): positive plays it later.
    public var offset: Double
    /// Where the sound's loudness is measured as it plays (nil: nowhere); a strip that is not scanned fills from it.
    public var meter: LoudnessMeter? = nil
    /// Opens the output for `rate` Hz and `channels` channels; throws (with a one-line reason) when there is none.
    public var open: @Sendable (_ rate: Int, _ channels: Int, _ options: SoundOptions) throws -> SoundOutput

    /// Sound on the PulseAudio server (`PULSE_SERVER`, else the user's; PipeWire desktops serve the same protocol).
    public init(
        server: String? = nil, device: String? = nil, streamNumber: Int? = nil, bufferMilliseconds: Int = 150,
        offset: Double = 0,
        open: @escaping @Sendable (_ rate: Int, _ channels: Int, _ options: SoundOptions) throws -> SoundOutput =
            SoundOptions.pulseAudio
    ) {
        self.server = server
        self.device = device
        self.streamNumber = streamNumber
        self.bufferMilliseconds = bufferMilliseconds
        self.offset = offset
        self.open = open
    }

    /// Opens a PulseAudio playback stream (libpulse is loaded now, not at start-up).
    public static func pulseAudio(rate: Int, channels: Int, options: SoundOptions) throws -> SoundOutput {
        do {
            return PulseSoundOutput(
                try PulseOutput(
                    server: options.server, appName: "scrubkit", device: options.device, rate: rate, channels: channels,
                    bufferMilliseconds: options.bufferMilliseconds))
        } catch let e as PulseOutput.Unavailable {
            throw SoundUnavailable(description: "no sound server: \(e.description)")
        }
    }
}

/// PulseAudio through the bridge.
final class PulseSoundOutput: SoundOutput, @unchecked Sendable {   // unchecked: used by the one sound thread only
    private let stream: PulseOutput
    init(_ stream: PulseOutput) { self.stream = stream }
    func write(_ samples: [Int16]) throws { try stream.write(samples) }
    var latency: Double? { stream.latency }
    func flush() { stream.flush() }
}

/// How sound plays at rates other than 1 (AVFoundation's `AVAudioTimePitchAlgorithm`).
public enum AudioTimePitchAlgorithm: Sendable, Equatable {
    /// Pitch kept: time-domain stretching (libavfilter's `atempo`), like mpv's default. The default.
    case timeDomain
    /// Pitch follows the speed, like a tape played faster or slower (resampled).
    case varispeed
}

/// Why a sound output could not be opened, in one line.
public struct SoundUnavailable: Error, Sendable, CustomStringConvertible {
    /// The reason ("no sound server: Connection refused").
    public var description: String
    /// An error saying `description`.
    public init(description: String) { self.description = description }
}

/// What the player's sound is doing, for a status line.
public struct SoundStatus: Sendable, Equatable {
    /// Sound is coming out (or will, once playing).
    public var isAvailable: Bool
    /// Why there is no sound (no audio stream, no server, a damaged stream), one line; nil when there is.
    public var problem: String?
    /// Volume, 0…1.
    public var volume: Double
    /// Muted.
    public var isMuted: Bool
    /// Which audio stream plays, counted from 1.
    public var streamNumber = 1
    /// How many audio streams the file has (0 before it is known).
    public var streamCount = 0

    /// No sound, for `problem`.
    public static func silent(_ problem: String?) -> SoundStatus {
        SoundStatus(isAvailable: false, problem: problem, volume: 1, isMuted: false)
    }
}
