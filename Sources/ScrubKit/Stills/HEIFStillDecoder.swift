import FFmpegBridge

/// HEIF/HEIC and AVIF through libheif (phone photos, which FFmpeg 5.1 cannot read; AVIFs whose primary item is not
/// the first, which it misreads): the smallest picture that covers the output — an embedded thumbnail when one is big
/// enough (shrink-on-load, as ImageIO does) — with libheif applying the rotation and mirroring. Also what `info`
/// reports of these files.
struct HEIFStillDecoder: StillDecoder {
    func recognizes(_ head: [UInt8]) -> Bool { ImageHeader.isHEIF(head) }

    func thumbnail(path: String, head: [UInt8], request: StillRequest) throws -> StillPicture? {
        // Without libheif a HEIC has no reader at all (FFmpeg 5.1 has none; AVIF goes on to FFmpeg's).
        if let missing = LibraryVersions.heifMissing, !ImageHeader.isAVIF(head) {
            throw MediaError(
                .unsupported, path: path, "a HEIF image, and \(missing) (Debian: apt-get install libheif1)")
        }
        guard let heif = HEIFPicture(path: path), heif.width > 0, heif.height > 0 else { return nil }
        let (w, h) = (heif.width, heif.height)
        if w * h > request.pixelLimit {
            throw MediaError.overPixelLimit(path, width: w, height: h, limit: request.pixelLimit)
        }
        let out = request.maximumSize.fit(width: w, height: h, allowsUpscaling: request.allowsUpscaling)
        let keep = !request.appliesOrientation
        let cover = request.allowsShrinkOnLoad && !keep ? out : (Int.max, Int.max)  // Int.max: no thumbnail covers it
        switch heif.decode(
            minWidth: cover.0, minHeight: cover.1, keepsStoredOrientation: keep, maxPixels: request.pixelLimit)
        {
        case .tooLarge(let fw, let fh):
            throw MediaError.overPixelLimit(path, width: fw, height: fh, limit: request.pixelLimit)
        case .failed(let reason):
            throw MediaError(.decodeFailed, path: path, "the HEIF image could not be decoded (\(reason))")
        case .decoded(let picture):
            // Stored orientation can be the other way round: fit what was decoded.
            let size =
                keep
                ? request.maximumSize.fit(
                    width: picture.width, height: picture.height, allowsUpscaling: request.allowsUpscaling) : out
            return try StillDecoders.finish(
                RGBImage(picture), path: path, size: size, orientation: .identity, display: (w, h),
                codec: ImageHeader.isAVIF(head) ? "av1" : "hevc")
        }
    }

    /// The still as libheif sees it (displayed size; its rotation is already applied), or nil when libheif cannot
    /// open it (FFmpeg then describes the file).
    func inspect(path: String, head: [UInt8], pixelLimit: Int, verifiesDecoding: Bool) -> MediaInfo? {
        guard let heif = HEIFPicture(path: path), heif.width > 0, heif.height > 0 else { return nil }
        let isAVIF = ImageHeader.isAVIF(head)
        var info = MediaInfo(path: path)
        info.container = isAVIF ? "avif" : "heif"
        info.isStill = true
        info.video = VideoInfo(
            streamIndex: 0, codec: isAVIF ? "av1" : "hevc", profile: nil, pixelFormat: nil, bitDepth: nil,
            width: heif.width, height: heif.height, sar: (1, 1), rotation: 0, mirrored: false,
            displayWidth: heif.width, displayHeight: heif.height, frameRate: nil, averageFrameRate: nil,
            frameCount: 1, keyframeInterval: nil, colorPrimaries: nil, colorTransfer: nil,
            colorMatrix: nil, colorRange: nil, hdr: .none)
        if heif.width * heif.height > pixelLimit {
            info.error = MediaError.overPixelLimit(path, width: heif.width, height: heif.height, limit: pixelLimit)
        } else if verifiesDecoding,
            case .failed(let reason) = heif.decode(
                minWidth: 1, minHeight: 1, keepsStoredOrientation: false, maxPixels: pixelLimit)
        {
            info.error = MediaError(
                .decodeFailed, path: path, "the \(isAVIF ? "AVIF" : "HEIF") image could not be decoded (\(reason))")
        }
        return info
    }
}
