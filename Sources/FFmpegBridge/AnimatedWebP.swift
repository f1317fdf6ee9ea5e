import CWebP

/// Writes an animated WebP (lossy, looping) from packed RGB frames: libwebp's animation encoder, which keeps only
/// the encoded frames. Not thread-safe.
public final class AnimatedWebP {
    private let encoder: UnsafeMutablePointer<scrub_webp_anim>
    /// The frame size every added picture must have.
    public let width: Int, height: Int

    /// An animation of `width × height` frames at `quality` (0–100).
    public init(width: Int, height: Int, quality: Int) throws {
        guard width > 0, height > 0, let e = scrub_webp_anim_new(Int32(width), Int32(height), Float(quality)) else {
            throw FFmpegError(operation: "animated WebP", message: "libwebp cannot make a \(width)×\(height) "
                + "animation")
        }
        encoder = e
        self.width = width
        self.height = height
    }

    deinit { scrub_webp_anim_free(encoder) }

    /// Adds a frame (`width × height × 3` bytes of RGB) shown from `milliseconds` on.
    public func add(_ rgb: [UInt8], at milliseconds: Int) throws {
        guard rgb.count == width * height * 3 else {
            throw FFmpegError(
                operation: "animated WebP", message: "a frame of \(rgb.count) bytes for \(width)×\(height)")
        }
        let ok = rgb.withUnsafeBufferPointer { scrub_webp_anim_add(encoder, $0.baseAddress, Int32(milliseconds)) }
        if ok == 0 { throw FFmpegError(operation: "animated WebP", message: "libwebp could not encode a frame") }
    }

    /// The finished file, the last frame lasting until `milliseconds`.
    public func finish(at milliseconds: Int) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        guard scrub_webp_anim_finish(encoder, Int32(milliseconds), &out, &size) != 0, let out else {
            throw FFmpegError(operation: "animated WebP", message: "libwebp could not assemble the animation")
        }
        defer { WebPFree(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }
}
