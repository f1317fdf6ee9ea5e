import Foundation
import ScrubKit

/// `scrubkit cache [--clear] [--json]`: where the caches are, what they hold, and emptying scrubkit's.
enum CacheCommand {
    static let spec = CommandSpec(
        name: "cache",
        abstract:
            "Show the thumbnail caches (scrubkit's and the desktop's): locations, entries, size; --clear empties "
                + "scrubkit's.",
        forms: [""],
        options: [
            OptionSpec(
                names: ["--clear"], takesValue: false,
                help: "Delete every entry of scrubkit's cache ($XDG_CACHE_HOME/scrubkit)."),
            OptionSpec(
                names: ["--clear-desktop"], takesValue: false,
                help: "Also delete the desktop's thumbnails (freedesktop.org cache: every program's)."),
            OptionSpec(names: ["--json"], takesValue: false, help: "One JSON object instead of the table."),
        ],
        discussion: """
        scrubkit's cache keeps thumbnails made with --cache (at most 512 MiB, least recently used removed first); the
        desktop's ($XDG_CACHE_HOME/thumbnails) is shared by file managers and holds one thumbnail per file and size.
        """,
        operands: .nothing,
        examples: [
            Example(title: "Where the caches are and what they hold", command: "scrubkit cache"),
            Example(title: "Empty scrubkit's cache", command: "scrubkit cache --clear"),
        ],
        operandCount: 0...0)

    static func run(_ args: [String]) throws -> Int32 {
        let p = try ParsedArguments(args, spec: spec)
        let disk = CommandCache.files.disk!
        if p.flag("--clear") || p.flag("--clear-desktop") { disk.removeAll() }
        let desktop = CommandCache.desktop.desktop
        if p.flag("--clear-desktop") {
            for f in DesktopThumbnails.Flavor.allCases {
                try? FileManager.default.removeItem(atPath: desktop.root + "/" + f.directoryName)
            }
            try? FileManager.default.removeItem(atPath: desktop.root + "/fail/" + desktop.failureDirectoryName)
        }
        let usage = disk.usage()
        var flavors: [(String, Int)] = []
        for f in DesktopThumbnails.Flavor.allCases {
            let n = ((try? FileManager.default.contentsOfDirectory(atPath: desktop.root + "/" + f.directoryName)) ?? [])
                .filter { $0.hasSuffix(".png") }.count
            flavors.append((f.directoryName, n))
        }
        if p.flag("--json") {
            printOut(JSON.object([
                ("directory", .string(disk.directory)), ("entries", .int(usage.entries)), ("bytes", .int(usage.bytes)),
                ("budget", .int(disk.budget)), ("desktop", .string(desktop.root)),
                ("desktopThumbnails", .object(flavors.map { ($0.0, .int($0.1)) })),
            ]).text)
        } else {
            printOut("scrubkit's cache \(disk.directory)")
            printOut(
                "  entries        \(usage.entries), \(String(format: "%.1f", Double(usage.bytes) / 1_048_576)) MiB of "
                    + "\(disk.budget >> 20) MiB"
            )
            printOut("desktop cache    \(desktop.root)")
            printOut("  thumbnails     " + flavors.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
        }
        return 0
    }
}
