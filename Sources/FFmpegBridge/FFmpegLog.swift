import CFFmpeg
import Glibc

/// Process memory housekeeping.
public enum HeapMemory {
    /// Hands freed heap pages back to the system (after a large decode in a long-lived process).
    public static func releaseFreedMemory() { scrub_release_free_memory() }

    /// Process-wide policy for a media tool: large blocks (frames, pictures) are mapped on their own and given back
    /// when freed, instead of staying in the heap (about 2 MiB less peak for one 1080p thumbnail).
    public static func returnLargeBlocksPromptly() { scrub_return_large_blocks_promptly() }
}

/// FFmpeg's own log. Hidden by default (it is noisy on damaged files); `--verbose` routes it to stderr.
/// Choosing where it goes does not load FFmpeg: the setting is applied when FFmpeg is first used.
public enum FFmpegLog {
    /// Silences FFmpeg's log entirely (the default).
    public static func silence() {
        scrub_set_log_sink(nil, AV_LOG_QUIET)
    }

    /// Sends FFmpeg's log lines, at `verbose` level and above in importance, to standard error.
    public static func showOnStandardError(verbose: Bool = false) {
        scrub_set_log_sink({ _, line in
            guard let line else { return }
            // fd 2 directly: the C stderr stream is not concurrency-safe under Swift 6.
            _ = write(2, line, strlen(line))
        }, verbose ? AV_LOG_VERBOSE : AV_LOG_WARNING)
    }
}
