import Foundation
import Locking

/// The one place a program on ScrubKit takes signals, as a program that runs for long should: hang-up (the terminal
/// closed, the SSH connection dropped, `tmux kill-server`), Ctrl-C, Ctrl-\ and `kill` end it within a second in
/// whatever state it is — temporary files removed, the terminal put back by what registered for it
/// (``atExit(_:)``), exit status 128 + the signal's number — and SIGWINCH calls what registered with
/// ``onResize(_:)``.
///
/// ``takeOver()`` blocks these signals in the thread that calls it, before any other thread exists, so that every
/// thread started later has them blocked too, and one thread (`scrubkit.signal`) takes them with `sigwait`. No
/// handler runs inside another thread's system call (nothing is interrupted with `EINTR`), and nothing changes them
/// afterwards (a nested screen has nothing to put back). A hang-up ignored when the program started (`nohup`) stays
/// ignored: the user asked to outlive the terminal. SIGINT and SIGQUIT, which a script's shell ignores for every
/// background job on its own, are taken all the same, as mpv and ffmpeg take them (`scrubkit thumbs … & kill -INT $!`
/// ends the batch).
public enum ProcessSignals {
    /// The signals that end the program.
    public static let ending: [Int32] = [SIGHUP, SIGINT, SIGQUIT, SIGTERM]

    /// A registration; ``cancel()`` removes it (what registered has ended).
    public struct Registration: Sendable, Hashable {
        let id: Int
        /// Removes the registration.
        public func cancel() {
            state.withLock { s in
                s.cleanups.removeAll { $0.id == id }
                s.resizes.removeAll { $0.id == id }
            }
        }
    }

    private struct Entry {
        let id: Int
        let body: @Sendable () -> Void
    }

    private struct State {
        var taken = false
        var nextID = 0
        var cleanups: [Entry] = []
        var resizes: [Entry] = []
        /// The signal ending the program, once one came.
        var ending: Int32? = nil
    }
    private static let state = Locked(State())

    /// How long the clean-up may take before the program ends anyway (a terminal that no longer reads, a lock held by
    /// a thread stuck in a write): the whole end stays within a second.
    static let cleanupLimit = 0.8

    /// Takes the ending signals and SIGWINCH for the rest of the program's life. Call it first in `main`, before any
    /// thread is started; later calls do nothing.
    public static func takeOver() {
        let first = state.withLock { s -> Bool in
            defer { s.taken = true }
            return !s.taken
        }
        guard first else { return }
        let ignored = ignoredAtStart()
        var set = sigset_t()
        sigemptyset(&set)
        for sig in ending + [SIGWINCH] where sig != SIGHUP || !ignored.contains(sig) {
            sigaddset(&set, sig)
            // (Blocked, it waits for `sigwait` whatever its disposition; the default is what a child inherits.)
            if ignored.contains(sig) { signal(sig, SIG_DFL) }
        }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        NamedThread.start("scrubkit.signal") { [set] in wait(on: set) }
    }

    /// Whether ``takeOver()`` was called: signals end the program through ``atExit(_:)``.
    public static var isTakenOver: Bool { state.withLock { $0.taken } }

    /// Runs `cleanup` when a signal ends the program (the newest registration first, on the signal thread, while the
    /// program's other threads still run: it must not wait for them). Returns its registration.
    public static func atExit(_ cleanup: @escaping @Sendable () -> Void) -> Registration {
        state.withLock { s in
            s.nextID += 1
            s.cleanups.append(Entry(id: s.nextID, body: cleanup))
            return Registration(id: s.nextID)
        }
    }

    /// Calls `handler` (on the signal thread) each time the terminal's window changes size. Returns its registration.
    public static func onResize(_ handler: @escaping @Sendable () -> Void) -> Registration {
        state.withLock { s in
            s.nextID += 1
            s.resizes.append(Entry(id: s.nextID, body: handler))
            return Registration(id: s.nextID)
        }
    }

    /// The signal ending the program, once one has come (a loop may stop starting new work).
    public static var endingSignal: Int32? { state.withLock { $0.ending } }

    /// The name of an ending signal (`SIGTERM`), or its number.
    public static func name(of signal: Int32) -> String {
        [SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGTERM: "SIGTERM"][signal] ?? "signal \(signal)"
    }

    /// The exit status a program ended by `signal` gives: 128 + its number, as a shell reports it.
    public static func exitStatus(for signal: Int32) -> Int32 { 128 + signal }

    // MARK: - The signal thread

    private static func wait(on set: sigset_t) {
        var set = set
        while true {
            var sig: Int32 = 0
            guard sigwait(&set, &sig) == 0 else { continue }
            if sig == SIGWINCH {
                for r in state.withLock({ $0.resizes }) { r.body() }
                continue
            }
            end(by: sig)
        }
    }

    /// Ends the program for `sig`: temporary files removed, the clean-ups run (newest first), standard output flushed,
    /// exit status 128 + `sig` — within ``cleanupLimit`` whatever the clean-ups do.
    private static func end(by sig: Int32) -> Never {
        let cleanups = state.withLock { s -> [Entry] in
            s.ending = sig
            return s.cleanups.reversed()
        }
        let status = exitStatus(for: sig)
        NamedThread.start("scrubkit.ending") {
            usleep(UInt32(cleanupLimit * 1_000_000))
            _exit(status)
        }
        FileIO.removeUnfinishedTemporaryFiles()
        for c in cleanups { c.body() }
        fflush(nil)
        FileIO.removeUnfinishedTemporaryFiles()   // (what FFmpeg's muxers created by name meanwhile)
        _exit(status)
    }

    /// The signals ignored when the program started (`SigIgn` in /proc/self/status): they stay ignored.
    static func ignoredAtStart() -> Set<Int32> {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigIgn:") }),
              let mask = UInt64(line.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespaces), radix: 16) else {
            return []
        }
        return Set((1...64).filter { mask & (1 << UInt64($0 - 1)) != 0 }.map { Int32($0) })
    }
}
