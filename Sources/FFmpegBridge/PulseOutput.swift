import CPulse

/// A playback stream on the PulseAudio (or pipewire-pulse) server: interleaved signed 16-bit samples in, latency out.
/// libpulse is loaded when the first stream opens. Not thread-safe: one owner (the player's sound thread).
public final class PulseOutput {
    private let stream: OpaquePointer
    /// Samples per second.
    public let rate: Int
    /// Channels.
    public let channels: Int

    /// Why a stream could not be opened: no client library, no server, a refused device.
    public struct Unavailable: Error, Sendable, CustomStringConvertible {
        /// The server's or the loader's reason.
        public var description: String
    }

    /// Connects to `server` (nil: `PULSE_SERVER`, else the user's server) and opens a stream on `device` (nil: the
    /// default sink) buffering about `bufferMilliseconds`.
    public init(
        server: String? = nil, appName: String, device: String?, rate: Int, channels: Int, bufferMilliseconds: Int
    ) throws {
        var error = [CChar](repeating: 0, count: 256)
        guard
            let s = scrub_pulse_open(
                server, appName, device, Int32(rate), Int32(channels), Int32(bufferMilliseconds), &error, error.count)
        else {
            throw Unavailable(
                description: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        stream = s
        self.rate = rate
        self.channels = channels
    }

    deinit { scrub_pulse_close(stream) }

    /// Where PulseAudio's client library is installed, found without loading it; nil when it is not.
    public static var libraryPath: String? {
        var path = [CChar](repeating: 0, count: 1024)
        guard scrub_pulse_library_path(&path, path.count) != nil else { return nil }
        return String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Queues `samples`, blocking while the server's buffer is full.
    public func write(_ samples: [Int16]) throws {
        var error = [CChar](repeating: 0, count: 256)
        let r = samples.withUnsafeBufferPointer {
            scrub_pulse_write(stream, $0.baseAddress, $0.count * 2, &error, error.count)
        }
        if r < 0 {
            throw Unavailable(
                description: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// Seconds from the last sample written to what is heard now; nil when the server does not say.
    public var latency: Double? {
        let us = scrub_pulse_latency_usec(stream)
        return us < 0 ? nil : Double(us) / 1_000_000
    }

    /// Drops what is queued and not yet heard.
    public func flush() { scrub_pulse_flush(stream) }
}
