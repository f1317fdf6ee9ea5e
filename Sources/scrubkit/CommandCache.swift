import ScrubKit

/// The caches `--cache` uses: scrubkit's own (`$XDG_CACHE_HOME/scrubkit`, disk only: one command is one process) and
/// the desktop's freedesktop.org cache. Trouble with either is one warning line on standard error.
enum CommandCache {
    static let warn: @Sendable (String) -> Void = { printError("scrubkit: warning: \($0)") }

    static let files = ThumbnailCache(memoryBudget: 0, directory: ThumbnailCache.defaultDirectory, warn: warn)

    static let desktop = DesktopThumbnailer(
        desktop: DesktopThumbnails(application: "scrubkit-\(version)"), software: "scrubkit \(version)", warn: warn)
}
