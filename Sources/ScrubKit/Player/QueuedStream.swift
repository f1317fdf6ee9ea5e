import FFmpegBridge
import MediaTime

/// One stream of a played file as its chain reads it: packets from the ``PlayerReader``'s queue for the stream, and
/// positioning done by the reader on its thread (which empties every queue: the next packets are from the new place).
/// A ``PacketSource``, so a ``StreamDecoder`` (and a ``FrameExtractor``'s exact and keyframe policies) work on it as on
/// a file of their own. It holds no state of its own (the queue is the reader's, under its lock).
final class QueuedStream: PacketSource, Sendable {
    let reader: PlayerReader
    let streamIndex: Int

    init(reader: PlayerReader, streamIndex: Int) {
        self.reader = reader
        self.streamIndex = streamIndex
    }

    /// Whether a chain plays this stream now (kept filled ahead) or not (it keeps only its last seconds).
    func setPlayed(_ played: Bool) { reader.setPlayed(streamIndex, played) }

    func makeDecoder(streamIndex: Int, threading: DecoderThreading, lowres: Int, maxPixels: Int) throws -> Decoder {
        // (The demuxer's own, made from the stream's parameters on the reader's thread, where the demuxer lives.)
        let made = try reader.perform(moves: false) { d in
            UncheckedBox(
                try d.makeDecoder(streamIndex: streamIndex, threading: threading, lowres: lowres, maxPixels: maxPixels))
        }
        return made.value
    }

    func read(into packet: Packet) throws -> Bool { try reader.next(streamIndex, into: packet) }

    /// The chain has played up to `timestamp` (the stream's time base) without a packet: silence in a gap.
    func reached(_ timestamp: Int64) { reader.reached(streamIndex, timestamp: timestamp) }

    /// The time of the next queued packet (the stream's time base) without taking it; nil when none is queued.
    var nextTimestamp: Int64? { reader.nextTimestamp(streamIndex) }

    /// The next packet if one is queued now, without waiting (a subtitle chain's: its stream is sparse).
    func readIfQueued(into packet: Packet) throws -> Bool { try reader.nextIfQueued(streamIndex, into: packet) }

    /// Goes back (or ahead) to the last keyframe at or before `timestamp` among the packets the queue still holds (the
    /// first it holds when the time is before them), without moving the file (the other chains go on undisturbed);
    /// false when the time is past them all.
    func reposition(at timestamp: Int64) -> Bool { reader.reposition(streamIndex, at: timestamp) }

    func seek(streamIndex: Int, timestamp: Int64) throws {
        try reader.perform(moves: true) { try $0.seek(streamIndex: streamIndex, timestamp: timestamp) }
    }

    func seek(bytePosition: Int64) throws {
        try reader.perform(moves: true) { try $0.seek(bytePosition: bytePosition) }
    }

    func rewind(streamIndex: Int) {
        _ = try? reader.perform(moves: true) { $0.rewind(streamIndex: streamIndex) }
    }

    var seeksKeyframesByScanning: Bool { (try? reader.perform(moves: false) { $0.seeksKeyframesByScanning }) ?? false }

    func lastKeyframe(
        streamIndex: Int, atOrBefore timestamp: Int64, maxPackets: Int
    ) throws -> (position: Int64, timestamp: Int64)? {
        // (It reads packets forward to find it: the read position moves.)
        try reader.perform(moves: true) {
            try $0.lastKeyframe(streamIndex: streamIndex, atOrBefore: timestamp, maxPackets: maxPackets)
        }
    }

    func indexedKeyframe(streamIndex: Int, atOrBefore time: MediaTime) -> MediaTime? {
        (try? reader.perform(moves: false) { $0.indexedKeyframe(streamIndex: streamIndex, atOrBefore: time) }) ?? nil
    }

    func indexedKeyframe(streamIndex: Int, after time: MediaTime) -> MediaTime? {
        (try? reader.perform(moves: false) { $0.indexedKeyframe(streamIndex: streamIndex, after: time) }) ?? nil
    }

    func indexedPacket(streamIndex: Int, atOrBefore time: MediaTime) -> MediaTime? {
        (try? reader.perform(moves: false) { $0.indexedPacket(streamIndex: streamIndex, atOrBefore: time) }) ?? nil
    }

    /// (Read ahead for every stream at once: what one stream will read is no hint to the reader.)
    func indexedKeyframeLasts(streamIndex: Int, keyframe: Int64, target: Int64) -> Int64? { nil }

    /// (As above.)
    func expectReading(streamIndex: Int, from: Int64, through: Int64) {}

    /// (The reader already lets only the streams it queues through.)
    func discardAllStreams(except keep: Int) {}
}

/// A value made on one thread and handed to another that waited for it.
private struct UncheckedBox<T>: @unchecked Sendable {   // unchecked: handed over once, after its maker finished
    let value: T
    init(_ value: T) { self.value = value }
}
