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

/// A sixel palette (up to 256 colours, median cut) chosen for one picture and used for the pictures after it while it
/// still fits them: a video's pictures change little from one to the next, and choosing a palette is most of
/// libsixel's work per picture. Owns its libsixel dither; use from one thread at a time.
public final class SixelPalette: @unchecked Sendable {   // unchecked: its owner (SixelRenderer's cache) serialises use
    fileprivate let dither: OpaquePointer

    /// The palette for `pixels` (packed RGB, `width × height`); nil on failure.
    public init?(pixels: [UInt8], width: Int, height: Int) {
        guard width > 0, height > 0, pixels.count == width * height * 3 else { return nil }
        var copy = pixels
        guard
            let d = copy.withUnsafeMutableBufferPointer({
                scrub_sixel_palette_new($0.baseAddress, Int32(width), Int32(height))
            })
        else { return nil }
        dither = d
    }

    deinit { scrub_sixel_palette_free(dither) }
}

extension SixelEncoder {
    /// The DCS sixel sequence for packed RGB pixels drawn with `palette` (libsixel's fast encoding policy), or nil.
    public static func encode(pixels: [UInt8], width: Int, height: Int, palette: SixelPalette) -> String? {
        guard width > 0, height > 0, pixels.count == width * height * 3 else { return nil }
        var copy = pixels
        var buffer = scrub_sixel_buffer(data: nil, length: 0, capacity: 0)
        defer { scrub_sixel_buffer_free(&buffer) }
        let status = copy.withUnsafeMutableBufferPointer { p in
            scrub_sixel_encode_with(p.baseAddress, Int32(width), Int32(height), palette.dither, &buffer)
        }
        guard status == 0, let data = buffer.data else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: buffer.length), as: UTF8.self)
    }
}
