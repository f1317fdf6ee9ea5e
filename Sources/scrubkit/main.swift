import Foundation
import ScrubKit

/// `scrubkit`: inspect, thumbnail and scrub media files. The commands are listed in Commands.swift.

@MainActor func main() -> Int32 {
    ProcessSetup.returnLargeBlocksPromptly()
    var args = Array(CommandLine.arguments.dropFirst())
    do {
        let globals = try takeGlobalOptions(&args)
        // --verbose shows FFmpeg's own log (hidden by default) and URLs whole, signatures and all.
        ProcessSetup.showFFmpegLog(globals.flag("--verbose"), verbose: globals.flag("--verbose"))
        Redaction.reveal(globals.flag("--verbose"))
        // --timeout bounds the wait on a server that does not answer (SCRUBKIT_TIMEOUT, else the default).
        if let seconds = try globals.number("--timeout") { ProcessSetup.networkTimeout = seconds }
    } catch {
        printError("Error: \(error)\nHint: scrubkit --help lists the global options.")
        return 64
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

// Signals first, before any thread starts (each inherits their blocking): every command ends on SIGHUP, SIGINT,
// SIGQUIT and SIGTERM with its temporary files removed and the terminal put back, exit status 128 + the signal.
ProcessSignals.takeOver()
exit(main())
