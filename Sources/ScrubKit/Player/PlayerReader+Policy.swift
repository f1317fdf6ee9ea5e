import MediaTime

/// When the reader reads, as plain functions of its state: bounded by time past the chains, by bytes, and by how far
/// a waiting chain's stream may trail the read before it is in a gap.
extension PlayerReader {
    /// What the reader read, and the most its queues held.
    struct ReadStatistics: Sendable, Equatable {
        /// Packets read, of any queued stream.
        var packets: Int
        /// Their bytes.
        var bytes: Int
        /// The most bytes the queues held at once.
        var peakQueuedBytes: Int
    }

    /// Packets a played queue without times is filled to (a raw stream: no seconds to count).
    static let untimedAhead = 120

    /// Where playback is, as the chains show it: the furthest presentation time the picture's or a sound's chain has
    /// taken since the last move (also when not played now: a picture decoded only where a seek lands), else where the
    /// reading started after it (seconds; nil before anything was read). Each chain takes only a little ahead of what
    /// is shown or heard — the picture's six frames, the sound's output buffer; after a gap the sound's chain looks
    /// at its next packet's time before taking it (``nextTimestamp(_:)``). Subtitles' chains take what comes as it
    /// comes: they say nothing of where playback is.
    static func position(_ s: State) -> Double? {
        s.queues.values.filter { $0.kind != .subtitles }.compactMap(\.lastTaken).max() ?? s.readStart
    }

    /// Whether the reader should read now: not at the end, less than `limits.bytes` queued, and the read less than
    /// the read-ahead past where the chains are (also when none plays: paused, the subtitles and sound near the place
    /// a seek landed are read) — or a chain waits on an empty queue whose stream is not in a gap (the stream comes a
    /// little later in the file than the others, and its chain must not starve; a cover picture's one packet).
    static func wantsRead(_ s: State, limits: Limits) -> Bool {
        guard !s.ended, !s.closed, queuedBytes(s) < limits.bytes else { return false }
        let played = s.queues.values.filter(\.played)
        let waiting = s.queues.values.filter { $0.waiting && $0.count == 0 }
        guard let front = s.front, let position = position(s) else {
            // (Nothing with a time read since the move: read while a chain waits, or a played queue is short in
            // packets.)
            return !waiting.isEmpty || played.contains { $0.count < untimedAhead }
        }
        if front < position + limits.readAhead { return true }
        return waiting.contains { !trails($0, front: front, s, limits: limits) }
    }

    /// Whether stream `index`'s chain, finding its queue empty, is in a gap: the reader will not read for it
    /// (it is `lag` behind the read, or the bounds are reached) and no job or end is coming.
    static func inGap(_ index: Int, _ s: State, limits: Limits) -> Bool {
        guard let q = s.queues[index], q.count == 0, !s.ended, !s.closed, s.jobs.isEmpty else { return false }
        return !wantsRead(s, limits: limits)
    }

    /// Whether `q`'s stream trails the read by `limits.lag` or more (its newest packet since the move, else where
    /// the reading started, is that far behind the front).
    static func trails(_ q: Queue, front: Double, _ s: State, limits: Limits) -> Bool {
        guard let last = q.newestRead ?? s.readStart else { return false }
        return front - last >= limits.lag
    }

    /// Bytes all queues hold.
    static func queuedBytes(_ s: State) -> Int { s.queues.values.reduce(0) { $0 + $1.bytes } }

    /// Puts a packet read into its stream's queue (in place: the queue is never copied), moves the front, and keeps
    /// the queues under the byte limit by dropping what may be dropped first (packets behind their chains, queues
    /// nobody plays), oldest first.
    static func queue(_ item: Item, in s: inout State, limits: Limits) {
        let index = item.packet.streamIndex
        guard s.queues[index] != nil else { return }
        s.queues[index]!.append(item, keep: limits.keep)
        if let t = s.queues[index]!.seconds(item.timestamp) {
            s.front = max(s.front ?? t, t)
            if s.readStart == nil { s.readStart = t }
        }
        s.packetsRead += 1
        s.bytesRead += item.size
        var total = queuedBytes(s)
        if total > limits.bytes {
            for k in s.queues.keys.sorted() where total > limits.bytes {
                while total > limits.bytes && s.queues[k]!.droppable > 0 {
                    let before = s.queues[k]!.bytes
                    s.queues[k]!.dropOldest()
                    total -= before - s.queues[k]!.bytes
                }
            }
        }
        s.peakQueued = max(s.peakQueued, total)
    }
}
