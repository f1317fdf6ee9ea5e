import Foundation
import ScrubKit
import Locking

/// Progress of a batch on standard error: on a terminal, one redrawing bar (files done/total, thumbnails, rate,
/// ETA, current file, errors), with failures printed above it; off a terminal, one plain line per file and no
/// escape codes. Quiet: only failures, one plain line each. Thread-safe.
public final class BatchProgress: Sendable {
    private struct State {
        var total: Int
        var done = 0
        var thumbnails = 0
        var failed = 0
        var current: [String] = []
        var lastDraw = 0.0
    }

    private let state: Locked<State>
    private let fd: Int32
    private let interactive: Bool
    private let color: Bool
    private let quiet: Bool
    private let clock: MediaClock
    private let started: Double
    /// What a signal ending the batch does: the bar cleared, a line saying how far it got.
    private let ending: ProcessSignals.Registration

    /// Progress of `total` files on `fd`: a redrawing bar on a terminal, plain lines otherwise, only failures when
    /// `quiet`, timed on `clock`.
    public init(total: Int, quiet: Bool, fd: Int32 = 2, clock: MediaClock = SystemClock()) {
        state = Locked(State(total: total))
        self.clock = clock
        started = clock.now()
        self.fd = fd
        self.quiet = quiet
        interactive = TerminalOutput.isTerminal(fd)
        color = TerminalOutput.colorAllowed(fd)
        ending = ProcessSignals.atExit { [state, fd, interactive, quiet] in
            guard !quiet else { return }
            let (done, total) = state.withLock { ($0.done, $0.total) }
            let by = ProcessSignals.endingSignal.map(ProcessSignals.name(of:)) ?? "a signal"
            let line = "stopped by \(by) after \(done) of \(total) files\n"
            TerminalOutput.write((interactive ? "\r\u{1B}[2K" : "") + line, to: fd)
        }
    }

    deinit { ending.cancel() }

    /// A file has started (shown as the current file).
    public func started(_ source: String) {
        guard !quiet else { return }
        state.withLock { s in
            s.current.append(source)
            if interactive { drawBar(&s) }
        }
    }

    /// A file is done: counts, rate, ETA and its errors.
    public func finished(_ r: BatchFileResult) {
        state.withLock { s in
            s.done += 1
            s.thumbnails += r.records.count
            if r.failed { s.failed += 1 }
            if let i = s.current.firstIndex(of: r.source) { s.current.remove(at: i) }
            // Quiet hides progress, never failures: one plain line each.
            guard !quiet else {
                if r.failed { TerminalOutput.write(BatchProgress.line(r, done: s.done, total: s.total) + "\n", to: fd) }
                return
            }
            let line = BatchProgress.line(r, done: s.done, total: s.total)
            if interactive {
                if r.failed {
                    let red = color ? "\u{1B}[31m" : "", reset = color ? "\u{1B}[0m" : ""
                    TerminalOutput.write("\r\u{1B}[2K\(red)\(line)\(reset)\n", to: fd)
                }
                drawBar(&s)
            } else {
                TerminalOutput.write(line + "\n", to: fd)
            }
        }
    }

    /// Clears the bar and prints the summary line.
    public func finish() {
        ending.cancel()
        state.withLock { s in
            guard !quiet else { return }
            if interactive { TerminalOutput.write("\r\u{1B}[2K", to: fd) }
            let secs = clock.now() - started
            TerminalOutput.write(
                "\(s.done) file\(s.done == 1 ? "" : "s"), \(s.thumbnails) thumbnail\(s.thumbnails == 1 ? "" : "s"), "
                    + "\(s.failed) failed, \(String(format: "%.2f", secs)) s\n",
                to: fd)
        }
    }

    /// The plain per-file line.
    static func line(_ r: BatchFileResult, done: Int, total: Int) -> String {
        let name = (Redaction.display(r.source) as NSString).lastPathComponent
        var text = "[\(done)/\(total)] \(name): "
        if r.resumed { return text + "\(r.records.count) thumbnails (already done)" }
        if r.cached { return text + "\(r.records.count) thumbnail\(r.records.count == 1 ? "" : "s") (from the cache)" }
        text +=
            "\(r.records.count) thumbnail\(r.records.count == 1 ? "" : "s") in \(String(format: "%.2f", r.seconds)) s"
        if let e = r.errors.first {
            text +=
                r.records.isEmpty ? " — FAILED: \(e.error.reason)" : " — \(r.errors.count) failed: "
                    + "\(e.error.reason)"
        }
        return text
    }

    private func drawBar(_ s: inout State) {
        let cols = TerminalOutput.size(fd)?.columns ?? 80
        let elapsed = clock.now() - started
        let rate = elapsed > 0 ? Double(s.thumbnails) / elapsed : 0
        let eta: String
        if s.done > 0 && s.done < s.total {
            let remaining = elapsed / Double(s.done) * Double(s.total - s.done)
            eta = " ETA " + BatchProgress.clock(remaining)
        } else { eta = "" }
        let current = s.current.last.map { "  " + (Redaction.display($0) as NSString).lastPathComponent } ?? ""
        let errors = s.failed > 0 ? "  \(s.failed) error\(s.failed == 1 ? "" : "s")" : ""
        let info =
            " \(s.done)/\(s.total) files  \(s.thumbnails) thumbs  "
                + "\(String(format: "%.1f", rate))/s\(eta)\(errors)\(current)"
        let barWidth = max(10, min(30, cols - 40))
        let filled = s.total > 0 ? barWidth * s.done / s.total : 0
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
        var text = "[\(bar)]" + info
        if text.count > cols - 1 { text = String(text.prefix(cols - 1)) }
        TerminalOutput.write("\r\u{1B}[2K" + text, to: fd)
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600
            ? String(format: "%d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60)
            : String(format: "%d:%02d", s / 60, s % 60)
    }
}
