import CFFmpeg
import Foundation

/// Writes an H.264 MP4 from RGB pictures (libx264 when present, else FFmpeg's default H.264 encoder): animated
/// previews, and benchmark inputs made without the ffmpeg CLI. Owns its contexts; not thread-safe.
public final class VideoWriter {
    private let output: MuxedEncoder
    private var sws: OpaquePointer?
    private let frame: Frame
    private var nextPTS: Int64 = 0
    /// The frame size every appended picture must have.
    public let width: Int, height: Int

    /// Opens `path` for `width × height` at `fps`, a keyframe every `gop` frames.
    public init(path: String, width: Int, height: Int, fps: Int32, gop: Int32, crf: Int = 23) throws {
        self.width = width
        self.height = height
        frame = try Frame()
        guard let encoder = avcodec_find_encoder_by_name("libx264") ?? avcodec_find_encoder(AV_CODEC_ID_H264) else {
            throw FFmpegError(operation: "encode H.264", message: "this FFmpeg has no H.264 encoder")
        }
        output = try MuxedEncoder(
            path: path, container: "mp4", encoder: encoder, what: "H.264", width: width, height: height,
            pixelFormat: AV_PIX_FMT_YUV420P, fps: fps,
            options: [
                ("preset", "veryfast"), ("crf", String(crf)),
                ("x264-params", "keyint=\(gop):min-keyint=\(gop):scenecut=0"),
            ]
        ) { c in
            c.pointee.gop_size = gop
            c.pointee.thread_count = 0
        }
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        frame.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        try check(av_frame_get_buffer(frame.pointer, 0), "allocate frame")
        sws = sws_getContext(
            Int32(width), Int32(height), AV_PIX_FMT_RGB24, Int32(width), Int32(height), AV_PIX_FMT_YUV420P,
            SWS_BILINEAR, nil, nil, nil)
    }

    /// Encodes one picture (same size as the writer).
    public func append(_ image: PackedRGB) throws {
        precondition(image.width == width && image.height == height)
        try check(av_frame_make_writable(frame.pointer), "frame")
        _ = try image.pixels.withUnsafeBufferPointer { p in
            try check(
                scrub_sws_scale_from(sws, p.baseAddress, Int32(image.stride), Int32(height), frame.pointer), "convert")
        }
        frame.pointer.pointee.pts = nextPTS
        nextPTS += 1
        try output.encode(frame.pointer)
    }

    /// Flushes the encoder and writes the trailer.
    public func finish() throws { try output.finish() }

    deinit { sws_freeContext(sws) }
}
