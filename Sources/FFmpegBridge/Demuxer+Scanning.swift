import CFFmpeg
import MediaTime

/// Statistics of the packets of one stream, gathered without decoding.
public struct PacketScan: Sendable {
    /// Presentation times of keyframe packets seen.
    public var keyframeTimes: [MediaTime] = []
    /// Packets seen for the stream.
    public var packetCount = 0
    /// The latest presentation end time seen (pts + duration).
    public var lastEndTime: MediaTime = .invalid
}

extension Demuxer {
    /// Reads up to `maxPackets` packets of `streamIndex` from the current position, noting keyframes.
    public func scanPackets(streamIndex: Int, maxPackets: Int, maxKeyframes: Int) throws -> PacketScan {
        var scan = PacketScan()
        let packet = try Packet()
        let tb = stream(streamIndex).pointee.time_base
        var total = 0
        while scan.packetCount < maxPackets, scan.keyframeTimes.count < maxKeyframes, total < maxPackets * 8 {
            guard try read(into: packet) else { break }
            total += 1
            guard packet.streamIndex == streamIndex else { continue }
            scan.packetCount += 1
            let t = MediaTime(
                pts: packet.timestamp, timeBase: (tb.num, tb.den))
            if packet.isKeyframe, t.isNumeric { scan.keyframeTimes.append(t) }
            let end = t + MediaTime(pts: packet.pointer.pointee.duration, timeBase: (tb.num, tb.den))
            if end.isNumeric, !scan.lastEndTime.isNumeric || end > scan.lastEndTime { scan.lastEndTime = end }
        }
        return scan
    }

    /// Whether seeking by timestamp is a search over timestamps of any packet (MPEG-TS/PS: it lands on whatever packet
    /// is near, usually not a keyframe) while byte positions can be sought: keyframes are then better found by
    /// reading packet headers (``lastKeyframe(streamIndex:atOrBefore:maxPackets:)``) and sought by byte.
    public var seeksKeyframesByScanning: Bool {
        guard let format = context.pointee.iformat else { return false }
        return format.pointee.flags & AVFMT_TS_DISCONT != 0 && format.pointee.flags & AVFMT_NO_BYTE_SEEK == 0
    }

    /// Reads packet headers of `streamIndex` forward from the current position (nothing decoded) until one is decoded
    /// after `timestamp` (stream time base), and returns the byte position and timestamp of the last keyframe packet
    /// presented at or before it, or nil when there was none in that stretch.
    public func lastKeyframe(
        streamIndex: Int, atOrBefore timestamp: Int64, maxPackets: Int
    ) throws -> (position: Int64, timestamp: Int64)? {
        let packet = try Packet()
        var found: (position: Int64, timestamp: Int64)? = nil
        var seen = 0
        while seen < maxPackets {
            guard try read(into: packet) else { break }
            guard packet.streamIndex == streamIndex else { continue }
            seen += 1
            let pts = packet.timestamp
            let decodeTime = packet.dts != MediaTime.noTimestamp ? packet.dts : pts
            if packet.isKeyframe, pts != MediaTime.noTimestamp, pts <= timestamp, packet.position >= 0 {
                found = (packet.position, pts)
            }
            if decodeTime != MediaTime.noTimestamp, decodeTime > timestamp { break }
        }
        return found
    }

    /// Seeks to a byte position (one a packet was read from).
    public func seek(bytePosition: Int64) throws {
        armDeadline()
        hasRead = true
        try check(avformat_seek_file(context, -1, Int64.min, bytePosition, bytePosition, AVSEEK_FLAG_BYTE), "seek")
    }

    /// Seeks near the end of the file (by bytes) and returns the latest packet end time of `streamIndex` there,
    /// for files whose header duration cannot be trusted.
    public func lastPacketEndTime(streamIndex: Int) throws -> MediaTime {
        armDeadline()
        guard let size = fileSize else { return .invalid }
        let target = Int64(max(0, size - 2_000_000))
        hasRead = true
        if target > 0, avformat_seek_file(context, -1, Int64.min, target, target, AVSEEK_FLAG_BYTE) >= 0 {
            let scan = try scanPackets(streamIndex: streamIndex, maxPackets: 100_000, maxKeyframes: .max)
            if scan.lastEndTime.isNumeric { return scan.lastEndTime }
        }
        // Formats without byte seeking (MP4): read every packet header when the file is small enough (no decoding).
        guard size <= 512 << 20 else { return .invalid }
        rewind()
        return try scanPackets(streamIndex: streamIndex, maxPackets: .max / 16, maxKeyframes: .max).lastEndTime
    }

    /// The presentation time of the keyframe at or before `time` according to the demuxer's index, or nil when the
    /// container has no usable index (e.g. MPEG-TS) — callers then fall back to a distance heuristic.
    public func indexedKeyframe(streamIndex: Int, atOrBefore time: MediaTime) -> MediaTime? {
        indexEntry(streamIndex: streamIndex, atOrBefore: time, flags: AVSEEK_FLAG_BACKWARD)
    }

    /// The index time of the first keyframe entry after the index time `time` (an entry's own time, as
    /// ``indexedKeyframe(streamIndex:atOrBefore:)`` returns it), nil when the index has none after it or no index.
    public func indexedKeyframe(streamIndex: Int, after time: MediaTime) -> MediaTime? {
        let st = stream(streamIndex)
        let tb = st.pointee.time_base
        guard avformat_index_get_entries_count(st) > 0,
              let ts = time.pts(timeBase: (tb.num, tb.den), method: .roundTowardNegativeInfinity), ts < Int64.max,
              let entry = avformat_index_get_entry_from_timestamp(st, ts + 1, 0) else { return nil }
        return MediaTime(pts: entry.pointee.timestamp, timeBase: (tb.num, tb.den))
    }

    /// The index time of the latest packet of any kind (not only keyframes) at or before `time`, or nil without an
    /// index. For MP4 this is every sample the file says it has, read or not (decode times).
    public func indexedPacket(streamIndex: Int, atOrBefore time: MediaTime) -> MediaTime? {
        indexEntry(streamIndex: streamIndex, atOrBefore: time, flags: AVSEEK_FLAG_BACKWARD | AVSEEK_FLAG_ANY)
    }

    private func indexEntry(streamIndex: Int, atOrBefore time: MediaTime, flags: Int32) -> MediaTime? {
        let st = stream(streamIndex)
        let tb = st.pointee.time_base
        guard avformat_index_get_entries_count(st) > 0,
              let ts = time.pts(timeBase: (tb.num, tb.den), method: .roundTowardNegativeInfinity),
              let entry = avformat_index_get_entry_from_timestamp(st, ts, flags) else { return nil }
        return MediaTime(pts: entry.pointee.timestamp, timeBase: (tb.num, tb.den))
    }
}
