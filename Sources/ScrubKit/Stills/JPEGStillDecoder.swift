import FFmpegBridge

/// JPEG through libjpeg-turbo: decoded at 1/2, 1/4 or 1/8 in the DCT domain while streaming from the file (what
/// vipsthumbnail does), so memory follows the output instead of the file or the picture. FFmpeg's path holds the
/// whole file twice (a packet and the decoder's unescaped copy) and probes at full size. Declines what libjpeg
/// cannot read (lossless, CMYK, damaged headers): FFmpeg gets its turn.
struct JPEGStillDecoder: StillDecoder {
    func recognizes(_ head: [UInt8]) -> Bool { ImageHeader.isJPEG(head) }

    func thumbnail(path: String, head: [UInt8], request: StillRequest) throws -> StillPicture? {
        guard let (w, h) = ImageHeader.dimensions(bytes: head), w > 0, h > 0 else { return nil }
        if w * h > request.pixelLimit {
            throw MediaError.overPixelLimit(path, width: w, height: h, limit: request.pixelLimit)
        }
        let exif = Orientation(exif: ExifOrientation.read(bytes: head) ?? 1)
        let g = StillDecoders.geometry(width: w, height: h, exif: exif, request: request)
        // The largest 1/2^k whose picture still covers the output (then one quality downscale).
        let k = request.allowsShrinkOnLoad && request.maximumSize != .unscaled
            ? ThumbnailGenerator.shrinkFactor(width: w, height: h, covering: g.stored) : 0
        switch JPEGDecoder.decode(path: path, denominator: 1 << k, maxPixels: request.pixelLimit, fullSize: (w, h)) {
        case .declined:
            return nil
        case .tooLarge(let fw, let fh):
            throw MediaError.overPixelLimit(path, width: fw, height: fh, limit: request.pixelLimit)
        case .decoded(let picture, _, _):
            return try StillDecoders.finish(
                RGBImage(picture), path: path, size: g.stored, orientation: g.orientation, display: g.upright,
                codec: "mjpeg")
        }
    }
}
