import FFmpegBridge
import MediaTime

extension PlayerReader {
    /// A packet read from the file, kept in its stream's queue (chains get references to it: it is never shared
    /// mutably, and the reader's thread and the chains touch it only under the lock).
    // unchecked: the packet is written once by the reader, then only referenced under the lock
    struct Item: @unchecked Sendable {
        let packet: Packet
        /// The presentation (else decode) time in the stream's time base; `MediaTime.noTimestamp` when unknown.
        let timestamp: Int64
        let size: Int
        let isKeyframe: Bool
    }

    /// One stream's packets: those already handed to its chain (kept a while behind, so a chain can go back a little
    /// without moving the file, as mpv's back buffer) and those ahead of it. Appending and dropping the oldest cost
    /// the same however long the queue is (the array is compacted now and then, never copied per packet).
    struct Queue {
        /// Packets; those before `first` are gone (compacted away later).
        private var items: [Item] = []
        private var first = 0
        /// The next packet to hand out (an index into `items`, at least `first`).
        private(set) var head = 0
        /// Bytes of the packets kept, and of those ahead of the chain.
        private(set) var bytes = 0
        private(set) var aheadBytes = 0
        /// The stream's time base, to count seconds.
        let timeBase: (num: Int32, den: Int32)
        /// A chain plays it (it is kept filled to the read-ahead).
        var played = false
        /// A chain waits for its next packet.
        var waiting = false
        /// Whose packets: the picture's, a sound's or subtitles'.
        enum Kind { case picture, sound, subtitles }
        let kind: Kind
        /// It keeps packets behind its chain, or unplayed, for ``Limits/keep`` seconds (sound, whose chain starts again
        /// a little before where it was; subtitles, taken when their chain gets to them); a picture's queue drops them
        /// (its chain moves only by seeking the file).
        var keepsBehind: Bool { kind != .picture }
        /// The newest presentation time read into it since the last move, and that of the last packet its chain took,
        /// in seconds (nil: none, or none with a time).
        private(set) var newestRead: Double? = nil
        private(set) var lastTaken: Double? = nil

        /// The most packets a queue keeps behind its chain (or unplayed), whatever their times say.
        static let maximumKept = 20_000

        init(timeBase: (num: Int32, den: Int32), kind: Kind) {
            self.timeBase = timeBase
            self.kind = kind
        }

        /// Packets ahead of the chain.
        var count: Int { items.count - head }

        /// Packets behind the chain (or, unplayed, all of them), which may be dropped.
        var droppable: Int { played ? head - first : items.count - first }

        /// `timestamp` (the stream's time base) in seconds; nil when unknown.
        func seconds(_ timestamp: Int64) -> Double? {
            guard timestamp != MediaTime.noTimestamp, timeBase.den > 0 else { return nil }
            return Double(timestamp) * Double(timeBase.num) / Double(timeBase.den)
        }

        /// Seconds from the oldest kept packet to the newest.
        private var keptSpan: Double {
            guard items.count - first > 1, let a = seconds(items[first].timestamp),
                  let b = seconds(items[items.count - 1].timestamp) else { return 0 }
            return b - a
        }

        mutating func append(_ item: Item, keep: Double) {
            items.append(item)
            bytes += item.size
            aheadBytes += item.size
            if let t = seconds(item.timestamp) { newestRead = max(newestRead ?? t, t) }
            // Behind the chain (or, unplayed, anywhere): only the last `keep` seconds stay; none behind a picture's,
            // and of a picture nobody plays (no room to show it) only the newest packet (a cover picture's one).
            if !keepsBehind && played { while head > first { dropOldest() } }
            let seconds = keepsBehind ? keep : 0
            // (Packets without times cannot be counted in seconds: at most `maximumKept` of them.)
            while droppable > 0 && items.count - first > 1,
                  keptSpan > seconds || items.count - first > Queue.maximumKept {
                dropOldest()
            }
        }

        /// Drops the oldest packet kept (behind the chain, or any of an unplayed queue).
        mutating func dropOldest() {
            guard first < items.count else { return }
            bytes -= items[first].size
            if first >= head { aheadBytes -= items[first].size; head = first + 1 }
            first += 1
            // (Compacted once the gone part is large and more than half: amortised constant time per packet.)
            if first > 1024 && first * 2 > items.count {
                items.removeFirst(first)
                head -= first
                first = 0
            }
        }

        /// The next packet's time (stream time base), nil when none is ahead.
        var nextTimestamp: Int64? { head < items.count ? items[head].timestamp : nil }

        mutating func takeNext() -> Item? {
            guard head < items.count else { return nil }
            let item = items[head]
            head += 1
            aheadBytes -= item.size
            if let t = seconds(item.timestamp) { lastTaken = max(lastTaken ?? t, t) }
            return item
        }

        /// The chain has played up to `timestamp` without a packet (silence in a gap).
        mutating func reached(_ timestamp: Int64) {
            if let t = seconds(timestamp) { lastTaken = max(lastTaken ?? t, t) }
        }

        /// Goes to the last keyframe at or before `timestamp` among the kept packets (the first kept one when the
        /// time is before them all), unless the time is past the newest.
        mutating func reposition(at timestamp: Int64) -> Bool {
            guard let newest = items.last?.timestamp, items.count > first, newest != MediaTime.noTimestamp,
                  timestamp <= newest else { return false }
            let keyframes = (first..<items.count).filter {
                items[$0].isKeyframe && items[$0].timestamp != MediaTime.noTimestamp
            }
            guard let i = keyframes.last(where: { items[$0].timestamp <= timestamp }) ?? keyframes.first else {
                return false
            }
            head = i
            aheadBytes = items[i...].reduce(0) { $0 + $1.size }
            lastTaken = nil
            return true
        }

        mutating func removeAll() {
            items.removeAll()
            (first, head, bytes, aheadBytes) = (0, 0, 0, 0)
            (newestRead, lastTaken) = (nil, nil)
        }
    }
}
