import CFFmpeg
import CZlib

/// Checksums and digests of byte strings, from the C libraries that already do them: zlib's CRC-32 (cheap; zlib is
/// mapped anyway) and libavutil's MD5 (loads libavutil on first use, ~5 ms; used where a format demands MD5).
public enum Checksum {
    /// CRC-32 (the ISO-HDLC / PNG / zlib polynomial) of `bytes`, continuing from `initial` (0 to start).
    public static func crc32<Bytes: Collection<UInt8>>(_ bytes: Bytes, initial: UInt32 = 0) -> UInt32 {
        let run: (UnsafeRawBufferPointer) -> UInt32 = { buf in
            var crc = UInt(initial)
            var offset = 0
            // zlib takes a 32-bit length: feed it in pieces.
            while offset < buf.count {
                let n = min(buf.count - offset, 1 << 30)
                crc = CZlib.crc32(crc, buf.baseAddress!.advanced(by: offset).assumingMemoryBound(to: Bytef.self), uInt(n))
                offset += n
            }
            return UInt32(truncatingIfNeeded: crc)
        }
        if let r = bytes.withContiguousStorageIfAvailable({ run(UnsafeRawBufferPointer($0)) }) { return r }
        return Array(bytes).withUnsafeBytes(run)
    }

    /// MD5 of `bytes` as 32 lowercase hex digits (libavutil's `av_md5_sum`).
    public static func md5Hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 16)
        bytes.withUnsafeBufferPointer { src in
            digest.withUnsafeMutableBufferPointer { dst in
                av_md5_sum(dst.baseAddress, src.baseAddress, src.count)
            }
        }
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }, as: UTF8.self)
    }
}
