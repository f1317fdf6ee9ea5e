import Foundation

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

    /// Writes all of `text` to `fd`.
    public static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Foundation.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
        bytes.removeAll()
    }
}
