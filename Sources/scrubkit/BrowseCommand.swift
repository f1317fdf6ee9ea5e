import Foundation
import ScrubKit
import ScrubTerminal

/// `scrubkit browse [DIR|FILE…]`
enum BrowseCommand {
    static let spec = CommandSpec(
        name: "browse",
        abstract:
            "Browse a folder of videos as a live grid of thumbnails in the terminal: previews that move, scrubbing by "
                + "hover, Enter to play.",
        forms: ["[DIR|FILE…]", "--bench DIR"],
        options: [
            PlayCommand.spec.options.first { $0.names == ["--graphics"] }!,
            OptionSpec(
                names: ["--recursive"], takesValue: false,
                help: "Every playable file under the folder, as one grid (no folder tiles)."),
            OptionSpec(
                names: ["--tile-size"], takesValue: true, valueName: "PIXELS",
                help: "About how wide a tile is (default 192; half blocks: 22 cells).", range: 48...1024, whole: true),
            OptionSpec(
                names: ["--no-previews"], takesValue: false,
                help: "Tiles keep their still: no moving preview on the selected tile."),
            OptionSpec(
                names: ["--no-cache"], takesValue: false,
                help: "Neither read nor fill the caches (scrubkit's and the desktop's): every tile made now."),
        ] + PlayCommand.spec.options.filter { PlayCommand.sharedOptionNames.contains($0.names.last!) } + [
            OptionSpec(
                names: ["--bench"], takesValue: false,
                help:
                    "Headless benchmark: time to the first screen of tiles, memory while paging through the whole "
                        + "folder, and pointer move → picture while scrubbing a tile; as one JSON object.",
                form: 1),
            OptionSpec(
                names: ["--size"], takesValue: true, valueName: "COLSxROWS",
                help: "With --bench: terminal size (default 160x48, cells of 10x20 pixels).", form: 1),
            OptionSpec(
                names: ["--scrub-file"], takesValue: true, valueName: "FILE",
                help: "With --bench: the file scrubbed by hover (default: the first tile's).", form: 1),
        ],
        discussion: """
        Tiles show each file's thumbnail, name and length, as many as fit the window; subfolders are tiles too. Pictures
        come from the desktop's thumbnail cache (~/.cache/thumbnails: files a file manager has seen are instant) and are
        made on every core when missing — the tiles on screen first, then the next screen — and stored there.
        Keys: arrows or h/j/k/l move · PgUp/PgDn a screen · Home/End (g/G) · Enter plays the file (the grid's files \
        are
        the playlist: < and > in the player move through them; q returns to the grid on the file last played) or opens
        the folder · Backspace goes up · / filters by name as you type (Enter keeps it, Esc clears it) · o order: \
        name,
        date, size, length · i the file's info · Ctrl-Z suspend · q or Esc quit.
        Mouse: moving across a tile scrubs through its video (the time follows the pointer); a click selects, a click on
        the selected tile opens it; the wheel scrolls. Resting on a tile plays its preview in place (excerpts of
        different scenes, as scrubkit preview makes them).
        The player options (--exact, --no-audio, --audio-device…) apply to the files played from the grid.
        """,
        operands: .media,
        examples: [
            Example(title: "Browse the videos in this folder", command: "scrubkit browse"),
            Example(title: "Every video under a folder, as one grid", command: "scrubkit browse ~/Videos --recursive"),
            Example(title: "Measure the first screen of a big folder", command: "scrubkit browse --bench ~/Videos"),
        ])

    static func run(_ args: [String]) throws -> Int32 {
        let p = try ParsedArguments(args, spec: spec)
        var options = BrowseApp.Options()
        options.graphics = try PlayCommand.graphics(p, command: "browse")
        options.recursive = p.flag("--recursive")
        options.tilePixels = try p.int("--tile-size") ?? options.tilePixels
        options.movingPreviews = !p.flag("--no-previews")
        if !p.flag("--no-cache") {
            options.cache = CommandCache.files
            options.desktop = CommandCache.desktop
        }
        options.player = try PlayCommand.playerOptions(p, command: "browse")
        options.player.graphics = options.graphics
        options.describe = { path in
            InfoCommand.table(MediaInspector(verifiesDecoding: false).inspect(path: path)).split(separator: "\n").map(
                String.init)
        }
        let operands = p.positional.isEmpty ? ["."] : p.positional
        if p.flag("--bench") { return try bench(operands, p, options) }
        let app: BrowseApp
        do {
            app = try browser(operands, options)
        } catch {
            printError("scrubkit: \(error)")
            return 1
        }
        do {
            let status = try app.run()
            for line in app.failures { printError(line) }
            return status
        } catch {
            printError("scrubkit: \(error)")
            return 1
        }
    }

    /// The grid of one folder, or of the files (and folders) named.
    static func browser(_ operands: [String], _ options: BrowseApp.Options) throws -> BrowseApp {
        var isFolder: ObjCBool = false
        if operands.count == 1, FileManager.default.fileExists(atPath: operands[0], isDirectory: &isFolder),
            isFolder.boolValue
        {
            return try BrowseApp(folder: operands[0], options: options)
        }
        for path in operands where !FileManager.default.fileExists(atPath: path) {
            throw MediaError(.notFound, path: path, "no such file or folder")
        }
        return BrowseApp(paths: operands, options: options)
    }

    static func bench(_ operands: [String], _ p: ParsedArguments, _ options: BrowseApp.Options) throws -> Int32 {
        let (cols, rows) = try PlayCommand.benchSize(p, minimumRows: 5, command: "browse")
        guard operands.count == 1 else { throw UsageError(message: "--bench measures one folder", command: "browse") }
        do {
            let report = try BrowseBenchmark.run(
                folder: operands[0], columns: cols, rows: rows, options: options, scrubFile: p.value("--scrub-file"))
            printOut(report.json)
            return 0
        } catch {
            printError("scrubkit: \(error)")
            return 1
        }
    }
}
