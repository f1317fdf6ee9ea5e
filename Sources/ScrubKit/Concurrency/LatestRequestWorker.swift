import Foundation
import Locking

/// A thread of its own serving requests of which only the newest matters — where a seek lands, the pointer's place
/// over the bar, where sound plays from: a request made while another is served replaces any still waiting, so
/// moves made during a slow decode are skipped to the last. The one such worker in ScrubKit (the player's chains and
/// the hover pictures run on it).
///
/// What the thread makes (FFmpeg contexts) is confined to it: `body` runs there once, owns what it creates, and
/// takes requests from its ``Inbox`` until that says the worker is closed. Between requests it may do work of its
/// own (decode ahead, write sound): ``Inbox/take(waitingAtMost:)`` with a short wait returns `.idle` when nothing came.
final class LatestRequestWorker<Request: Sendable>: Sendable {
    private struct State {
        var pending: Request? = nil
        /// Counts requests: the one being served is superseded once a newer one has come.
        var submitted = 0
        var closed = false
        /// A request was taken and the thread has not asked for the next yet.
        var serving = false
        /// Counts ``wake()`` calls, and the count the thread last saw: an idle wait ends when they differ.
        var wakes = 0
        var wakesSeen = 0
    }
    private let state = Locked(State())

    /// What the worker's thread sees: the newest request, and whether a newer one has come meanwhile.
    struct Inbox: Sendable {
        fileprivate let worker: LatestRequestWorker

        /// What ``take(waitingAtMost:)`` found.
        enum Take {
            /// The newest request, and its number (compare with ``latest``).
            case request(Request, number: Int)
            /// Nothing came within the wait: time for the thread's own work.
            case idle
            /// The worker was closed: free what the thread holds and return.
            case closed
        }

        /// The newest request, waiting for one at most `seconds` (nil: until one comes or the worker closes); `.idle`
        /// sooner when ``LatestRequestWorker/wake()`` is called (the thread's own work may go on).
        func take(waitingAtMost seconds: Double? = nil) -> Take {
            worker.state.withLock(
                waitingUntil: { $0.closed || $0.pending != nil || $0.wakes != $0.wakesSeen }, timeout: seconds
            ) { s, _ in
                s.wakesSeen = s.wakes
                if s.closed { s.serving = false; return .closed }
                guard let r = s.pending else { s.serving = false; return .idle }
                s.pending = nil
                s.serving = true
                return .request(r, number: s.submitted)
            }
        }

        /// The number of the newest request submitted.
        var latest: Int { worker.state.withLock { $0.submitted } }

        /// Whether a request is waiting (what is being served has been superseded).
        var hasNewer: Bool { worker.state.withLock { $0.pending != nil || $0.closed } }
    }

    /// Starts the thread, named `name`, running `body` with the worker's inbox. `stackSize`: decoders (dav1d, libaom)
    /// want a main thread's stack, not a small default.
    init(name: String, stackSize: Int = 8 << 20, body: @escaping @Sendable (Inbox) -> Void) {
        NamedThread.start(name, stackSize: stackSize) { [inbox = Inbox(worker: self)] in
            body(inbox)
            // (The thread has ended, whatever it left: nothing is served any more.)
            inbox.worker.state.withLock { s in s.closed = true; s.pending = nil; s.serving = false }
        }
    }

    /// Asks for `request`, replacing one not yet taken; returns its number. Ignored once closed.
    @discardableResult
    func submit(_ request: Request) -> Int {
        state.withLock { s in
            guard !s.closed else { return s.submitted }
            s.pending = request
            s.submitted += 1
            return s.submitted
        }
    }

    /// Ends the thread's idle wait without a request (what its own work waited for has changed: room to decode into).
    func wake() { state.withLock { $0.wakes += 1 } }

    /// Drops the request waiting, if any (it was answered otherwise).
    func withdraw() { state.withLock { $0.pending = nil } }

    /// Whether a request waits or is being served.
    var isBusy: Bool { state.withLock { $0.pending != nil || $0.serving } }

    /// Ends the thread at its next ``Inbox/take(waitingAtMost:)`` (after what it is doing); safe to call again.
    func close() { state.withLock { $0.closed = true; $0.pending = nil } }
}
