import CJPEG
import Glibc

/// JPEG encoding with libjpeg-turbo (4:4:4, optimised Huffman tables). Part of the C-bridge layer; used for every
/// JPEG scrubkit writes, so a JPEG-to-JPEG thumbnail never loads libavcodec.
enum JPEGEncoder {
    /// The JPEG file bytes of `image` at libjpeg `quality` (1–100).
    static func encode(_ image: PackedRGB, quality: Int) throws -> [UInt8] {
        var bytes: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        let status = image.pixels.withUnsafeBufferPointer { src in
            scrub_jpeg_encode(src.baseAddress, Int32(image.width), Int32(image.height), Int32(image.stride),
                              Int32(max(1, min(100, quality))), &bytes, &size, &message)
        }
        defer { free(bytes) }
        guard status == 0, let bytes, size > 0 else {
            let reason = string(fromCBuffer: message)
            throw FFmpegError(operation: "encode jpeg", message: reason.isEmpty ? "encoder produced nothing" : reason)
        }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(size)))
    }
}
