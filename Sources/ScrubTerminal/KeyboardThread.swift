import Foundation
import Locking
import ScrubKit
import Synchronization

/// The thread that reads a full-screen program's keyboard and decodes it into ``InputEvent``s — only in the
/// foreground (job control: brought back with `fg`, the program is told to redraw everything). Shared by `play` and
/// `browse`; ``stop()`` hands the keyboard over (to a player started from the grid) and waits until it is let go.
final class KeyboardThread: Sendable {
    private let terminal: RawTerminal
    private let stopping = Atomic<Bool>(false)
    private let running = Locked(false)

    /// A reader of `terminal`'s keyboard; nothing is read until ``start(foreground:deliver:closed:)``.
    init(terminal: RawTerminal) { self.terminal = terminal }

    /// Starts reading: `foreground` when the program came back to the foreground (redraw), `deliver` with each
    /// burst's events, `closed` when the keyboard is gone (the terminal closed). Runs until ``stop()`` or `closed`.
    func start(foreground: @escaping @Sendable () -> Void, deliver: @escaping @Sendable ([InputEvent]) -> Void,
               closed: @escaping @Sendable () -> Void) {
        stopping.store(false, ordering: .relaxed)
        running.withLock { $0 = true }
        NamedThread.start("scrubkit.keys") { [self] in
            defer { running.withLock { $0 = false } }
            var decoder = KeyDecoder()
            while !stopping.load(ordering: .relaxed) {
                if terminal.followForeground() { foreground() }
                guard terminal.hasKeyboard else { usleep(100_000); continue }
                switch TerminalInput.read(terminal.input, waitingAtMost: 100, limit: 256) {
                case .timedOut:
                    let pending = decoder.feed([], final: true)   // a lone ESC becomes Escape after a pause
                    if !pending.isEmpty { deliver(pending) }
                case .closed:
                    // Sent to the background meanwhile, the read fails (EIO): not an end.
                    if !terminal.isForeground { continue }
                    closed()
                    return
                case .bytes(let b):
                    let evs = decoder.feed(b, final: false)
                    if !evs.isEmpty { deliver(evs) }
                }
            }
        }
    }

    /// Stops reading and waits until the thread has let go of the keyboard (at most one read's wait, 0.1 s).
    func stop() {
        stopping.store(true, ordering: .relaxed)
        running.wait(until: { !$0 })
    }
}
