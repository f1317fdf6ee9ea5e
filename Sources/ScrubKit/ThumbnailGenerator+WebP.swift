import FFmpegBridge
import MediaTime

/// WebP stills through libwebp: decoded straight to the output size (shrink-on-load), first frame of animations.
extension ThumbnailGenerator {
    /// The thumbnail of a WebP file, or nil when the file is not WebP or libwebp declines it (FFmpeg then tries).
    func webpStillThumbnail(head: [UInt8]) throws -> (Thumbnail, Timeline)? {
        guard ImageHeader.isWebP(head), let webp = WebPPicture(path: path) else { return nil }
        let (w, h) = (webp.width, webp.height)
        guard w > 0, h > 0 else { return nil }
        if w * h > pixelLimit { throw MediaError.overPixelLimit(path, width: w, height: h, limit: pixelLimit) }
        let exif = Orientation(exif: ExifOrientation.tiffOrientation(webp.exif) ?? 1)
        let rotate = appliesPreferredTrackTransform && exif != .identity
        let upright = rotate ? exif.displaySize(width: w, height: h) : (w, h)
        let out = maximumSize.fit(width: upright.0, height: upright.1, allowsUpscaling: allowsUpscaling)
        let stored = rotate && exif.swapsDimensions ? (out.1, out.0) : (out.0, out.1)
        // Without shrink-on-load (to measure it), decode at full size and scale afterwards.
        let decodeSize = allowsShrinkOnLoad ? stored : (w, h)
        guard let image = webp.decode(width: decodeSize.0, height: decodeSize.1) else { return nil }
        return try finishStill(image, size: stored, orientation: rotate ? exif : .identity, display: upright, codec: "webp")
    }
}
