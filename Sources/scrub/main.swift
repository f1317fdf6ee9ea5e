import FFmpegBridge
import Foundation
import ScrubKit

/// `scrub`: inspect, thumbnail and scrub media files.
let version = "0.1.0"

let commands: [String: (CommandSpec, ([String]) throws -> Int32)] = [
    "info": (InfoCommand.spec, InfoCommand.run),
    "thumb": (ThumbCommand.spec, ThumbCommand.run),
    "downsample": (DownsampleCommand.spec, DownsampleCommand.run),
    "thumbs": (ThumbsCommand.spec, ThumbsCommand.run),
    "play": (PlayCommand.spec, PlayCommand.run),
    "bench": (BenchCommand.spec, BenchCommand.run),
    "cache": (CacheCommand.spec, CacheCommand.run),
]

let topHelp = """
OVERVIEW: scrub — inspect, thumbnail and scrub video and images (FFmpeg inside).

USAGE: scrub <command> [options]

COMMANDS:
  info          Report container, duration, video and audio facts (table or --json).
  thumb         Extract one thumbnail at a time (exact or fast), fitted to a max size.
  downsample    Shrink still images to a max pixel size (EXIF orientation applied).
  thumbs        Thumbnails of many files in parallel: progress bar, manifest, contact sheets, WebVTT sprites.
  play          Play and scrub a video in the terminal (kitty, iTerm2, sixel or coloured blocks).
  bench         Measure decode vs downsample time and memory (and the thumbnail cache: --cache FILE).
  cache         Show or clear the thumbnail caches.

  scrub <command> --help   shows a command's options.
  scrub --version          prints the version.
"""

@MainActor func main() -> Int32 {
    HeapMemory.returnLargeBlocksPromptly()
    var args = Array(CommandLine.arguments.dropFirst())
    // Global: --verbose shows FFmpeg's own log (hidden by default).
    if let i = args.firstIndex(of: "--verbose") {
        args.remove(at: i)
        FFmpegLog.showOnStandardError(verbose: true)
        Redaction.reveal(true)   // URLs whole, signatures and all
    }
    else { FFmpegLog.silence() }
    guard let first = args.first else { printError(topHelp); return 64 }
    if first == "--help" || first == "-h" || first == "help" { printOut(topHelp); return 0 }
    if first == "--version" { printOut("scrub \(version)"); return 0 }
    guard let (spec, run) = commands[first] else {
        printError("Error: unknown command '\(first)'\nHint: scrub --help lists the commands.")
        return 64
    }
    let rest = Array(args.dropFirst())
    if rest.contains("--help") || rest.contains("-h") { printOut(spec.helpText); return 0 }
    do {
        return try run(rest)
    } catch let e as UsageError {
        printError("Error: \(e.message)\nHint: see 'scrub \(e.command) --help'.")
        return 64
    } catch {
        printError("Error: \(error)")
        return 1
    }
}

exit(main())
