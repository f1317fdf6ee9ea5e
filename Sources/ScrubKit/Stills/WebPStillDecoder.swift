import FFmpegBridge

/// WebP through libwebp, decoded straight to the output size by libwebp's own rescaler (a 16000×9000 WebP → 320 px
/// peaks at 15 MiB); the first frame of an animation. EXIF orientation from the file's EXIF chunk.
struct WebPStillDecoder: StillDecoder {
    func recognizes(_ head: [UInt8]) -> Bool { ImageHeader.isWebP(head) }

    func thumbnail(path: String, head: [UInt8], request: StillRequest) throws -> StillPicture? {
        guard let webp = WebPPicture(path: path) else { return nil }
        let (w, h) = (webp.width, webp.height)
        guard w > 0, h > 0 else { return nil }
        if w * h > request.pixelLimit {
            throw MediaError.overPixelLimit(path, width: w, height: h, limit: request.pixelLimit)
        }
        let exif = Orientation(exif: ExifOrientation.tiffOrientation(webp.exif) ?? 1)
        let g = StillDecoders.geometry(width: w, height: h, exif: exif, request: request)
        // Without shrink-on-load (to measure it), decode at full size and scale afterwards.
        let decodeSize = request.allowsShrinkOnLoad ? g.stored : (w, h)
        guard let image = webp.decode(width: decodeSize.0, height: decodeSize.1) else { return nil }
        return try StillDecoders.finish(
            RGBImage(image), path: path, size: g.stored, orientation: g.orientation, display: g.upright, codec: "webp")
    }
}
