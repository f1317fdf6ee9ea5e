import FFmpegBridge

/// A packed 8-bit RGB picture held in Swift memory: `pixels.count == width * height * 3`, rows top to bottom.
public struct RGBImage: Sendable, Equatable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// RGB bytes, row after row.
    public var pixels: [UInt8]

    /// A picture of `width × height` from `pixels` (`width * height * 3` bytes).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 3, "RGB buffer size mismatch")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A black picture.
    public init(width: Int, height: Int) {
        self.init(width: width, height: height, pixels: [UInt8](repeating: 0, count: width * height * 3))
    }

    /// Bytes per row.
    public var stride: Int { width * 3 }

    /// The pixels the decoders, the scaler or the encoders gave (the bytes are shared, not copied).
    init(_ packed: PackedRGB) {
        self.init(width: packed.width, height: packed.height, pixels: packed.pixels)
    }

    /// The pixels for the scaler and the encoders (the bytes are shared, not copied).
    var packed: PackedRGB { PackedRGB(width: width, height: height, pixels: pixels) }

    /// The pixels as a zlib stream at `level` (1 fastest): what kitty's `o=z` takes. Nil when zlib fails.
    public func deflated(level: Int32 = 1) -> [UInt8]? { Deflate.compress(pixels, level: level) }

    /// This picture resized to `width × height` (area averaging when shrinking, bicubic when enlarging), with
    /// swscale.
    public func resized(width: Int, height: Int) throws -> RGBImage {
        if width == self.width && height == self.height { return self }
        return RGBImage(try Scaler().resize(packed, width: width, height: height))
    }

    /// The picture encoded as `format` file bytes; `quality` (1–100) applies to JPEG and WebP.
    public func encoded(as format: ImageFormat, quality: Int = 85) throws -> [UInt8] {
        try ImageEncoder.encode(packed, as: format.encoderFormat, quality: quality)
    }

    /// This picture transformed for display: mirrored, then rotated clockwise.
    public func applying(_ orientation: Orientation) -> RGBImage {
        if orientation == .identity { return self }
        let (ow, oh) = orientation.displaySize(width: width, height: height)
        var out = [UInt8](repeating: 0, count: ow * oh * 3)
        let w = width, h = height
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    for x0 in 0..<w {
                        let x = orientation.mirrored ? w - 1 - x0 : x0
                        let (dx, dy): (Int, Int)
                        switch orientation.rotation {
                        case 90: (dx, dy) = (h - 1 - y, x)
                        case 180: (dx, dy) = (w - 1 - x, h - 1 - y)
                        case 270: (dx, dy) = (y, w - 1 - x)
                        default: (dx, dy) = (x, y)
                        }
                        let s = (y * w + x0) * 3, d = (dy * ow + dx) * 3
                        dst[d] = src[s]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s + 2]
                    }
                }
            }
        }
        return RGBImage(width: ow, height: oh, pixels: out)
    }
}
