import CJPEG

/// JPEG decoding with libjpeg-turbo, scaled in the DCT domain while streaming from the file: memory follows the
/// scaled picture, not the file or the full picture. Part of the C-bridge layer.
public enum JPEGDecoder {
    /// What happened.
    public enum Outcome {
        /// The picture at 1/denominator size, and the full size from the header.
        case decoded(PackedRGB, fullWidth: Int, fullHeight: Int)
        /// Above the pixel limit (from the header; nothing allocated).
        case tooLarge(width: Int, height: Int)
        /// libjpeg cannot or should not do this one (corrupt, CMYK, lossless…): use another decoder.
        case declined(reason: String)
    }

    /// Decodes `path` at 1/`denominator` (1, 2, 4, 8) of its size.
    public static func decode(path: String, denominator: Int, maxPixels: Int) -> Outcome {
        var result = scrub_jpeg_result()
        let status = scrub_jpeg_decode(path, Int32([1, 2, 4, 8].contains(denominator) ? denominator : 1), Int64(maxPixels), &result)
        defer { scrub_jpeg_free(&result) }
        switch status {
        case 0:
            let count = Int(result.width) * Int(result.height) * 3
            let pixels = Array(UnsafeBufferPointer(start: result.pixels, count: count))
            return .decoded(PackedRGB(width: Int(result.width), height: Int(result.height), pixels: pixels),
                            fullWidth: Int(result.full_width), fullHeight: Int(result.full_height))
        case 2:
            return .tooLarge(width: Int(result.full_width), height: Int(result.full_height))
        default:
            let message = withUnsafeBytes(of: result.message) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            return .declined(reason: message)
        }
    }
}
