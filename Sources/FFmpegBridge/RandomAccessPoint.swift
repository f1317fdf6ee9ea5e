import CFFmpeg

/// What a keyframe packet of H.264 or HEVC lets a copy do, read from its NAL units (a container's keyframe flag says
/// less: MP4 marks an intra-refresh recovery point as a sync sample, an open group's I picture is flagged like an
/// IDR). Other codecs' keyframes are taken at their word.
public enum RandomAccessPoint: Equatable, Sendable {
    /// Starts the stream afresh (H.264 IDR, HEVC IDR or BLA): pictures after it refer to nothing before, and new
    /// parameter sets may come with it — where copied pictures can follow re-encoded ones.
    case fresh
    /// Decodes by itself (an H.264 picture of I slices, HEVC's CRA) but pictures shown before it may refer to the
    /// group before: a copy can start here, leaving those out; a decoder meeting new parameter sets waits past it.
    case open
    /// Not a place to start (an intra-refresh recovery point, a picture with P or B slices, or no keyframe).
    case none

    /// The kind of `packet`, of stream `streamIndex` of `demuxer`.
    public static func of(_ packet: Packet, streamIndex: Int, in demuxer: Demuxer) -> RandomAccessPoint {
        guard packet.isKeyframe else { return .none }
        let par = demuxer.stream(streamIndex).pointee.codecpar!
        let id = par.pointee.codec_id
        guard id == AV_CODEC_ID_H264 || id == AV_CODEC_ID_HEVC else { return .fresh }
        let extradata = par.pointee.extradata.map {
            Array(UnsafeBufferPointer(start: $0, count: Int(par.pointee.extradata_size)))
        } ?? []
        let hevc = id == AV_CODEC_ID_HEVC
        let lengthSize = hevc ? HeadEncoder.framing(hvcC: extradata).0 : HeadEncoder.framing(avcC: extradata).0
        // (Each unit's first bytes are enough: its header, and a slice's first two codes.)
        let units = lengthSize.map { (packet.nalUnitHeads(lengthSize: $0, headBytes: 32) ?? []).map { $0[...] } }
            ?? HeadEncoder.nalUnits(packet.data)
        return hevc ? hevcKind(units) : h264Kind(units)
    }

    /// HEVC: BLA and IDR (16–20) start afresh, CRA (21) is open; other pictures are no start.
    static func hevcKind(_ units: [ArraySlice<UInt8>]) -> RandomAccessPoint {
        let types = units.compactMap { $0.first.map { Int($0 >> 1) & 0x3F } }.filter { $0 < 32 }
        if types.contains(where: { (16...20).contains($0) }) { return .fresh }
        return types.contains(21) ? .open : .none
    }

    /// H.264: an IDR slice (5) starts afresh; a picture whose slices (1) are all I or SI is open; else none.
    static func h264Kind(_ units: [ArraySlice<UInt8>]) -> RandomAccessPoint {
        let slices = units.filter { $0.first.map { $0 & 0x1F == 1 || $0 & 0x1F == 5 } ?? false }
        if slices.contains(where: { $0.first! & 0x1F == 5 }) { return .fresh }
        guard !slices.isEmpty else { return .none }
        return slices.allSatisfy { sliceType($0).map { $0 % 5 == 2 || $0 % 5 == 4 } ?? false } ? .open : .none
    }

    /// A slice's `slice_type` (its header's second Exp-Golomb code, after `first_mb_in_slice`); nil when unreadable.
    static func sliceType(_ unit: ArraySlice<UInt8>) -> Int? {
        var r = RBSPReader(unit.dropFirst().prefix(16))
        guard (try? r.ue()) != nil else { return nil }
        return try? r.ue()
    }
}
