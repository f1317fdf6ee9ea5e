import Foundation
import ScrubKit

/// Facts about where output goes, and raw writes that bypass stdio buffering (safe from any thread).
public enum TerminalOutput {
    /// Whether file descriptor `fd` is a terminal.
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Colour is allowed: a terminal, and `NO_COLOR` unset (https://no-color.org).
    public static func colorAllowed(_ fd: Int32) -> Bool {
        isTerminal(fd) && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
    }

    /// The terminal's size in cells (and pixels when the terminal says), or nil when `fd` is not a terminal.
    public static func size(_ fd: Int32) -> (columns: Int, rows: Int, pixelWidth: Int, pixelHeight: Int)? {
        var ws = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0 else { return nil }
        return (Int(ws.ws_col), Int(ws.ws_row), Int(ws.ws_xpixel), Int(ws.ws_ypixel))
    }

    /// Writes all of `text` to `fd` (through ``FileIO``: short and interrupted writes retried).
    public static func write(_ text: String, to fd: Int32) {
        FileIO.writeAll(text, to: fd)
    }
}

/// Reads from the terminal with a time limit: the one place ScrubTerminal polls and reads (raw mode itself is
/// ``RawTerminal``'s).
public enum TerminalInput {
    /// What one read gave.
    public enum Reading: Equatable, Sendable {
        /// Bytes that arrived.
        case bytes([UInt8])
        /// Nothing arrived within the time limit.
        case timedOut
        /// The input is closed or failed (end of file, hang-up).
        case closed
    }

    /// Waits up to `milliseconds` for input on `fd`, then reads what is there (at most `limit` bytes).
    public static func read(_ fd: Int32, waitingAtMost milliseconds: Int32, limit: Int = 1024) -> Reading {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var ready: Int32
        repeat { ready = poll(&pfd, 1, milliseconds) } while ready < 0 && errno == EINTR
        guard ready > 0 else { return ready == 0 ? .timedOut : .closed }
        var buf = [UInt8](repeating: 0, count: limit)
        var n: Int
        repeat { n = Glibc.read(fd, &buf, limit) } while n < 0 && errno == EINTR
        return n > 0 ? .bytes(Array(buf[0..<n])) : .closed
    }
}
