import CSixel

/// Sixel encoding with libsixel (palette choice and dithering done by the library most sixel tools use).
/// Part of the C-bridge layer: the only place that touches libsixel's pointers.
public enum SixelEncoder {
    /// The DCS sixel sequence for packed RGB pixels (`pixels.count == width * height * 3`), or nil on failure.
    public static func encode(pixels: [UInt8], width: Int, height: Int, fast: Bool = true) -> String? {
        guard width > 0, height > 0, pixels.count == width * height * 3 else { return nil }
        var copy = pixels   // libsixel takes a mutable pointer
        var buffer = scrub_sixel_buffer(data: nil, length: 0, capacity: 0)
        defer { scrub_sixel_buffer_free(&buffer) }
        let status = copy.withUnsafeMutableBufferPointer { p in
            scrub_sixel_encode_rgb(p.baseAddress, Int32(width), Int32(height), fast ? 1 : 0, &buffer)
        }
        guard status == 0, let data = buffer.data else { return nil }
        let bytes = UnsafeRawBufferPointer(start: data, count: buffer.length)
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension SixelEncoder {
    /// libsixel's version (the headers': the library has no run-time query).
    public static var libraryVersion: String { LIBSIXEL_VERSION }
}
