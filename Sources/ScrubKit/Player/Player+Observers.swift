import Dispatch
import MediaTime

/// Time observers (AVPlayer's `addPeriodicTimeObserver`, `addBoundaryTimeObserver`): registration here; when they
/// fire is decided on the player's core queue (`update`, `scheduleWake` in Player.swift).
extension Player {
    /// Calls `block` on `queue` (serial) at every multiple of `interval` on the media timeline while playing,
    /// and whenever time jumps (seek) or playback starts or stops. A busy queue never piles up callbacks: at most
    /// one is pending, carrying the latest time.
    public func addPeriodicTimeObserver(forInterval interval: MediaTime, queue: DispatchQueue? = nil,
                                        using block: @escaping @Sendable (MediaTime) -> Void) -> TimeObserverToken {
        precondition(interval.isNumeric && interval > .zero, "the interval must be a positive numeric time")
        let mailbox = ObserverMailbox(queue: queue ?? DispatchQueue(label: "scrubkit.player.observer"), block: block)
        return core.sync {
            nextObserverID += 1
            periodic[nextObserverID] = PeriodicObserver(interval: interval, mailbox: mailbox)
            scheduleWake()
            return TimeObserverToken(id: nextObserverID)
        }
    }

    /// Calls `block` on `queue` when normal playback crosses one of `times` (not on seeks).
    /// Throws when `times` is empty.
    public func addBoundaryTimeObserver(forTimes times: [MediaTime], queue: DispatchQueue? = nil,
                                        using block: @escaping @Sendable (MediaTime) -> Void) throws -> TimeObserverToken {
        guard !times.isEmpty else { throw MediaError(.invalidRequest, path: "player", "a boundary time observer needs at least one time") }
        let mailbox = ObserverMailbox(queue: queue ?? DispatchQueue(label: "scrubkit.player.observer"), block: block)
        return core.sync {
            nextObserverID += 1
            boundaries[nextObserverID] = BoundaryObserver(times: times.filter(\.isNumeric).sorted(), mailbox: mailbox)
            scheduleWake()
            return TimeObserverToken(id: nextObserverID)
        }
    }

    /// Calls `block` on `queue` with the end time each time playback reaches the end of the media.
    public func addEndOfMediaObserver(queue: DispatchQueue? = nil, using block: @escaping @Sendable (MediaTime) -> Void) -> TimeObserverToken {
        let mailbox = ObserverMailbox(queue: queue ?? callbackQueue, block: block)
        return core.sync {
            nextObserverID += 1
            endObservers[nextObserverID] = mailbox
            return TimeObserverToken(id: nextObserverID)
        }
    }

    /// Stops an observer: no new callback starts after this returns.
    public func removeTimeObserver(_ token: TimeObserverToken) {
        core.sync {
            periodic.removeValue(forKey: token.id)?.mailbox.remove()
            boundaries.removeValue(forKey: token.id)?.mailbox.remove()
            endObservers.removeValue(forKey: token.id)?.remove()
        }
    }

    /// Periodic times as an async sequence (newest kept when the consumer is slow); ends when cancelled.
    public func periodicTimes(forInterval interval: MediaTime) -> AsyncStream<MediaTime> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let token = addPeriodicTimeObserver(forInterval: interval, queue: DispatchQueue(label: "scrubkit.player.stream")) {
                continuation.yield($0)
            }
            continuation.onTermination = { [weak self] _ in self?.removeTimeObserver(token) }
        }
    }
}
