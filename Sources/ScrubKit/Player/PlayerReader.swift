import FFmpegBridge
import Foundation
import Locking
import MediaTime

/// The one reader of a played file, shaped like mpv's demuxer thread: it opens the file once (the front door), reads
/// every packet once on a thread of its own and hands each stream's packets to that stream's queue — the picture's,
/// and every audio stream's (so another can be chosen without reading again) — for the chains to decode as peers.
///
/// Reading is bounded whatever the streams do (PlayerReader+Policy.swift): the file is read ``Limits/readAhead``
/// seconds past the furthest any chain has taken, the queues hold at most ``Limits/bytes`` together, and a chain
/// waiting on an empty queue is served only while its stream keeps up with the read. Once the read is ``Limits/lag``
/// past its stream's last packet (sound that ended early or has a hole, a picture that ended, a cover picture) the
/// stream is in a gap: its chain is told so (``PacketGap``) instead of making the reader read on for it, and plays on
/// without it. Sound and subtitle queues nobody plays keep their last ``Limits/keep`` seconds, a picture's its newest
/// packet. A network file is read as it is played, never downloaded whole.
///
/// Positioning (a seek, a rewind, a keyframe scan) runs on the reader's thread, asked by a chain through its
/// ``QueuedStream``; when it moves the file, every queue is emptied and the serial goes up (one flush, one serial). The
/// demuxer never leaves the thread.
final class PlayerReader: Sendable {
    /// How far the reader reads ahead, and what it keeps behind.
    struct Limits: Sendable {
        /// Seconds the file is read past the furthest any chain has taken.
        var readAhead: Double
        /// Seconds a sound queue keeps behind its newest packet (unplayed, or behind its chain): enough to start
        /// playing it where the picture is, or again where a pause left it, without moving the file (sound is small:
        /// 30 s of 160 kbit/s AAC is 600 KB). Dropped first when the queues hold too much.
        var keep: Double
        /// Bytes the queues may hold together, those ahead of their chains included: reading stops there.
        var bytes = 64 << 20
        /// Seconds the read may be past a stream's last packet while its chain waiting for the next still makes the
        /// reader read on (streams are interleaved about this closely); further, the stream is in a gap.
        var lag: Double

        /// As mpv: a local file is read a second ahead (the disk answers at once), a URL five (the network may not).
        static func `for`(_ path: String) -> Limits {
            Demuxer.isURL(path) ? Limits(readAhead: 5, keep: 30, lag: 5) : Limits(readAhead: 1, keep: 30, lag: 2)
        }
    }

    /// A job for the reader's thread: it runs with the demuxer; `moves` says whether it may have moved the read
    /// position.
    struct Job: @unchecked Sendable {   // unchecked: the closure runs on the reader's thread while its caller waits
        let run: (Demuxer) -> Void
        let moves: Bool
    }

    struct State {
        var queues: [Int: Queue] = [:]
        var serial = 0
        /// The newest presentation time read (any stream) since the last move, and the first, in seconds.
        var front: Double? = nil
        var readStart: Double? = nil
        /// The end of the file (or a read error) was reached after the last move.
        var ended = false
        var closed = false
        var jobs: [Job] = []
        /// Jobs taken so far, and finished so far (a caller waits for its own number).
        var jobsTaken = 0
        var jobsDone = 0
        /// Packets read (any stream queued) and their bytes, since opening; the most the queues held together.
        var packetsRead = 0
        var bytesRead = 0
        var peakQueued = 0
        /// When the read in progress began (monotonic; nil between reads), whether it was ended on purpose (a move
        /// or the close waits), and what ends it (a URL's; nil for a file).
        var readingSince: Double? = nil
        var interrupted = false
        var interrupter: ReadInterrupter? = nil
        /// A fault met since the last move (a move reads again), and when the file was last looked for (deleted?).
        var fault = ReadingStatus.fine
        var lookedForFile = 0.0
    }

    /// The file or URL.
    let path: String
    let limits: Limits
    /// The player's clock: how long a read has waited, when the file was last looked for.
    let clock: MediaClock
    let state = Locked(State())

    /// Opens `path` on a thread of its own at the front door (lean probing) and calls `opened` there with the reader
    /// and the file's facts (the streams it queues — the picture's and every audio stream — are then ready to be
    /// read through ``stream(_:)``), or with the error; then reads until ``close()``. Reading starts once `opened`
    /// returns.
    init(path: String, limits: Limits? = nil, clock: MediaClock = SystemClock(),
         opened: @escaping @Sendable (PlayerReader, Result<OpenedFacts, MediaError>) -> Void) {
        self.path = path
        self.limits = limits ?? Limits.for(path)
        self.clock = clock
        NamedThread.start("scrubkit.reader", stackSize: 8 << 20) { [self] in run(opened) }
    }

    /// What the reader learned when it opened the file.
    // unchecked: `opened` is handed over once; its demuxer is used only through jobs
    struct OpenedFacts: @unchecked Sendable {
        let opened: OpenedMedia
        var facts: MediaFacts { opened.facts }
    }

    /// Stops reading for good (the thread frees the demuxer on its way out, a blocked read of a URL ended at once);
    /// chains waiting for packets see the end.
    func close() {
        state.withLock { s in
            s.closed = true
            for k in s.queues.keys { s.queues[k]!.removeAll() }
            PlayerReader.interruptRead(&s)
        }
    }

    /// The queue of stream `index` as a chain reads it (nil when the reader does not queue that stream).
    func stream(_ index: Int) -> QueuedStream? {
        state.withLock { $0.queues[index] != nil } ? QueuedStream(reader: self, streamIndex: index) : nil
    }

    /// Packets and bytes read so far (the played file's only reads), and the most bytes the queues held at once.
    var statistics: ReadStatistics {
        state.withLock { ReadStatistics(packets: $0.packetsRead, bytes: $0.bytesRead, peakQueuedBytes: $0.peakQueued) }
    }

    // MARK: - For QueuedStream (any chain's thread)

    /// Marks stream `index` played or not (a played queue is kept filled; an unplayed one keeps its last seconds).
    func setPlayed(_ index: Int, _ played: Bool) {
        state.withLock { s in s.queues[index]?.played = played }
    }

    /// The next packet of stream `index` (a reference to the queued one) in `packet`, waiting for the reader; false at
    /// the end of the file (or once closed). Throws ``PacketGap`` when the stream has no packet near where the file is
    /// read and the reader will not read on for it (the chain plays on without it and asks again).
    func next(_ index: Int, into packet: Packet) throws -> Bool {
        state.withLock { s in s.queues[index]?.waiting = true }
        return try state.withLock(waitingUntil: { s in
            s.closed || s.ended || (s.queues[index]?.count ?? 1) > 0
                || PlayerReader.inGap(index, s, limits: self.limits)
        }) { s, _ -> Bool in
            s.queues[index]?.waiting = false
            guard !s.closed else { return false }
            guard let item = s.queues[index]?.takeNext() else {
                if s.ended { return false }   // (the end, all read)
                throw PacketGap()
            }
            try packet.reference(item.packet)
            return true
        }
    }

    /// Stream `index`'s chain has played up to `timestamp` (its time base) without taking a packet — silence where
    /// the stream has none: where the chains are moves on with it, so the reader reads on for what comes after the gap.
    func reached(_ index: Int, timestamp: Int64) {
        state.withLock { s in s.queues[index]?.reached(timestamp) }
    }

    /// The presentation (else decode) time of stream `index`'s next queued packet, in its time base, without taking
    /// it; nil when none is queued.
    func nextTimestamp(_ index: Int) -> Int64? {
        state.withLock { $0.queues[index]?.nextTimestamp }
    }

    /// The next packet of stream `index` if one is queued, without waiting for the reader (nor making it read); false
    /// when none is.
    func nextIfQueued(_ index: Int, into packet: Packet) throws -> Bool {
        try state.withLock { s -> Bool in
            guard !s.closed, let item = s.queues[index]?.takeNext() else { return false }
            try packet.reference(item.packet)
            return true
        }
    }

    /// Moves stream `index`'s chain back (or ahead) to the last keyframe at or before `timestamp` among the packets its
    /// queue holds (the first it holds, when the time is before them), without moving the file; false when the time is
    /// past them all.
    func reposition(_ index: Int, at timestamp: Int64) -> Bool {
        state.withLock { s in s.queues[index]?.reposition(at: timestamp) ?? false }
    }

    /// Runs `body` with the demuxer on the reader's thread and returns what it returns; with `moves`, the queues are
    /// emptied afterwards and the serial goes up (what was queued is from before the move).
    func perform<T>(moves: Bool, _ body: @escaping (Demuxer) throws -> T) throws -> T {
        nonisolated(unsafe) var result: Result<T, Error>? = nil
        let number = state.withLock { s -> Int? in
            guard !s.closed else { return nil }
            s.jobs.append(Job(run: { d in result = Result { try body(d) } }, moves: moves))
            // (A move does not wait behind a read stuck on a server: it reconnects where it goes.)
            if moves, let since = s.readingSince, clock.now() - since > PlayerReader.stallNotice {
                PlayerReader.interruptRead(&s)
            }
            return s.jobsTaken + s.jobs.count
        }
        guard let number else { throw MediaError(.cancelled, path: path, "closed") }
        let done = state.withLock(waitingUntil: { $0.jobsDone >= number || $0.closed }) { s, _ in s.jobsDone >= number }
        guard done, let result else { throw MediaError(.cancelled, path: path, "closed") }
        return try result.get()
    }

    /// The current serial: it goes up with each move.
    var serial: Int { state.withLock { $0.serial } }

    // MARK: - The reader's thread

    private func run(_ opened: @Sendable (PlayerReader, Result<OpenedFacts, MediaError>) -> Void) {
        let media: OpenedMedia
        do {
            media = try MediaOpener.open(path, .lean(pixelLimit: MediaInspector.defaultPixelLimit))
        } catch {
            opened(self, .failure(error as? MediaError ?? MediaError(.unreadable, path: path, "\(error)")))
            return
        }
        let facts = media.facts
        // (Subtitle streams too: their packets are few and small; their chains take them as they come, never waited
        // for, so a sparse stream never makes the reader read on.)
        var queued: [StreamFacts] = facts.audioStreams + facts.subtitleStreams.filter(\.hasDecoder)
        if let v = facts.video ?? facts.coverPicture { queued.append(v) }
        state.withLock { s in
            for st in queued {
                let kind: Queue.Kind = st.kind == .video ? .picture : st.kind == .audio ? .sound : .subtitles
                s.queues[st.index] = Queue(timeBase: st.timeBase, kind: kind)
            }
        }
        media.demuxer.discardAllStreams(except: Set(queued.map(\.index)))
        state.withLock { $0.interrupter = media.demuxer.interrupter }
        let known = facts.durationKind == .known && facts.duration.isNumeric
        let end = known ? (facts.start + facts.duration).seconds : nil
        opened(self, .success(OpenedFacts(opened: media)))
        var packet: Packet
        do { packet = try Packet() } catch { return }
        while true {
            lookForFile()
            // Jobs first (a chain waits for each), then a read when some queue wants one, else a wait for either.
            enum Next { case jobs([Job]), read, stop }
            let limits = self.limits
            let next = state.withLock(waitingUntil: { s in
                s.closed || !s.jobs.isEmpty || PlayerReader.wantsRead(s, limits: limits)
            }, timeout: 0.5) { s, _ -> Next in
                if s.closed { return .stop }
                if !s.jobs.isEmpty { let j = s.jobs; s.jobs.removeAll(); s.jobsTaken += j.count; return .jobs(j) }
                return PlayerReader.wantsRead(s, limits: limits) ? .read : .jobs([])
            }
            switch next {
            case .stop: return
            case .jobs(let jobs):
                for job in jobs {
                    job.run(media.demuxer)
                    state.withLock { s in
                        s.jobsDone += 1
                        if job.moves {
                            s.serial += 1
                            s.ended = false
                            s.fault = .fine
                            (s.front, s.readStart) = (nil, nil)
                            for k in s.queues.keys { s.queues[k]!.removeAll() }
                        }
                    }
                }
            case .read:
                state.withLock { $0.readingSince = clock.now() }
                let read = Result { try media.demuxer.read(into: packet) }
                let interrupted = state.withLock { s -> Bool in
                    defer { (s.readingSince, s.interrupted) = (nil, false) }
                    return s.interrupted
                }
                // (The end, or a fault that ends the stream there: what was read plays on, a move reads again.)
                guard case .success(true) = read else {
                    if interrupted { continue }
                    let isURL = Demuxer.isURL(path)
                    state.withLock { s in
                        s.ended = true
                        s.fault = PlayerReader.fault(of: read, s, end: end, isURL: isURL)
                    }
                    continue
                }
                let timestamp = packet.timestamp
                let item = Item(packet: packet, timestamp: timestamp, size: packet.size, isKeyframe: packet.isKeyframe)
                guard let fresh = try? Packet() else { return }
                packet = fresh   // (the read one now belongs to its queue)
                state.withLock { s in PlayerReader.queue(item, in: &s, limits: limits) }
            }
        }
    }
}
