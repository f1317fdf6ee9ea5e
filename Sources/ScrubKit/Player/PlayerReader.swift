import FFmpegBridge
import Foundation
import Locking
import MediaTime

/// The one reader of a played file, shaped like mpv's demuxer thread: it opens the file once (the front door), reads
/// every packet once on a thread of its own and hands each stream's packets to that stream's queue — the picture's,
/// and every audio stream's (so another can be chosen without reading again) — for the chains to decode as peers.
///
/// Reading is bounded like mpv's demuxer cache: it goes on while a queue that is being played holds less than
/// ``Limits/readAhead`` seconds and all queues less than ``Limits/bytes`` together (a chain waiting for a packet is
/// always served, so a long group of pictures cannot starve it); queues nobody plays keep only their last
/// ``Limits/keep`` seconds. A network file is read as it is played, never downloaded whole.
///
/// Positioning (a seek, a rewind, a keyframe scan) runs on the reader's thread, asked by a chain through its
/// ``QueuedStream``; when it moves the file, every queue is emptied and the serial goes up (one flush, one serial).
/// The demuxer never leaves the thread.
final class PlayerReader: Sendable {
    /// How far the reader reads ahead, and what it keeps behind.
    struct Limits: Sendable {
        /// Seconds a played queue is filled to.
        var readAhead: Double
        /// Seconds a sound queue keeps behind its newest packet (unplayed, or behind its chain): enough to start
        /// playing it where the picture is, or again where a pause left it, without moving the file (sound is small:
        /// 30 s of 160 kbit/s AAC is 600 KB).
        var keep: Double
        /// Bytes all queues may hold together (a waiting chain is served past it).
        var bytes = 64 << 20

        /// As mpv: a local file is read a second ahead (the disk answers at once), a URL five (the network may not).
        static func `for`(_ path: String) -> Limits {
            Limits(readAhead: Demuxer.isURL(path) ? 5 : 1, keep: 30)
        }
    }

    /// A packet read from the file, kept in its stream's queue (chains get references to it: it is never shared
    /// mutably, and the reader's thread and the chains touch it only under the lock).
    struct Item: @unchecked Sendable {   // unchecked: the packet is written once by the reader, then only referenced under the lock
        let packet: Packet
        /// The presentation (else decode) time in the stream's time base; `MediaTime.noTimestamp` when unknown.
        let timestamp: Int64
        let size: Int
        let isKeyframe: Bool
    }

    /// One stream's packets: those already handed to its chain (kept a while behind, so a chain can go back a little
    /// without moving the file, as mpv's back buffer) and those ahead of it.
    private struct Queue {
        var items: [Item] = []
        /// The next item to hand out.
        var head = 0
        var bytes = 0
        /// The stream's time base, to count seconds.
        var timeBase: (num: Int32, den: Int32)
        /// A chain plays it (it is kept filled to the read-ahead).
        var played = false
        /// A chain waits for its next packet.
        var waiting = false
        /// It keeps packets behind its chain (sound, whose chain starts again a little before where it was); a
        /// picture's queue drops them (its chain moves only by seeking the file).
        var keepsBehind: Bool

        /// The most packets a queue keeps behind its chain (or unplayed), whatever their times say.
        static let maximumKept = 20_000

        /// Packets ahead of the chain.
        var count: Int { items.count - head }

        /// Seconds from item `from` to the newest.
        func span(from i: Int) -> Double {
            guard i < items.count - 1 else { return 0 }
            let first = items[i].timestamp, last = items[items.count - 1].timestamp
            guard first != MediaTime.noTimestamp, last != MediaTime.noTimestamp, timeBase.den > 0 else { return 0 }
            return Double(last - first) * Double(timeBase.num) / Double(timeBase.den)
        }

        /// Seconds queued ahead of the chain.
        var seconds: Double { span(from: head) }

        mutating func append(_ item: Item, keep: Double) {
            items.append(item)
            bytes += item.size
            // Behind the chain (or, unplayed, anywhere): only the last `keep` seconds stay; none behind a picture's.
            if !keepsBehind && head > 0 {
                for gone in items[..<head] { bytes -= gone.size }
                items.removeFirst(head)
                head = 0
            }
            // (Packets without times cannot be counted in seconds: at most `maximumKept` of them.)
            while items.count > 1, head > 0 || !played, span(from: 0) > keep || items.count > Queue.maximumKept {
                bytes -= items[0].size
                items.removeFirst()
                head = max(0, head - 1)
            }
        }

        mutating func takeNext() -> Item? {
            guard head < items.count else { return nil }
            head += 1
            return items[head - 1]
        }

        /// Goes to the last keyframe at or before `timestamp` among the kept packets (the first kept one when the
        /// time is before them all), unless the time is past the newest.
        mutating func reposition(at timestamp: Int64) -> Bool {
            guard let newest = items.last?.timestamp, newest != MediaTime.noTimestamp, timestamp <= newest else { return false }
            let keyframes = items.indices.filter { items[$0].isKeyframe && items[$0].timestamp != MediaTime.noTimestamp }
            guard let i = keyframes.last(where: { items[$0].timestamp <= timestamp }) ?? keyframes.first else { return false }
            head = i
            return true
        }

        mutating func removeAll() { items.removeAll(); head = 0; bytes = 0 }
    }

    /// A job for the reader's thread: it runs with the demuxer; `moves` says whether it may have moved the read position.
    private struct Job: @unchecked Sendable {   // unchecked: the closure runs on the reader's thread while its caller waits
        let run: (Demuxer) -> Void
        let moves: Bool
    }

    private struct State {
        var queues: [Int: Queue] = [:]
        var serial = 0
        /// The end of the file (or a read error) was reached after the last move.
        var ended = false
        var closed = false
        var jobs: [Job] = []
        /// Jobs taken so far, and finished so far (a caller waits for its own number).
        var jobsTaken = 0
        var jobsDone = 0
        /// Packets read (any stream queued) and their bytes, since opening.
        var packetsRead = 0
        var bytesRead = 0
    }

    /// The file or URL.
    let path: String
    let limits: Limits
    private let state = Locked(State())

    /// Opens `path` on a thread of its own at the front door (lean probing) and calls `opened` there with the reader
    /// and the file's facts (the streams it queues — the picture's and every audio stream — are then ready to be read
    /// through ``stream(_:)``), or with the error; then reads until ``close()``. Reading starts once `opened` returns.
    init(path: String, limits: Limits? = nil, opened: @escaping @Sendable (PlayerReader, Result<OpenedFacts, MediaError>) -> Void) {
        self.path = path
        self.limits = limits ?? Limits.for(path)
        NamedThread.start("scrubkit.reader", stackSize: 8 << 20) { [self] in run(opened) }
    }

    /// What the reader learned when it opened the file.
    struct OpenedFacts: @unchecked Sendable {   // unchecked: `opened` is handed over once; its demuxer is used only through jobs
        let opened: OpenedMedia
        var facts: MediaFacts { opened.facts }
    }

    /// Stops reading for good (the thread frees the demuxer on its way out); chains waiting for packets see the end.
    func close() { state.withLock { s in s.closed = true; for k in s.queues.keys { s.queues[k]!.removeAll() } } }

    /// The queue of stream `index` as a chain reads it (nil when the reader does not queue that stream).
    func stream(_ index: Int) -> QueuedStream? {
        state.withLock { $0.queues[index] != nil } ? QueuedStream(reader: self, streamIndex: index) : nil
    }

    /// Packets and bytes read so far (the played file's only reads).
    var statistics: (packets: Int, bytes: Int) { state.withLock { ($0.packetsRead, $0.bytesRead) } }

    // MARK: - For QueuedStream (any chain's thread)

    /// Marks stream `index` played or not (a played queue is kept filled; an unplayed one keeps its last seconds).
    func setPlayed(_ index: Int, _ played: Bool) {
        state.withLock { s in s.queues[index]?.played = played }
    }

    /// The next packet of stream `index` (a reference to the queued one) in `packet`, waiting for the reader; false at
    /// the end of the file (or once closed).
    func next(_ index: Int, into packet: Packet) throws -> Bool {
        state.withLock { s in s.queues[index]?.waiting = true }
        return try state.withLock(waitingUntil: { s in s.closed || s.ended || (s.queues[index]?.count ?? 1) > 0 }) { s, _ -> Bool in
            s.queues[index]?.waiting = false
            guard !s.closed, let item = s.queues[index]?.takeNext() else { return false }   // (the end, all read)
            try packet.reference(item.packet)
            return true
        }
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
        state.withLock { s in for st in queued { s.queues[st.index] = Queue(timeBase: st.timeBase, keepsBehind: st.kind == .audio) } }
        media.demuxer.discardAllStreams(except: Set(queued.map(\.index)))
        opened(self, .success(OpenedFacts(opened: media)))
        var packet: Packet
        do { packet = try Packet() } catch { return }
        while true {
            // Jobs first (a chain waits for each), then a read when some queue wants one, else a wait for either.
            enum Next { case jobs([Job]), read, stop }
            let next = state.withLock(waitingUntil: { s in s.closed || !s.jobs.isEmpty || self.wantsRead(s) }, timeout: 0.5) { s, _ -> Next in
                if s.closed { return .stop }
                if !s.jobs.isEmpty { let j = s.jobs; s.jobs.removeAll(); s.jobsTaken += j.count; return .jobs(j) }
                return wantsRead(s) ? .read : .jobs([])
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
                            for k in s.queues.keys { s.queues[k]!.removeAll() }
                        }
                    }
                }
            case .read:
                let got: Bool
                do { got = try media.demuxer.read(into: packet) } catch { got = false }   // (a read error ends the stream there)
                if !got { state.withLock { $0.ended = true }; continue }
                let timestamp = packet.pts != MediaTime.noTimestamp ? packet.pts : packet.dts
                let item = Item(packet: packet, timestamp: timestamp, size: packet.size, isKeyframe: packet.isKeyframe)
                guard let fresh = try? Packet() else { return }
                packet = fresh   // (the read one now belongs to its queue)
                state.withLock { s in
                    guard var q = s.queues[item.packet.streamIndex] else { return }
                    q.append(item, keep: limits.keep)
                    s.queues[item.packet.streamIndex] = q
                    s.packetsRead += 1
                    s.bytesRead += item.size
                }
            }
        }
    }

    /// Whether the reader should read now: not at the end, and a chain waits for a packet, or a played queue is short
    /// of the read-ahead while all queues hold less than the byte limit — and no played queue is far past it (then the
    /// short one's stream has no packets here: a video shorter than its sound).
    private func wantsRead(_ s: State) -> Bool {
        guard !s.ended, !s.closed else { return false }
        if s.queues.values.contains(where: { $0.waiting && $0.count == 0 }) { return true }
        let bytes = s.queues.values.reduce(0) { $0 + $1.bytes }
        let played = s.queues.values.filter(\.played)
        return bytes < limits.bytes && played.contains { $0.seconds < limits.readAhead }
            && !played.contains { $0.seconds > 3 * limits.readAhead }
    }
}
