import FFmpegBridge

/// Process-wide settings a program using ScrubKit makes once, at start. Neither loads FFmpeg: they are applied when
/// FFmpeg is first used.
public enum ProcessSetup {
    /// A media tool's memory policy: large blocks (frames, pictures) are mapped on their own and given back when freed,
    /// instead of staying in the heap (about 2 MiB less peak for one 1080p thumbnail).
    public static func returnLargeBlocksPromptly() { HeapMemory.returnLargeBlocksPromptly() }

    /// The network timeout when neither `SCRUBKIT_TIMEOUT` nor the caller says otherwise, in seconds.
    public static var defaultNetworkTimeout: Double { Demuxer.defaultNetworkTimeout }

    /// How long a URL may keep ScrubKit waiting with no answer, in seconds: the whole open (connecting, reconnects,
    /// probing) and each read or seek after it. The default is `SCRUBKIT_TIMEOUT` from the environment, else
    /// ``defaultNetworkTimeout``.
    public static var networkTimeout: Double {
        get { Demuxer.networkTimeout }
        set { Demuxer.networkTimeout = newValue }
    }

    /// FFmpeg's own log: hidden (the default: it is noisy on damaged files, and ScrubKit reports errors itself), or
    /// sent to standard error from the warning level (`verbose`: the verbose level) up.
    public static func showFFmpegLog(_ show: Bool, verbose: Bool = false) {
        if show { FFmpegLog.showOnStandardError(verbose: verbose) } else { FFmpegLog.silence() }
    }
}
