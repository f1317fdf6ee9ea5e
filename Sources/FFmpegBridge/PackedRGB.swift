/// Packed 8-bit RGB pixels in Swift memory, as the scaler, the still decoders and the encoders exchange them:
/// `pixels.count == width * height * 3`, rows top to bottom. (ScrubKit's public `PackedRGB` wraps it, sharing the
/// bytes.)
public struct PackedRGB: Sendable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// RGB bytes, row after row.
    public var pixels: [UInt8]

    /// Pixels of a `width × height` picture (`width * height * 3` bytes).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 3, "RGB buffer size mismatch")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Bytes per row.
    public var stride: Int { width * 3 }
}
