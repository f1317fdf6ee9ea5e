import FFmpegBridge
import Foundation
import MediaTime

/// The JPEG still fast path: libjpeg-turbo decodes at 1/2, 1/4 or 1/8 in the DCT domain while streaming from the
/// file (what vipsthumbnail does), so memory follows the output instead of the file or the picture. FFmpeg's path
/// holds the whole file twice (a packet and the decoder's unescaped copy) and probes at full size.
extension ThumbnailGenerator {
    /// The thumbnail of a JPEG file, or nil when this path does not apply (not a JPEG, or libjpeg declines it —
    /// lossless, CMYK, damaged headers — and FFmpeg gets its turn). Throws for a picture above the pixel limit.
    /// `head`: the file's first bytes (``ImageHeader/head(path:)``), which serve the type check, the size and the
    /// EXIF orientation.
    func jpegStillThumbnail(head: [UInt8]) throws -> (Thumbnail, Timeline)? {
        guard ImageHeader.isJPEG(head), let (w, h) = ImageHeader.dimensions(bytes: head), w > 0, h > 0 else { return nil }
        if w * h > pixelLimit { throw MediaError.overPixelLimit(path, width: w, height: h, limit: pixelLimit) }
        let exif = Orientation(exif: ExifOrientation.read(bytes: head) ?? 1)
        let rotate = appliesPreferredTrackTransform && exif != .identity
        let upright = rotate ? exif.displaySize(width: w, height: h) : (w, h)
        let out = maximumSize.fit(width: upright.0, height: upright.1, allowsUpscaling: allowsUpscaling)
        let stored = rotate && exif.swapsDimensions ? (out.1, out.0) : (out.0, out.1)
        // The largest 1/2^k whose picture still covers the output (then one quality downscale).
        let k = allowsShrinkOnLoad && maximumSize != .unscaled ? ThumbnailGenerator.shrinkFactor(width: w, height: h, covering: stored) : 0
        switch JPEGDecoder.decode(path: path, denominator: 1 << k, maxPixels: pixelLimit) {
        case .declined:
            return nil
        case .tooLarge(let fw, let fh):
            throw MediaError.overPixelLimit(path, width: fw, height: fh, limit: pixelLimit)
        case .decoded(let picture, _, _):
            return try finishStill(picture, size: stored, orientation: rotate ? exif : .identity, display: upright, codec: "mjpeg")
        }
    }

    /// A decoded still made into the result: scaled to `size` in one quality pass (unless it already is), then
    /// turned upright by `orientation`.
    func finishStill(_ picture: RGBImage, size: (Int, Int), orientation: Orientation, display: (Int, Int),
                     codec: String) throws -> (Thumbnail, Timeline) {
        var image = picture
        if (picture.width, picture.height) != size {
            do { image = try Scaler().resize(picture, width: size.0, height: size.1) }
            catch { throw MediaError(.decodeFailed, path: path, "cannot scale the picture: \(error)") }
        }
        if orientation != .identity { image = image.applying(orientation) }
        let thumb = Thumbnail(requestedTime: .zero, actualTime: .zero, image: image, orientation: orientation, isExact: false)
        return (thumb, Timeline(start: .zero, duration: .invalid, isStill: true, codec: codec,
                                displayWidth: display.0, displayHeight: display.1))
    }
}
