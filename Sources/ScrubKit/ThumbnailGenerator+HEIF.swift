import FFmpegBridge
import MediaTime

/// HEIF/HEIC and AVIF stills through libheif: an embedded thumbnail when it covers the output, else the primary image
/// (FFmpeg 5.1 cannot read HEIC at all, nor AVIF files whose primary item is not the first).
extension ThumbnailGenerator {
    /// The thumbnail of a HEIF file, or nil when the file is not HEIF or libheif cannot read it.
    func heifStillThumbnail(head: [UInt8]) throws -> (Thumbnail, Timeline)? {
        guard ImageHeader.isHEIF(head), let heif = HEIFPicture(path: path), heif.width > 0, heif.height > 0 else { return nil }
        let (w, h) = (heif.width, heif.height)
        if w * h > pixelLimit { throw MediaError.overPixelLimit(path, width: w, height: h, limit: pixelLimit) }
        let out = maximumSize.fit(width: w, height: h, allowsUpscaling: allowsUpscaling)
        let keep = !appliesPreferredTrackTransform
        let cover = allowsShrinkOnLoad && !keep ? out : (Int.max, Int.max)   // Int.max: no thumbnail covers it
        switch heif.decode(minWidth: cover.0, minHeight: cover.1, keepsStoredOrientation: keep, maxPixels: pixelLimit) {
        case .tooLarge(let fw, let fh):
            throw MediaError.overPixelLimit(path, width: fw, height: fh, limit: pixelLimit)
        case .failed(let reason):
            throw MediaError(.decodeFailed, path: path, "the HEIF image could not be decoded (\(reason))")
        case .decoded(let picture):
            // Stored orientation can be the other way round: fit what was decoded.
            let size = keep ? maximumSize.fit(width: picture.width, height: picture.height, allowsUpscaling: allowsUpscaling) : out
            return try finishStill(picture, size: size, orientation: .identity, display: (w, h), codec: ImageHeader.isAVIF(head) ? "av1" : "hevc")
        }
    }
}
