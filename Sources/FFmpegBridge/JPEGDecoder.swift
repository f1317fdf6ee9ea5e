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

    /// Decodes `path` at 1/`denominator` (1, 2, 4, 8) of its size. `fullSize`: the picture's size when the caller
    /// read it from the header already (at most `maxPixels`): libjpeg then writes the scaled picture straight into the
    /// returned array (libjpeg's scaled size is ⌈size / denominator⌉), instead of a buffer copied afterwards.
    public static func decode(
        path: String, denominator: Int, maxPixels: Int, fullSize: (width: Int, height: Int)? = nil
    ) -> Outcome {
        let d = [1, 2, 4, 8].contains(denominator) ? denominator : 1
        var result = scrub_jpeg_result()
        defer { scrub_jpeg_free(&result) }
        var status: Int32 = 1
        let expected = fullSize.map { $0.width > 0 && $0.height > 0 && $0.width * $0.height <= maxPixels
                                      ? (($0.width + d - 1) / d) * (($0.height + d - 1) / d) * 3 : 0 } ?? 0
        var pixels = [UInt8](unsafeUninitializedCapacity: expected) { buffer, initialized in
            status = scrub_jpeg_decode(path, Int32(d), Int64(maxPixels), buffer.baseAddress, buffer.count, &result)
            initialized = status == 0 && result.pixels == nil ? buffer.count : 0
        }
        switch status {
        case 0:
            if result.pixels != nil {  // (another size than the header said: libjpeg's own buffer)
                pixels = Array(
                    UnsafeBufferPointer(start: result.pixels, count: Int(result.width) * Int(result.height) * 3))
            }
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
