import FFmpegBridge

/// A decoded frame turned into an upright RGB picture of a bounded size: SAR applied, scaled from YUV straight
/// to the output size in one pass (matrix and range from the frame), then the small picture rotated/mirrored.
enum FramePicture {
    /// `exactSize`: the upright output is exactly this (a caller that already fitted the display aspect, like the
    /// player's layout), instead of a fit of `maximumSize` with its own rounding.
    static func render(
        _ frame: Frame, facts: StreamFacts, scaler: Scaler, maximumSize: MaximumSize, allowsUpscaling: Bool,
        appliesTransform: Bool, toneMapsHDR: Bool = true, exactSize: (width: Int, height: Int)? = nil,
        path: String
    ) throws -> (RGBImage, Orientation) {
        let orientation = facts.orientation != .identity ? facts.orientation : (frame.displayOrientation ?? .identity)
        // The decoded picture may be smaller than the stream says (lowres); SAR still applies to its shape.
        let (dw, dh) = VideoInfo.displaySize(
            width: frame.width, height: frame.height, sar: facts.sampleAspectRatio, rotation: 0)
        let fullW =
            facts.width > 0
            ? VideoInfo.displaySize(width: facts.width, height: facts.height, sar: facts.sampleAspectRatio, rotation: 0)
                .0 : dw
        let fullH = facts.height > 0 ? facts.height : dh
        let rotate = appliesTransform && orientation != .identity
        let upright = rotate ? orientation.displaySize(width: fullW, height: fullH) : (fullW, fullH)
        var out = maximumSize.fit(width: upright.0, height: upright.1, allowsUpscaling: allowsUpscaling)
        if maximumSize == .unscaled { out = rotate ? orientation.displaySize(width: dw, height: dh) : (dw, dh) }
        if let e = exactSize, e.width > 0, e.height > 0 { out = (e.width, e.height) }
        let stored = rotate && orientation.swapsDimensions ? (out.1, out.0) : (out.0, out.1)
        var image: RGBImage
        do {
            // The frame's own tag, else the stream's (some files tag only the container).
            let streamTransfer: TransferKind =
                facts.colorTransfer == "smpte2084" ? .pq : facts.colorTransfer == "arib-std-b67" ? .hlg : .sdr
            let transfer = frame.transfer != .sdr ? frame.transfer : streamTransfer
            if toneMapsHDR && transfer != .sdr {
                let deep = try scaler.rgb48(from: frame, width: stored.0, height: stored.1)
                image = ToneMapper.map(deep, width: stored.0, height: stored.1, transfer: transfer)
            } else {
                image = RGBImage(try scaler.rgb(from: frame, width: stored.0, height: stored.1))
            }
        }
        catch { throw MediaError(.decodeFailed, path: path, "cannot convert the picture: \(error)") }
        if rotate { image = image.applying(orientation) }
        return (image, rotate ? orientation : .identity)
    }
}
