import CMD
import CZlib

/// Checksums and digests of byte strings, from the C libraries that already do them: zlib's CRC-32 (cheap; zlib is
/// mapped anyway) and libmd's MD5 (where a format demands MD5: libavutil's would map FFmpeg's ~20 libraries with it).
public enum Checksum {
    /// CRC-32 (the ISO-HDLC / PNG / zlib polynomial) of `bytes`, continuing from `initial` (0 to start).
    public static func crc32<Bytes: Collection<UInt8>>(_ bytes: Bytes, initial: UInt32 = 0) -> UInt32 {
        let run: (UnsafeRawBufferPointer) -> UInt32 = { buf in
            var crc = UInt(initial)
            var offset = 0
            // zlib takes a 32-bit length: feed it in pieces.
            while offset < buf.count {
                let n = min(buf.count - offset, 1 << 30)
                crc = CZlib.crc32(
                    crc, buf.baseAddress!.advanced(by: offset).assumingMemoryBound(to: Bytef.self), uInt(n))
                offset += n
            }
            return UInt32(truncatingIfNeeded: crc)
        }
        if let r = bytes.withContiguousStorageIfAvailable({ run(UnsafeRawBufferPointer($0)) }) { return r }
        return Array(bytes).withUnsafeBytes(run)
    }

    /// MD5 of `bytes` as 32 lowercase hex digits (libmd's `MD5Data`).
    public static func md5Hex(_ bytes: [UInt8]) -> String {
        var text = [CChar](repeating: 0, count: 33)
        bytes.withUnsafeBufferPointer { src in
            text.withUnsafeMutableBufferPointer { dst in _ = MD5Data(src.baseAddress, src.count, dst.baseAddress) }
        }
        return String(decoding: text.prefix(32).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
