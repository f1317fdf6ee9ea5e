import CFFmpeg

/// Plays interleaved signed 16-bit sound faster or slower with its pitch kept: libavfilter's `atempo` (WSOLA), as
/// mpv's default `scaletempo2` does for its speed keys. Owns one filter graph; not thread-safe.
public final class TempoFilter {
    /// How many times as fast the sound plays (0.25…4).
    public let tempo: Double
    private let channels: Int
    private let filter: UnsafeMutablePointer<scrub_tempo>

    /// Whether libavfilter can be loaded here (checked once, without ending the process when it is missing: the
    /// lazy loader would).
    public static let isAvailable = LibraryVersions.ffmpeg().contains { $0.name == "libavfilter" && $0.found != nil }

    /// A filter for `channels` channels (1 or 2) at `rate` Hz playing `tempo` times as fast; throws when libavfilter
    /// is missing or refuses.
    public init(rate: Int, channels: Int, tempo: Double) throws {
        guard TempoFilter.isAvailable else {
            throw FFmpegError(operation: "atempo", message: "libavfilter is not installed")
        }
        guard let f = scrub_tempo_new(Int32(rate), Int32(channels), tempo) else {
            throw FFmpegError(
                operation: "atempo", message: "libavfilter cannot play \(channels)-channel sound at \(tempo)×")
        }
        self.filter = f
        self.tempo = tempo
        self.channels = channels
    }

    deinit { scrub_tempo_free(filter) }

    /// Feeds `samples` (interleaved; empty: the end, so what the filter holds comes out) and returns what comes out
    /// now: about `samples.count / tempo` samples over time (the filter holds a window of a few tens of ms back).
    public func process(_ samples: [Int16]) throws -> [Int16] {
        let r = samples.isEmpty
            ? scrub_tempo_push(filter, nil, 0)
            : samples.withUnsafeBufferPointer { scrub_tempo_push(filter, $0.baseAddress, Int32($0.count / channels)) }
        if r < 0 && r != scrub_averror_eof() { throw FFmpegError(r, "atempo") }
        var out: [Int16] = []
        while true {
            var pointer: UnsafePointer<Int16>? = nil
            let n = scrub_tempo_pull(filter, &pointer)
            if n == scrub_averror_eof() || n == 0 { break }
            if n < 0 { throw FFmpegError(n, "atempo") }
            guard let pointer else { break }
            out.append(contentsOf: UnsafeBufferPointer(start: pointer, count: Int(n) * channels))
        }
        return out
    }
}
