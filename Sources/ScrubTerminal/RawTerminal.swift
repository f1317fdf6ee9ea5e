import Foundation

/// Full-screen terminal mode: raw input, alternate screen, hidden cursor, SGR mouse reporting — and the promise to
/// put everything back (normal screen, cursor, cooked mode) on return, on errors, on SIGINT/SIGTERM/SIGHUP.
public final class RawTerminal: @unchecked Sendable {   // unchecked: `saved`/`active` under `lock`; `signalSources` set once in enter, before any signal
    private var saved = termios()
    private var active = false
    private let lock = NSLock()
    private let input: Int32
    private let output: Int32
    private var signalSources: [DispatchSourceSignal] = []

    /// A terminal on these descriptors; nothing changes until ``enter(mouse:onSignal:)``.
    public init(input: Int32 = 0, output: Int32 = 1) {
        self.input = input
        self.output = output
    }

    /// Enters full-screen mode. `onSignal` runs (after the terminal is restored) when SIGINT/SIGTERM/SIGHUP arrive.
    public func enter(mouse: Bool, onSignal: @escaping @Sendable (Int32) -> Void) throws {
        guard tcgetattr(input, &saved) == 0 else { throw TerminalError("cannot read the terminal settings") }
        var raw = saved
        cfmakeraw(&raw)
        raw.c_oflag |= tcflag_t(OPOST | ONLCR)          // keep \n → \r\n for our own line writes
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else { throw TerminalError("cannot switch the terminal to raw mode") }
        lock.lock(); active = true; lock.unlock()
        var setup = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J"
        // Clicks, drags, and (1003) every pointer move: the hover preview over the bar.
        if mouse { setup += "\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1003h\u{1B}[?1006h" }
        TerminalOutput.write(setup, to: output)
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, SIG_IGN)
            let src = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            src.setEventHandler { [weak self] in
                self?.restore()
                onSignal(sig)
            }
            src.resume()
            signalSources.append(src)
        }
    }

    /// Writes `text` to the terminal while full-screen mode is on; dropped after ``restore()``. Writes and the
    /// restore exclude each other, so a signal arriving mid-frame can neither cut into a frame's escape sequences
    /// nor be followed by the rest of that frame drawn over the restored screen.
    public func write(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        guard active else { return }
        TerminalOutput.write(text, to: output)
    }

    /// Leaves full-screen mode; safe to call more than once, from any thread.
    public func restore() {
        lock.lock()
        defer { lock.unlock() }
        guard active else { return }
        active = false
        TerminalOutput.write("\u{1B}[?1006l\u{1B}[?1003l\u{1B}[?1002l\u{1B}[?1000l\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l", to: output)
        _ = tcsetattr(input, TCSAFLUSH, &saved)
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
