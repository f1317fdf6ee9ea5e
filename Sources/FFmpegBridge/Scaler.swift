import CFFmpeg

/// Converts decoded frames to packed RGB at a target size in one swscale pass, taking the colour matrix and
/// range from the frame (swscale otherwise assumes BT.601 limited range — wrong for HD and for `yuvj*`).
/// Owns a cached `SwsContext`. Not thread-safe.
public final class Scaler {
    private var context: OpaquePointer? = nil

    /// A scaler; its swscale context is made on first use and kept for pictures of the same geometry.
    public init() {}

    deinit { sws_freeContext(context) }

    /// The frame scaled to `width × height` RGB24.
    public func rgb(from frame: Frame, width: Int, height: Int) throws -> PackedRGB {
        let pixels = try convert(frame, width: width, height: height, rgba: false)
        return PackedRGB(width: width, height: height, pixels: pixels)
    }

    /// A packed RGB picture resized to `width × height` (area averaging when shrinking), in one swscale pass.
    public func resize(_ image: PackedRGB, width: Int, height: Int) throws -> PackedRGB {
        if image.width == width && image.height == height { return image }
        let out = try image.pixels.withUnsafeBufferPointer { src in
            try Scaler.resizeRGB(src, width: image.width, height: image.height, toWidth: width, height: height)
        }
        return PackedRGB(width: width, height: height, pixels: out)
    }

    /// Resizes tightly packed RGB24 pixels held anywhere (no padding needed after the last row: swscale's
    /// over-reads are kept inside the buffer, see `scrub_sws_scale_tight`).
    public static func resizeRGB(_ src: UnsafeBufferPointer<UInt8>, width srcWidth: Int, height srcHeight: Int,
                                 toWidth width: Int, height: Int) throws -> [UInt8] {
        guard srcWidth > 0, srcHeight > 0, width > 0, height > 0, src.count >= srcWidth * srcHeight * 3 else {
            throw FFmpegError(operation: "resize", message: "empty picture")
        }
        let downscale = width * 2 <= srcWidth || height * 2 <= srcHeight
        let flags = (downscale ? SWS_AREA : SWS_BICUBIC) | SWS_ACCURATE_RND
        guard let ctx = sws_getContext(Int32(srcWidth), Int32(srcHeight), AV_PIX_FMT_RGB24, Int32(width), Int32(height),
                                       AV_PIX_FMT_RGB24, flags, nil, nil, nil) else {
            throw FFmpegError(operation: "resize", message: "cannot create a scaler")
        }
        defer { sws_freeContext(ctx) }
        var out = [UInt8](repeating: 0, count: width * height * 3)
        let r = out.withUnsafeMutableBufferPointer { dst in
            scrub_sws_scale_packed(
                ctx, src.baseAddress, Int32(srcWidth * 3), Int32(srcHeight), dst.baseAddress, Int32(width * 3))
        }
        if r <= 0 { throw FFmpegError(r == 0 ? scrub_averror_invaliddata() : r, "resize") }
        return out
    }

    /// The frame scaled to `width × height` RGBA (what an app holds to draw: 4 bytes per pixel).
    public func rgba(from frame: Frame, width: Int, height: Int) throws -> [UInt8] {
        try convert(frame, width: width, height: height, rgba: true)
    }

    /// The frame scaled to `width × height` RGB with 16 bits per channel (little-endian = native on x86-64/arm64), for
    /// processing such as HDR tone mapping that 8 bits would band.
    public func rgb48(from frame: Frame, width: Int, height: Int) throws -> [UInt16] {
        let bytes = try convert(frame, width: width, height: height, rgba: false, deep: true)
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
    }

    private func convert(_ frame: Frame, width: Int, height: Int, rgba: Bool, deep: Bool = false) throws -> [UInt8] {
        guard width > 0, height > 0, frame.width > 0, frame.height > 0 else {
            throw FFmpegError(operation: "scale", message: "empty picture")
        }
        var fmt = AVPixelFormat(rawValue: frame.format)
        var fullRange = frame.colorRange == AVCOL_RANGE_JPEG
        // yuvj* are deprecated aliases that mean full range: scale them as yuv* with the range set.
        switch fmt {
        case AV_PIX_FMT_YUVJ420P: fmt = AV_PIX_FMT_YUV420P; fullRange = true
        case AV_PIX_FMT_YUVJ422P: fmt = AV_PIX_FMT_YUV422P; fullRange = true
        case AV_PIX_FMT_YUVJ444P: fmt = AV_PIX_FMT_YUV444P; fullRange = true
        case AV_PIX_FMT_YUVJ440P: fmt = AV_PIX_FMT_YUV440P; fullRange = true
        case AV_PIX_FMT_YUVJ411P: fmt = AV_PIX_FMT_YUV411P; fullRange = true
        default: break
        }
        let downscale = width * 2 <= frame.width || height * 2 <= frame.height
        let flags = (downscale ? SWS_AREA : SWS_BICUBIC) | SWS_ACCURATE_RND
        context = sws_getCachedContext(
            context, Int32(frame.width), Int32(frame.height), fmt,
            Int32(width), Int32(height), deep ? AV_PIX_FMT_RGB48LE : (rgba ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24), flags,
            nil, nil, nil)
        guard let context else { throw FFmpegError(operation: "scale", message: "unsupported pixel format") }
        let isYUV = Scaler.isYUV(fmt)
        if isYUV {
            let coefficients = sws_getCoefficients(Scaler.swsColorspace(frame.colorSpace, height: frame.height))
            let rgbCoefficients = sws_getCoefficients(SWS_CS_DEFAULT)
            sws_setColorspaceDetails(context, coefficients, fullRange ? 1 : 0, rgbCoefficients, 1, 0, 1 << 16, 1 << 16)
        }
        let bpp = deep ? 6 : (rgba ? 4 : 3)
        var pixels = [UInt8](repeating: 0, count: width * height * bpp)
        let r = pixels.withUnsafeMutableBufferPointer { buf in
            scrub_sws_scale_to(context, frame.pointer, buf.baseAddress, Int32(width * bpp))
        }
        if r <= 0 { throw FFmpegError(r == 0 ? scrub_averror_invaliddata() : r, "scale") }
        return pixels
    }

    static func isYUV(_ fmt: AVPixelFormat) -> Bool {
        guard let d = av_pix_fmt_desc_get(fmt) else { return false }
        return (d.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB)) == 0 && d.pointee.nb_components >= 3
    }

    /// swscale's name for a frame's matrix; unspecified means BT.709 for HD sizes, BT.601 below (as players do).
    static func swsColorspace(_ space: AVColorSpace, height: Int) -> Int32 {
        switch space {
        case AVCOL_SPC_BT709: return SWS_CS_ITU709
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020
        case AVCOL_SPC_SMPTE240M: return SWS_CS_SMPTE240M
        case AVCOL_SPC_FCC: return SWS_CS_FCC
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M: return SWS_CS_ITU601
        default: return height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601
        }
    }
}
