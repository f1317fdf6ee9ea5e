@testable import FFmpegBridge
import Testing

/// Where a copy may start or join, read from NAL units built here bit by bit.
struct RandomAccessPointTests {
    /// A slice NAL unit of `type` (1 or 5) whose header says `first_mb_in_slice` 0 and `slice_type`.
    func slice(type: UInt8, sliceType: Int) -> ArraySlice<UInt8> {
        // ue(0) = "1"; ue(n) = (bits of n + 1, after as many zeros less one).
        let code = String(sliceType + 1, radix: 2)
        var bits = "1" + String(repeating: "0", count: code.count - 1) + code
        while bits.count % 8 != 0 { bits += "1" }
        var bytes: [UInt8] = [0x60 | type]
        for i in stride(from: 0, to: bits.count, by: 8) {
            let start = bits.index(bits.startIndex, offsetBy: i)
            bytes.append(UInt8(bits[start..<bits.index(start, offsetBy: 8)], radix: 2)!)
        }
        return bytes[...]
    }

    @Test func anIDRStartsAfreshAnIPictureIsOpenAPOrBPictureIsNoStart() {
        #expect(RandomAccessPoint.h264Kind([slice(type: 5, sliceType: 7)]) == .fresh)
        #expect(RandomAccessPoint.h264Kind([slice(type: 1, sliceType: 7), slice(type: 1, sliceType: 2)]) == .open)
        // An intra-refresh recovery point: a keyframe to MP4, P slices to the decoder.
        #expect(RandomAccessPoint.h264Kind([slice(type: 1, sliceType: 5)]) == .none)
        #expect(RandomAccessPoint.h264Kind([slice(type: 1, sliceType: 7), slice(type: 1, sliceType: 0)]) == .none)
        #expect(RandomAccessPoint.h264Kind([[0x67, 0x64]]) == .none, "parameter sets alone are no picture")
        #expect(RandomAccessPoint.sliceType(slice(type: 1, sliceType: 6)) == 6)
    }

    @Test func hevcIDRAndBLAStartAfreshCRAIsOpen() {
        func unit(_ type: Int) -> ArraySlice<UInt8> { [UInt8(type << 1), 0x01, 0xAF][...] }
        #expect(RandomAccessPoint.hevcKind([unit(32), unit(19)]) == .fresh)
        #expect(RandomAccessPoint.hevcKind([unit(16)]) == .fresh)
        #expect(RandomAccessPoint.hevcKind([unit(21)]) == .open)
        #expect(RandomAccessPoint.hevcKind([unit(1)]) == .none)
    }

    @Test func lengthPrefixedUnitsAreSplitAndAnUnreadableHeaderIsNoStart() {
        let units = lengthPrefixedUnits([0, 0, 0, 2, 0x65, 0x88, 0, 0, 0, 1, 0x06] as [UInt8], lengthSize: 4)
        #expect(units == [4..<6, 10..<11])
        #expect(lengthPrefixedUnits([0, 0, 0, 9, 0x65] as [UInt8], lengthSize: 4) == nil, "a length past the packet")
        // (00 00 03: the 03 is emulation prevention, taken out; what is left has no Exp-Golomb code in it.)
        #expect(RandomAccessPoint.sliceType([0x61, 0x00, 0x00, 0x03, 0x01][...]) == nil)
        #expect(RandomAccessPoint.h264Kind([[0x61, 0x00, 0x00, 0x03, 0x01]]) == .none)
    }
}
