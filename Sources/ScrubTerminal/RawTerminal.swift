import Foundation
import Locking

/// Full-screen terminal mode: alternate screen, hidden cursor, SGR mouse reporting, raw keyboard input — and the
/// promise to put everything back (normal screen, cursor, cooked mode, the SIGTTOU/SIGTTIN dispositions it found) on
/// return, on errors, and (``FullScreen`` registers ``restore()`` with ``ProcessSignals``) on a signal.
///
/// Job control, as a shell user expects of a full-screen program: the keyboard (raw mode) is taken only while this
/// process's group is the terminal's foreground group. Started in the background (`scrubkit play clip &`, or under
/// `timeout`, which runs its command in a group of its own) it draws but reads no keys and never changes the
/// terminal's modes — SIGTTOU and SIGTTIN are ignored, so nothing it does can stop it — and ``followForeground()``
/// takes the keyboard once the shell brings it to the foreground (`fg`). ``suspend()`` is Ctrl-Z: the terminal put
/// back, the job stopped like any other, and the screen and keyboard taken again when it continues.
public final class RawTerminal: Sendable {
    private struct State {
        var saved = termios()
        /// Full-screen mode is on (our screen and modes written, not yet restored).
        var active = false
        /// Raw mode is on: the keyboard is ours. Only ever while in the foreground.
        var holdsKeyboard = false
        /// Between Ctrl-Z and the continue: the keyboard is not taken back by ``followForeground()``.
        var suspended = false
        var mouse = false
        /// SIGTTOU's and SIGTTIN's dispositions before ``enter(mouse:)`` ignored them (put back by ``restore()``).
        var jobControlSignals: [(signal: Int32, handler: __sighandler_t?)] = []
    }
    private let state = Locked(State())
    /// The keyboard's descriptor (a terminal), or -1: no keyboard, the picture plays on its own.
    public let input: Int32
    private let output: Int32

    /// A terminal on these descriptors (`input` -1: none); nothing changes until ``enter(mouse:onSignal:)``.
    public init(input: Int32 = 0, output: Int32 = 1) {
        self.input = input
        self.output = output
    }

    /// Whether this process's group is the terminal's foreground group (the one the keyboard reads to).
    public var isForeground: Bool { tcgetpgrp(input >= 0 ? input : output) == getpgrp() }

    /// Whether the keyboard is in raw mode and ours to read.
    public var hasKeyboard: Bool { state.withLock { $0.holdsKeyboard } }

    /// Enters full-screen mode, taking the keyboard if in the foreground.
    public func enter(mouse: Bool) throws {
        var current = termios()
        guard input < 0 || tcgetattr(input, &current) == 0 else {
            throw TerminalError("cannot read the terminal settings")
        }
        state.withLock { s in
            // In the background, a terminal write (with `stty tostop`), a mode change or a read would stop the process
            // (SIGTTOU/SIGTTIN, state T: nothing drawn, nothing said). Ignored, writes go through and a read fails
            // with EIO; modes are only changed in the foreground. (What was there is put back on leaving.)
            s.jobControlSignals = [SIGTTOU, SIGTTIN].map { ($0, signal($0, SIG_IGN)) }
            s.saved = current
            s.mouse = mouse
            s.active = true
            TerminalOutput.write(screenSetup(mouse: mouse), to: output)
            _ = takeKeyboard(&s)
        }
    }

    /// Follows job control: takes the keyboard when this process has come to the foreground, lets go of it (without
    /// touching the modes: the shell restores its own) when it has left. Returns true when it just took the
    /// keyboard: the shell may have written over the screen meanwhile, so the caller redraws all of it.
    public func followForeground() -> Bool {
        state.withLock { s in
            guard s.active, !s.suspended, input >= 0 else { return false }
            if s.holdsKeyboard {
                if tcgetpgrp(input) != getpgrp() { s.holdsKeyboard = false }
                return false
            }
            return takeKeyboard(&s)
        }
    }

    /// Ctrl-Z (raw mode delivers it as a key): puts the terminal back as a shell expects it, stops the process group
    /// like the terminal's own suspend would, and when continued (`fg`, or `bg`: then without the keyboard) sets up
    /// the screen again. The caller redraws everything.
    public func suspend() {
        let active = state.withLock { s in
            guard s.active else { return false }
            s.suspended = true
            TerminalOutput.write(screenTeardown, to: output)
            giveBackKeyboard(&s)
            return true
        }
        guard active else { return }
        // The default action (stop), and not blocked here: both are inherited, and a parent may have changed them.
        signal(SIGTSTP, SIG_DFL)
        var tstp = sigset_t()
        sigemptyset(&tstp)
        sigaddset(&tstp, SIGTSTP)
        pthread_sigmask(SIG_UNBLOCK, &tstp, nil)
        kill(0, SIGTSTP)   // returns once SIGCONT has arrived
        state.withLock { s in
            s.suspended = false
            if s.active {
                TerminalOutput.write(screenSetup(mouse: s.mouse), to: output)
                _ = takeKeyboard(&s)
            }
        }
    }

    /// Sets the screen up again after another full-screen program used it meanwhile (a player started from
    /// `browse`, which left the alternate screen and put back the modes it found — these); the caller redraws.
    public func setUpAgain() {
        state.withLock { s in
            guard s.active, !s.suspended else { return }
            TerminalOutput.write(screenSetup(mouse: s.mouse), to: output)
            _ = takeKeyboard(&s)
        }
    }

    /// With the lock held: raw mode, if this process is in the foreground; the modes before it are kept for
    /// ``restore()``. Returns whether it took the keyboard now.
    private func takeKeyboard(_ s: inout State) -> Bool {
        guard input >= 0, !s.holdsKeyboard, tcgetpgrp(input) == getpgrp() else { return false }
        var current = termios()
        guard tcgetattr(input, &current) == 0 else { return false }
        var raw = current
        cfmakeraw(&raw)
        raw.c_oflag |= tcflag_t(OPOST | ONLCR)          // keep \n → \r\n for our own line writes
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else { return false }
        s.saved = current
        s.holdsKeyboard = true
        return true
    }

    /// With the lock held: the modes from before raw mode, if raw mode is on.
    private func giveBackKeyboard(_ s: inout State) {
        guard s.holdsKeyboard else { return }
        s.holdsKeyboard = false
        _ = tcsetattr(input, TCSAFLUSH, &s.saved)
    }

    private func screenSetup(mouse: Bool) -> String {
        // Clicks, drags, and (1003) every pointer move: the hover preview over the bar.
        "\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J" + (mouse ? "\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1003h\u{1B}[?1006h" : "")
    }

    private let screenTeardown = "\u{1B}[?1006l\u{1B}[?1003l\u{1B}[?1002l\u{1B}[?1000l\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    /// Writes `text` to the terminal while full-screen mode is on; dropped after ``restore()`` and while suspended.
    /// Writes and the restore exclude each other, so a signal arriving mid-frame can neither cut into a frame's
    /// escape sequences nor be followed by the rest of that frame drawn over the restored screen.
    public func write(_ text: String) {
        state.withLock { s in
            guard s.active, !s.suspended else { return }
            TerminalOutput.write(text, to: output)
        }
    }

    /// Leaves full-screen mode, putting back the screen, the modes and SIGTTOU's and SIGTTIN's dispositions as they
    /// were; safe to call more than once, from any thread.
    public func restore() {
        state.withLock { s in
            guard s.active else { return }
            s.active = false
            TerminalOutput.write(screenTeardown, to: output)
            giveBackKeyboard(&s)
            for (sig, handler) in s.jobControlSignals.reversed() { signal(sig, handler) }
            s.jobControlSignals = []
        }
    }

    deinit { restore() }
}

/// A terminal could not be set up.
public struct TerminalError: Error, CustomStringConvertible {
    /// What could not be set up.
    public var description: String
    /// An error saying `d`.
    public init(_ d: String) { description = d }
}
