import CFFmpeg
import Foundation

/// Encodes ``PackedRGB`` pixels into PNG or WebP bytes with libavcodec, JPEG with libjpeg-turbo.
public enum ImageEncoder {
    /// The still-image formats it writes.
    public enum Format: String, Sendable, CaseIterable {
        case png, jpeg, webp
    }

    /// Whether this build can write `format` (JPEG: always, with libjpeg-turbo; PNG and WebP: if libavcodec can).
    public static func canEncode(_ format: Format) -> Bool {
        format == .jpeg || encoderName(format).flatMap { avcodec_find_encoder_by_name($0) } != nil
    }

    static func encoderName(_ format: Format) -> String? {
        switch format {
        case .png: return "png"
        case .jpeg: return nil   // libjpeg-turbo, see JPEGEncoder
        case .webp: return avcodec_find_encoder_by_name("libwebp") != nil ? "libwebp" : nil
        }
    }

    /// The encoded file bytes. `quality` (1–100) applies to JPEG and WebP.
    public static func encode(_ image: PackedRGB, as format: Format, quality: Int = 85) throws -> [UInt8] {
        guard image.width > 0, image.height > 0 else {
            throw FFmpegError(operation: "encode", message: "empty picture")
        }
        if format == .jpeg { return try JPEGEncoder.encode(image, quality: quality) }
        guard let name = encoderName(format), let codec = avcodec_find_encoder_by_name(name) else {
            throw FFmpegError(operation: "encode \(format.rawValue)", message: "no encoder in this FFmpeg build")
        }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw FFmpegError(operation: "encode", message: "out of memory")
        }
        var owned: UnsafeMutablePointer<AVCodecContext>? = ctx
        defer { avcodec_free_context(&owned) }
        let pixFmt: AVPixelFormat
        switch format {
        case .png: pixFmt = AV_PIX_FMT_RGB24
        case .webp, .jpeg: pixFmt = AV_PIX_FMT_YUV420P
        }
        ctx.pointee.width = Int32(image.width)
        ctx.pointee.height = Int32(image.height)
        ctx.pointee.pix_fmt = pixFmt
        ctx.pointee.time_base = AVRational(num: 1, den: 25)   // the PNG encoder refuses to open without one
        let q = max(1, min(100, quality))
        var opts: OpaquePointer? = nil
        defer { av_dict_free(&opts) }
        if format == .webp { av_dict_set(&opts, "quality", String(q), 0) }
        try check(avcodec_open2(ctx, codec, &opts), "open \(format.rawValue) encoder")

        let frame = try Frame()
        let f = frame.pointer
        f.pointee.width = Int32(image.width)
        f.pointee.height = Int32(image.height)
        f.pointee.format = pixFmt.rawValue
        try check(av_frame_get_buffer(f, 0), "allocate frame")
        try image.pixels.withUnsafeBufferPointer { src in
            if pixFmt == AV_PIX_FMT_RGB24 {
                let dst = scrub_frame_plane(f, 0)!, stride = Int(scrub_frame_stride(f, 0))
                for y in 0..<image.height {
                    memcpy(dst + y * stride, src.baseAddress! + y * image.stride, image.stride)
                }
            } else {
                guard
                    let sws = sws_getContext(
                        Int32(image.width), Int32(image.height), AV_PIX_FMT_RGB24,
                        Int32(image.width), Int32(image.height), pixFmt,
                        SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP, nil, nil, nil)
                else {
                    throw FFmpegError(operation: "encode", message: "cannot convert colours")
                }
                defer { sws_freeContext(sws) }
                sws_setColorspaceDetails(
                    sws, sws_getCoefficients(SWS_CS_ITU601), 1, sws_getCoefficients(SWS_CS_ITU601), 0, 0, 1 << 16,
                    1 << 16)
                try check(
                    scrub_sws_scale_from(sws, src.baseAddress, Int32(image.stride), Int32(image.height), f),
                    "convert colours")
            }
        }
        try check(avcodec_send_frame(ctx, f), "encode \(format.rawValue)")
        try check(avcodec_send_frame(ctx, nil), "encode \(format.rawValue)")
        let packet = try Packet()
        var out: [UInt8] = []
        while true {
            let r = avcodec_receive_packet(ctx, packet.pointer)
            if r == scrub_averror_eof() || r == scrub_averror_eagain() { break }
            try check(r, "encode \(format.rawValue)")
            if let data = packet.pointer.pointee.data {
                out.append(contentsOf: UnsafeBufferPointer(start: data, count: packet.size))
            }
            packet.unref()
        }
        guard !out.isEmpty else {
            throw FFmpegError(operation: "encode \(format.rawValue)", message: "encoder produced nothing")
        }
        return out
    }
}
