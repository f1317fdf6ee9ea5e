import FFmpegBridge
import Foundation
import MediaTime

/// The JPEG still fast path: libjpeg-turbo decodes at 1/2, 1/4 or 1/8 in the DCT domain while streaming from the
/// file (what vipsthumbnail does), so memory follows the output instead of the file or the picture. FFmpeg's path
/// holds the whole file twice (a packet and the decoder's unescaped copy) and probes at full size.
extension ThumbnailGenerator {
    /// The thumbnail of a JPEG file, or nil when this path does not apply (not a JPEG, or libjpeg declines it —
    /// lossless, CMYK, damaged headers — and FFmpeg gets its turn). Throws for a picture above the pixel limit.
    func jpegStillThumbnail() throws -> (Thumbnail, Timeline)? {
        guard MediaFile.checkReadable(path) == nil, ImageHeader.isJPEG(path: path),
              let (w, h) = ImageHeader.dimensions(path: path), w > 0, h > 0 else { return nil }
        if w * h > pixelLimit {
            throw MediaError(.tooLarge, path: path, "picture is \(w)×\(h) (\(w * h / 1_000_000) MP), above the pixel limit of \(pixelLimit / 1_000_000) MP")
        }
        let exif = Orientation(exif: ExifOrientation.read(path: path) ?? 1)
        let rotate = appliesPreferredTrackTransform && exif != .identity
        let upright = rotate ? exif.displaySize(width: w, height: h) : (w, h)
        let out = maximumSize.fit(width: upright.0, height: upright.1, allowsUpscaling: allowsUpscaling)
        let stored = rotate && exif.swapsDimensions ? (out.1, out.0) : (out.0, out.1)
        // The largest 1/2^k whose picture still covers the output (never below it: then a quality downscale).
        var k = 0
        if allowsShrinkOnLoad && maximumSize != .unscaled {
            while k < 3, (w + (2 << k) - 1) >> (k + 1) >= stored.0, (h + (2 << k) - 1) >> (k + 1) >= stored.1 { k += 1 }
        }
        switch JPEGDecoder.decode(path: path, denominator: 1 << k, maxPixels: pixelLimit) {
        case .declined:
            return nil
        case .tooLarge(let fw, let fh):
            throw MediaError(.tooLarge, path: path, "picture is \(fw)×\(fh), above the pixel limit of \(pixelLimit / 1_000_000) MP")
        case .decoded(let picture, _, _):
            var image: RGBImage
            do { image = try Scaler().resize(picture, width: stored.0, height: stored.1) }
            catch { throw MediaError(.decodeFailed, path: path, "cannot scale the picture: \(error)") }
            if rotate { image = image.applying(exif) }
            let thumb = Thumbnail(requestedTime: .zero, actualTime: .zero, image: image, orientation: rotate ? exif : .identity, isExact: false)
            return (thumb, Timeline(start: .zero, duration: .invalid, isStill: true, codec: "mjpeg",
                                    displayWidth: upright.0, displayHeight: upright.1))
        }
    }
}
