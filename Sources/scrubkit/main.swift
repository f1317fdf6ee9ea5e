import Foundation
import ScrubKit

/// `scrubkit`: inspect, thumbnail and scrub media files. The commands are listed in Commands.swift.

@MainActor func main() -> Int32 {
    ProcessSetup.returnLargeBlocksPromptly()
    var args = Array(CommandLine.arguments.dropFirst())
    // Global: --verbose shows FFmpeg's own log (hidden by default).
    if let i = args.firstIndex(of: "--verbose") {
        args.remove(at: i)
        ProcessSetup.showFFmpegLog(true, verbose: true)
        Redaction.reveal(true)   // URLs whole, signatures and all
    }
    else { ProcessSetup.showFFmpegLog(false) }
    // Global: --timeout SECONDS bounds the wait on a server that does not answer (SCRUBKIT_TIMEOUT, else 20 s).
    if let i = args.firstIndex(of: "--timeout") {
        guard i + 1 < args.count, let seconds = Double(args[i + 1]), seconds > 0, seconds <= 3600 else {
            printError("Error: --timeout expects seconds between 0 and 3600\nHint: scrubkit --help lists the global options.")
            return 64
        }
        ProcessSetup.networkTimeout = seconds
        args.removeSubrange(i...(i + 1))
    }
    guard let first = args.first else { printError(topHelp); return 64 }
    if first == "--help" || first == "-h" || first == "help" { printOut(topHelp); return 0 }
    if first == "--version" {
        let extra = args.dropFirst()
        guard extra.allSatisfy({ $0 == "--json" }) else {
            printError("Error: --version takes only --json\nHint: scrubkit --help lists the commands.")
            return 64
        }
        return VersionReport.print(json: !extra.isEmpty)
    }
    guard let command = subcommand(named: first) else {
        printError("Error: unknown command '\(first)'\nHint: scrubkit --help lists the commands.")
        return 64
    }
    let rest = Array(args.dropFirst())
    if rest.contains("--help") || rest.contains("-h") { printOut(command.spec.helpText); return 0 }
    do {
        return try command.run(rest)
    } catch let e as UsageError {
        printError("Error: \(e.message)\nHint: see 'scrubkit \(e.command) --help'.")
        return 64
    } catch {
        printError("Error: \(error)")
        return 1
    }
}

exit(main())
