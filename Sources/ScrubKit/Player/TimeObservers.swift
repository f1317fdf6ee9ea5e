import Dispatch
import MediaTime
import Locking

/// Identifies a time observer; pass it to `Player.removeTimeObserver(_:)`. Holds no reference to the player,
/// so dropping it never keeps a player alive.
public final class TimeObserverToken: Sendable, Hashable {
    let id: Int
    init(id: Int) { self.id = id }
    /// The same observer registration.
    public static func == (a: TimeObserverToken, b: TimeObserverToken) -> Bool { a.id == b.id }
    /// Hashes the registration's identity.
    public func hash(into h: inout Hasher) { h.combine(id) }
}

/// Delivers times to one observer's block on its serial queue, never flooding it: at most one callback is pending
/// at a time, carrying the latest time; once removed, no new callback starts.
final class ObserverMailbox: Sendable {
    private struct State {
        var pending: MediaTime? = nil
        var scheduled = false
        var removed = false
    }
    private let state = Locked(State())
    private let queue: DispatchQueue
    private let block: @Sendable (MediaTime) -> Void

    init(queue: DispatchQueue, block: @escaping @Sendable (MediaTime) -> Void) {
        self.queue = queue
        self.block = block
    }

    func post(_ time: MediaTime) {
        let mustSchedule = state.withLock { s -> Bool in
            guard !s.removed else { return false }
            s.pending = time
            if s.scheduled { return false }
            s.scheduled = true
            return true
        }
        guard mustSchedule else { return }
        queue.async { [self] in
            let value = state.withLock { s -> MediaTime? in
                s.scheduled = false
                guard !s.removed else { return nil }
                defer { s.pending = nil }
                return s.pending
            }
            if let value { block(value) }
        }
    }

    func remove() { state.withLock { $0.removed = true } }
}

/// A periodic observer: fires at multiples of `interval` on the media timeline while playing, and on jumps.
struct PeriodicObserver {
    let interval: MediaTime
    let mailbox: ObserverMailbox
}

/// A boundary observer: fires when playback crosses one of `times` (not on seeks).
struct BoundaryObserver {
    let times: [MediaTime]
    let mailbox: ObserverMailbox
}

extension MediaTime {
    /// ⌊self / step⌋ for numeric times and a positive step, computed exactly.
    func floorDivided(by step: MediaTime) -> Int64 {
        let num = Int128(value) * Int128(step.timescale)
        let den = Int128(timescale) * Int128(step.value)
        var q = num / den
        if (num % den != 0) && ((num < 0) != (den < 0)) { q -= 1 }
        return Int64(clamping: q)
    }
}
