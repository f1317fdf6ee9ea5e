import CFFmpeg

/// H.264's decoder configuration record (`avcC`, ISO/IEC 14496-15), as MP4, MOV and Matroska carry it in a stream's
/// extradata: how long the length in front of each NAL unit of a packet is, and the SPS and PPS.
public struct AVCConfiguration: Sendable, Equatable {
    /// Bytes of the big-endian length in front of each NAL unit (1, 2 or 4).
    public var lengthSize: Int
    /// The sequence parameter sets, each a whole NAL unit (header byte first).
    public var sequenceParameterSets: [[UInt8]]
    /// The picture parameter sets, each a whole NAL unit.
    public var pictureParameterSets: [[UInt8]]

    /// Reads an avcC record; nil when `record` is not one (Annex B extradata with start codes, or none).
    public init?(record e: [UInt8]) {
        guard e.count >= 7, e[0] == 1 else { return nil }
        lengthSize = Int(e[4] & 3) + 1
        var i = 6
        func units(_ count: Int) -> [[UInt8]] {
            var out: [[UInt8]] = []
            for _ in 0..<count {
                guard i + 2 <= e.count else { break }
                let n = Int(e[i]) << 8 | Int(e[i + 1])
                guard i + 2 + n <= e.count else { break }
                out.append(Array(e[(i + 2)..<(i + 2 + n)]))
                i += 2 + n
            }
            return out
        }
        sequenceParameterSets = units(Int(e[5] & 0x1F))
        if i < e.count {
            let count = Int(e[i]); i += 1
            pictureParameterSets = units(count)
        } else {
            pictureParameterSets = []
        }
    }

    /// The parameter sets (SPS first) framed as packets carry NAL units: each behind its length.
    public var framedParameterSets: [UInt8] {
        var out: [UInt8] = []
        for unit in sequenceParameterSets + pictureParameterSets {
            for k in (0..<lengthSize).reversed() { out.append(UInt8(truncatingIfNeeded: unit.count >> (8 * k))) }
            out += unit
        }
        return out
    }
}

extension Decoder {
    /// The stream's avcC record (H.264 in MP4, MOV, Matroska), nil for any other codec or framing.
    public var avcConfiguration: AVCConfiguration? {
        guard context.pointee.codec_id == AV_CODEC_ID_H264, let data = context.pointee.extradata,
            context.pointee.extradata_size > 0
        else { return nil }
        return AVCConfiguration(
            record: Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size))))
    }
}

extension Packet {
    /// The NAL units of a packet framed with `lengthSize`-byte lengths (as avcC says), each cut to its first
    /// `headBytes` bytes (enough for a slice header); nil when the lengths do not add up to the packet.
    public func nalUnitHeads(lengthSize: Int, headBytes: Int) -> [[UInt8]]? {
        guard let data = pointer.pointee.data else { return nil }
        let bytes = UnsafeBufferPointer(start: data, count: Int(pointer.pointee.size))
        return lengthPrefixedUnits(bytes, lengthSize: lengthSize)?.map { Array(bytes[$0.prefix(headBytes)]) }
    }
}

/// Where each NAL unit of `bytes` lies, framed behind big-endian lengths of `lengthSize` bytes (as avcC and hvcC
/// say); nil when the lengths do not add up to the bytes.
func lengthPrefixedUnits<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, lengthSize: Int) -> [Range<Int>]?
    where Bytes.Index == Int {
    guard (1...4).contains(lengthSize) else { return nil }
    var units: [Range<Int>] = [], i = bytes.startIndex
    while i < bytes.endIndex {
        guard i + lengthSize <= bytes.endIndex else { return nil }
        var n = 0
        for k in 0..<lengthSize { n = n << 8 | Int(bytes[i + k]) }
        i += lengthSize
        guard n > 0, n <= bytes.endIndex - i else { return nil }
        units.append(i..<(i + n))
        i += n
    }
    return units
}
