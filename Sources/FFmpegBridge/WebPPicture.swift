import CWebP
import Glibc

/// A WebP file opened with libwebp: the first frame (also of animated files, which FFmpeg 5.1 cannot decode),
/// decoded straight to the size asked for by libwebp's rescaler, so memory follows the output, not the canvas.
/// Part of the C-bridge layer.
public final class WebPPicture {
    private let handle: UnsafeMutablePointer<scrub_webp>
    /// Size of the first frame.
    public let width: Int
    /// Height of the first frame.
    public let height: Int
    /// Frames in the file (1 for a still).
    public let frameCount: Int
    /// The EXIF chunk's TIFF data (an "Exif\0\0" prefix removed), empty when there is none.
    public let exif: [UInt8]

    /// Nil when libwebp cannot take the file (not WebP, damaged, larger than `maxBytes`): use another decoder.
    public init?(path: String, maxBytes: Int = 256 << 20) {
        guard let h = scrub_webp_open(path, Int64(maxBytes)) else { return nil }
        handle = h
        width = Int(h.pointee.width)
        height = Int(h.pointee.height)
        frameCount = Int(h.pointee.frame_count)
        if let e = h.pointee.exif, h.pointee.exif_size > 0 {
            let bytes = Array(UnsafeBufferPointer(start: e, count: h.pointee.exif_size))
            exif = bytes.starts(with: Array("Exif\0\0".utf8)) ? Array(bytes.dropFirst(6)) : bytes
        } else {
            exif = []
        }
    }

    deinit { scrub_webp_close(handle) }

    /// The first frame as RGB at `width × height` (scaled while decoding), or nil when its data is corrupt.
    public func decode(width: Int, height: Int) -> PackedRGB? {
        guard width > 0, height > 0, let p = scrub_webp_decode(handle, Int32(clamping: width), Int32(clamping: height))
        else { return nil }
        defer { free(p) }
        return PackedRGB(
            width: width, height: height, pixels: Array(UnsafeBufferPointer(start: p, count: width * height * 3)))
    }
}
