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
        let t = Thread { [self] in
            var decoder = KeyDecoder()
            while !quit.load(ordering: .relaxed) {
                // Job control: keys only while in the foreground; brought there (`fg`), the whole screen is drawn
                // again (the shell may have written over it).
                if terminal.followForeground() { resized.store(true, ordering: .relaxed) }
                guard terminal.hasKeyboard else { usleep(100_000); continue }
                let bytes: [UInt8]
                switch TerminalInput.read(terminal.input, waitingAtMost: 100, limit: 256) {
                case .timedOut:
                    let pending = decoder.feed([], final: true)   // a lone ESC becomes Escape after a pause
                    if !pending.isEmpty { events.withLock { $0 += pending } }
                    continue
                case .closed:
                    // Sent to the background meanwhile, the read fails (EIO): not an end.
                    if !terminal.isForeground { continue }
                    quit.store(true, ordering: .relaxed); return
                case .bytes(let b): bytes = b
                }
                let evs = decoder.feed(bytes, final: false)
                // Quitting does not wait for the render loop (which may be writing a large picture).
                if evs.contains(where: { [.character("q"), .character("Q"), .escape, .interrupt].contains($0) }) {
                    quit.store(true, ordering: .relaxed)
                }
                if !evs.isEmpty { events.withLock { $0 += evs } }
            }
        }
        t.start()
    }
}
