import FFmpegBridge
import MediaTime

/// Where one stream's packets come from, and how a decoder reading them is positioned: the file's own demuxer
/// (thumbnails, scenes, `info`, the background scans), or the player's reader, which reads a played file once for
/// every chain and hands each its stream's packets (``QueuedStream``). ``StreamDecoder`` and ``FrameReader`` read and
/// seek only through this.
protocol PacketSource: AnyObject {
    /// Opens a decoder for stream `streamIndex` (from the stream's parameters, where the demuxer lives).
    func makeDecoder(streamIndex: Int, threading: DecoderThreading, lowres: Int, maxPixels: Int) throws -> Decoder
    /// The next packet (of the source's stream; a demuxer gives any stream's); false at the end.
    func read(into packet: Packet) throws -> Bool
    /// Goes to the keyframe at or before `timestamp` (the stream's time base).
    func seek(streamIndex: Int, timestamp: Int64) throws
    /// Goes to a byte position (MPEG-TS/PS keyframes found by scanning).
    func seek(bytePosition: Int64) throws
    /// Goes back to the stream's first keyframe.
    func rewind(streamIndex: Int)
    /// Whether keyframes are better found by reading packet headers and sought by byte (MPEG-TS/PS).
    var seeksKeyframesByScanning: Bool { get }
    /// Reads packet headers forward to the last keyframe presented at or before `timestamp`: its byte position and
    /// time.
    func lastKeyframe(
        streamIndex: Int, atOrBefore timestamp: Int64, maxPackets: Int
    ) throws -> (position: Int64, timestamp: Int64)?
    /// The keyframe at or before `time` in the container's index; nil without one.
    func indexedKeyframe(streamIndex: Int, atOrBefore time: MediaTime) -> MediaTime?
    /// The first keyframe entry after the index time `time`; nil without one.
    func indexedKeyframe(streamIndex: Int, after time: MediaTime) -> MediaTime?
    /// The latest packet of any kind at or before `time` in the index; nil without one.
    func indexedPacket(streamIndex: Int, atOrBefore time: MediaTime) -> MediaTime?
    /// From the index alone (MP4/MOV): how far the keyframe decoded at `keyframe` stays the last one at or before a
    /// time, when that is past `target` (`Int64.max`: the end); nil when the index cannot tell.
    func indexedKeyframeLasts(streamIndex: Int, keyframe: Int64, target: Int64) -> Int64?
    /// After a seek: the reads that follow take the stream's samples from the keyframe at or before `from` through
    /// those decoded at or before `through` (an HTTP source then asks for exactly those bytes).
    func expectReading(streamIndex: Int, from: Int64, through: Int64)
    /// Lets only stream `keep`'s packets through (a demuxer read for one stream skips the others' data).
    func discardAllStreams(except keep: Int)
}

extension Demuxer: PacketSource {
    func makeDecoder(streamIndex: Int, threading: DecoderThreading, lowres: Int, maxPixels: Int) throws -> Decoder {
        try Decoder(demuxer: self, streamIndex: streamIndex, threading: threading, lowres: lowres, maxPixels: maxPixels)
    }
}

/// What a source throws instead of a packet when its stream has none near where the file is read and none will be
/// read for it now — not the end: a player's queue whose sound ended early or has a hole, whose picture ended
/// before the sound, or a cover picture's one packet taken. The chain plays on without it (sound: silence on the
/// clock) and asks again later; the reader reads on as the other chains take their packets. A ``FrameReader`` passes
/// it on with its state unchanged.
struct PacketGap: Error {}
