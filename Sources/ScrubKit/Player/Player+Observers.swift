import Dispatch
import MediaTime

/// Time observers (AVPlayer's `addPeriodicTimeObserver`, `addBoundaryTimeObserver`): registration here; when they
/// fire is decided under the player's lock (`update`, `scheduleWake` below).
extension Player {
    /// Calls `block` on `queue` (serial) at every multiple of `interval` on the media timeline while playing,
    /// and whenever time jumps (seek) or playback starts or stops. A busy queue never piles up callbacks: at most
    /// one is pending, carrying the latest time.
    public func addPeriodicTimeObserver(forInterval interval: MediaTime, queue: DispatchQueue? = nil,
                                        using block: @escaping @Sendable (MediaTime) -> Void) -> TimeObserverToken {
        precondition(interval.isNumeric && interval > .zero, "the interval must be a positive numeric time")
        let mailbox = ObserverMailbox(queue: queue ?? DispatchQueue(label: "scrubkit.player.observer"), block: block)
        return withCore { c in
            c.nextObserverID += 1
            c.periodic[c.nextObserverID] = PeriodicObserver(interval: interval, mailbox: mailbox)
            c.scheduleWake()
            return TimeObserverToken(id: c.nextObserverID)
        }
    }

    /// Calls `block` on `queue` when normal playback crosses one of `times` (not on seeks).
    /// Throws when `times` is empty.
    public func addBoundaryTimeObserver(
        forTimes times: [MediaTime], queue: DispatchQueue? = nil,
        using block: @escaping @Sendable (MediaTime) -> Void
    ) throws -> TimeObserverToken {
        guard !times.isEmpty else {
            throw MediaError(.invalidRequest, path: "player", "a boundary time observer needs at least one time")
        }
        let mailbox = ObserverMailbox(queue: queue ?? DispatchQueue(label: "scrubkit.player.observer"), block: block)
        return withCore { c in
            c.nextObserverID += 1
            c.boundaries[c.nextObserverID] = BoundaryObserver(
                times: times.filter(\.isNumeric).sorted(), mailbox: mailbox)
            c.scheduleWake()
            return TimeObserverToken(id: c.nextObserverID)
        }
    }

    /// Calls `block` on `queue` with the end time each time playback reaches the end of the media.
    public func addEndOfMediaObserver(
        queue: DispatchQueue? = nil, using block: @escaping @Sendable (MediaTime) -> Void
    ) -> TimeObserverToken {
        let mailbox = ObserverMailbox(queue: queue ?? callbackQueue, block: block)
        return withCore { c in
            c.nextObserverID += 1
            c.endObservers[c.nextObserverID] = mailbox
            return TimeObserverToken(id: c.nextObserverID)
        }
    }

    /// Stops an observer: no new callback starts after this returns.
    public func removeTimeObserver(_ token: TimeObserverToken) {
        withCore { c in
            c.periodic.removeValue(forKey: token.id)?.mailbox.remove()
            c.boundaries.removeValue(forKey: token.id)?.mailbox.remove()
            c.endObservers.removeValue(forKey: token.id)?.remove()
        }
    }

    /// Periodic times as an async sequence (newest kept when the consumer is slow); ends when cancelled.
    public func periodicTimes(forInterval interval: MediaTime) -> AsyncStream<MediaTime> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let token = addPeriodicTimeObserver(
                forInterval: interval, queue: DispatchQueue(label: "scrubkit.player.stream")
            ) {
                continuation.yield($0)
            }
            continuation.onTermination = { [weak self] _ in self?.removeTimeObserver(token) }
        }
    }
}

/// Bringing observers up to the time, the end of the media, and the clock's wake-ups (under the player's lock).
extension PlayerCore {
    /// Brings observers up to the current time: periodic multiples and boundaries crossed, end of media.
    func update() {
        guard case .readyToPlay = status else { return }
        guard rate > 0, !seeking else { return }
        followSound()
        let now = clock.now()
        let t = time(at: now)
        if loopBackIfDue(t) { return }
        let from = lastReported
        let atEnd = end.map { t >= $0 } ?? false
        if t > from {
            for o in periodic.values where !atEnd {   // at the end, reachedEnd posts the end time once
                let k = t.floorDivided(by: o.interval)
                if k > from.floorDivided(by: o.interval) {
                    o.mailbox.post(
                        o.interval.multiplied(byRatio: Int32(clamping: k), divisor: 1).convertScale(
                            o.interval.timescale))
                }
            }
            for b in boundaries.values {
                if let crossed = b.times.last(where: { $0 > from && $0 <= t }) { b.mailbox.post(crossed) }
            }
        }
        lastReported = t
        if atEnd, let end { reachedEnd(end, now: now) }
    }

    func reachedEnd(_ end: MediaTime, now: Double) {
        for m in endObservers.values { m.post(end) }
        switch actionAtItemEnd {
        case .pause:
            anchorMedia = end
            anchorHost = now
            rate = 0
            syncSound()
            postPeriodic(end)
        case .loop:
            let start = info?.start.isNumeric == true ? info!.start : .zero
            anchorMedia = start
            anchorHost = now
            lastReported = start
            postPeriodic(start)
            pipeline.seek(to: start, toleranceBefore: .zero, toleranceAfter: .zero) { _ in }
            syncSound(restart: true)
        }
    }

    func postPeriodic(_ t: MediaTime) {
        for o in periodic.values { o.mailbox.post(t) }
    }

    /// Asks the clock to wake the player at the next media time something must happen (an observer's time, the
    /// end), or when a keyboard jump is due to be made exact.
    func scheduleWake() {
        var host = scrubbing.settle?.at
        if case .readyToPlay = status, rate > 0, !seeking {
            let t = lastReported
            var next: MediaTime? = end
            // (The loop's end; at or past it already — B set where playback is — at once.)
            if let r = loopRange, next.map({ r.end < $0 }) ?? true { next = MediaTime.maximum(r.end, t) }
            for o in periodic.values {
                let m = o.interval.multiplied(byRatio: Int32(clamping: t.floorDivided(by: o.interval) + 1), divisor: 1)
                if next == nil || m < next! { next = m }
            }
            for b in boundaries.values {
                if let m = b.times.first(where: { $0 > t }), next == nil || m < next! { next = m }
            }
            if let target = next {
                let at = anchorHost + (target - anchorMedia).seconds / rate
                host = min(host ?? at, at)
            }
        }
        guard let host else { return }
        clock.schedule(at: host) { [weak lock] in
            lock?.withLock { c in
                c.takeInbox()
                c.update()
                c.settleIfDue()
                c.scheduleWake()
            }
        }
    }
}
