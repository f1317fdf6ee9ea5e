import CFFmpeg
import Glibc
import Synchronization

/// Process memory housekeeping.
public enum HeapMemory {
    /// Hands freed heap pages back to the system (after a large decode in a long-lived process).
    public static func releaseFreedMemory() { scrub_release_free_memory() }
}

/// FFmpeg's own log. Hidden by default (it is noisy on damaged files); `--verbose` routes it to stderr.
public enum FFmpegLog {
    /// Silences FFmpeg's log entirely.
    public static func silence() {
        configured.withLock { $0 = true }
        scrub_set_log_sink(nil, AV_LOG_QUIET)
    }

    private static let configured = Mutex(false)

    /// Called before any FFmpeg work: silences the log unless someone chose otherwise.
    static func applyDefault() {
        let first = configured.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { scrub_set_log_sink(nil, AV_LOG_QUIET) }
    }

    /// Sends FFmpeg's log lines, at `verbose` level and above in importance, to standard error.
    public static func showOnStandardError(verbose: Bool = false) {
        configured.withLock { $0 = true }
        scrub_set_log_sink({ _, line in
            guard let line else { return }
            // fd 2 directly: the C stderr stream is not concurrency-safe under Swift 6.
            _ = write(2, line, strlen(line))
        }, verbose ? AV_LOG_VERBOSE : AV_LOG_WARNING)
    }
}
