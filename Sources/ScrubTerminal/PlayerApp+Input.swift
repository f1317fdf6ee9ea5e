import Foundation

/// Where `scrubkit play`'s keys come from, and the thread that reads and decodes them (only in the foreground).
extension PlayerApp {
    /// Where keys come from: standard input when it is a terminal, else the controlling terminal (`/dev/tty`, as
    /// `less` and `fzf` do when their input is a pipe), else none (-1: the picture plays, signals still end it).
    static func keyboard() -> Int32 {
        if TerminalOutput.isTerminal(0) { return 0 }
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        if fd >= 0 && !TerminalOutput.isTerminal(fd) { close(fd); return -1 }
        return fd
    }

    func startInputThread() {
        keyboardThread.start(
            foreground: { [self] in resized.store(true, ordering: .relaxed) },
            deliver: { [self] evs in
                // Quitting does not wait for the render loop (which may be writing a large picture).
                if evs.contains(where: { [.character("q"), .character("Q"), .escape, .interrupt].contains($0) }) {
                    quit.store(true, ordering: .relaxed)
                }
                events.withLock { $0 += evs }
            },
            closed: { [self] in quit.store(true, ordering: .relaxed) })
    }
}
