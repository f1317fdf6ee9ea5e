import CFFmpeg
import Foundation
import Locking

/// Remote sources: what counts as a URL, the network's one-time set-up, and the deadline a URL is given.
extension Demuxer {
    /// Whether `path` names a remote resource (HTTP or HTTPS, HLS playlists included) rather than a local file.
    public static func isURL(_ path: String) -> Bool {
        let p = path.prefix(8).lowercased()
        return p.hasPrefix("http://") || p.hasPrefix("https://")
    }

    /// How long a URL may keep a caller waiting with no answer, in seconds: the whole open (connecting, reconnects,
    /// probing) and each read or seek after it. Process-wide; the default is `SCRUBKIT_TIMEOUT` from the environment,
    /// else ``defaultNetworkTimeout``.
    public static var networkTimeout: Double {
        get { timeoutSetting.withLock { $0 } }
        set { timeoutSetting.withLock { $0 = newValue > 0 && newValue.isFinite ? newValue : defaultNetworkTimeout } }
    }

    /// The network timeout unless `SCRUBKIT_TIMEOUT` says otherwise.
    public static let defaultNetworkTimeout = 20.0

    fileprivate static let timeoutSetting = Locked<Double>({
        let text = ProcessInfo.processInfo.environment["SCRUBKIT_TIMEOUT"] ?? ""
        if let s = Double(text), s > 0, s.isFinite { return s }
        return defaultNetworkTimeout
    }())

    /// A URL gave no answer within ``networkTimeout``: how long was waited in all and how many attempts to connect
    /// were made (this demuxer's and FFmpeg's reconnects meanwhile).
    public struct TimedOut: Error, Sendable {
        /// Seconds waited, reconnects and back-off included.
        public var seconds: Double
        /// Attempts to connect.
        public var attempts: Int

        /// A timeout after `seconds` and `attempts`.
        public init(seconds: Double, attempts: Int) {
            self.seconds = seconds
            self.attempts = attempts
        }
    }

    /// A URL's connection broke while opening (reset, closed, an I/O error — not a timeout): worth another attempt
    /// if time is left. `failure` is what to report when none is made.
    public struct ConnectionBroken: Error, Sendable {
        /// FFmpeg's error for this attempt.
        public var failure: FFmpegError

        /// A broken connection that failed with `failure`.
        public init(failure: FFmpegError) { self.failure = failure }
    }

    /// What ends a blocked read or seek of this remote source at once, from another thread (nil for a file): the
    /// operation throws ``TimedOut``. Valid while the demuxer lives: the caller makes sure of that (a player's reader
    /// uses it only while its own thread is inside a read).
    public var interrupter: ReadInterrupter? { deadline.map(ReadInterrupter.init) }

    /// Monotonic seconds (FFmpeg's clock, as the interrupt deadline's).
    static func now() -> Double { Double(av_gettime_relative()) / 1_000_000 }

    /// FFmpeg's network (and TLS) set-up, once per process.
    private static let networkInitialised: Bool = { avformat_network_init() >= 0 }()
    static func networkReady() { _ = networkInitialised }

    /// Whether a URL names an HLS playlist (`.m3u8`/`.m3u`, before any query string).
    static func isPlaylist(_ path: String) -> Bool {
        let bare = (path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path).lowercased()
        return bare.hasSuffix(".m3u8") || bare.hasSuffix(".m3u")
    }
}

/// Ends a remote demuxer's blocked read or seek at once (its interrupt deadline set to now; the next operation arms
/// its own again). Safe from any thread while the demuxer lives.
public final class ReadInterrupter: @unchecked Sendable {   // unchecked: the deadline is written with an atomic store
    private let deadline: UnsafeMutablePointer<scrub_deadline>

    init(_ deadline: UnsafeMutablePointer<scrub_deadline>) { self.deadline = deadline }

    /// Ends the operation in progress (the demuxer's thread sees its deadline passed).
    public func interrupt() { scrub_deadline_set(deadline, 1e-6) }
}
