import CFFmpeg
import Foundation

/// Writes an H.264 MP4 from RGB pictures (libx264 when present, else FFmpeg's default H.264 encoder), for
/// generating benchmark inputs without the ffmpeg CLI. Owns its contexts; not thread-safe.
public final class VideoWriter {
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var stream: UnsafeMutablePointer<AVStream>?
    private var sws: OpaquePointer?
    private let frame: Frame
    private let packet: Packet
    private var nextPTS: Int64 = 0
    private var finished = false
    /// The frame size every appended picture must have.
    public let width: Int, height: Int

    /// Opens `path` for `width × height` at `fps`, a keyframe every `gop` frames.
    public init(path: String, width: Int, height: Int, fps: Int32, gop: Int32, crf: Int = 23) throws {
        self.width = width
        self.height = height
        frame = try Frame()
        packet = try Packet()
        var fmt: UnsafeMutablePointer<AVFormatContext>? = nil
        try check(avformat_alloc_output_context2(&fmt, nil, "mp4", path), "create \(path)")
        format = fmt
        guard let enc = avcodec_find_encoder_by_name("libx264") ?? avcodec_find_encoder(AV_CODEC_ID_H264) else {
            throw FFmpegError(operation: "encode H.264", message: "this FFmpeg has no H.264 encoder")
        }
        codec = avcodec_alloc_context3(enc)
        guard let c = codec, let f = format else { throw FFmpegError(operation: "encode", message: "out of memory") }
        c.pointee.width = Int32(width)
        c.pointee.height = Int32(height)
        c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        c.pointee.time_base = AVRational(num: 1, den: fps)
        c.pointee.framerate = AVRational(num: fps, den: 1)
        c.pointee.gop_size = gop
        c.pointee.thread_count = 0
        if (f.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0 { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        var opts: OpaquePointer? = nil
        defer { av_dict_free(&opts) }
        av_dict_set(&opts, "preset", "veryfast", 0)
        av_dict_set(&opts, "crf", String(crf), 0)
        av_dict_set(&opts, "x264-params", "keyint=\(gop):min-keyint=\(gop):scenecut=0", 0)
        try check(avcodec_open2(c, enc, &opts), "open H.264 encoder")
        stream = avformat_new_stream(f, nil)
        guard let st = stream else { throw FFmpegError(operation: "encode", message: "cannot add a stream") }
        try check(avcodec_parameters_from_context(st.pointee.codecpar, c), "configure stream")
        st.pointee.time_base = c.pointee.time_base
        try check(avio_open(&f.pointee.pb, path, AVIO_FLAG_WRITE), "open \(path)")
        try check(avformat_write_header(f, nil), "write header")
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        frame.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        try check(av_frame_get_buffer(frame.pointer, 0), "allocate frame")
        sws = sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_RGB24, Int32(width), Int32(height), AV_PIX_FMT_YUV420P,
                             SWS_BILINEAR, nil, nil, nil)
    }

    /// Encodes one picture (same size as the writer).
    public func append(_ image: PackedRGB) throws {
        precondition(image.width == width && image.height == height)
        try check(av_frame_make_writable(frame.pointer), "frame")
        _ = try image.pixels.withUnsafeBufferPointer { p in
            try check(scrub_sws_scale_from(sws, p.baseAddress, Int32(image.stride), Int32(height), frame.pointer), "convert")
        }
        frame.pointer.pointee.pts = nextPTS
        nextPTS += 1
        try send(frame.pointer)
    }

    private func send(_ f: UnsafeMutablePointer<AVFrame>?) throws {
        guard let codec, let format, let stream else { throw FFmpegError(operation: "encode", message: "the writer is not open") }
        try encodeAndWrite(f, codec: codec, format: format, stream: stream, packet: packet)
    }

    /// Flushes the encoder and writes the trailer.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        try send(nil)
        try check(av_write_trailer(format), "write trailer")
    }

    deinit {
        if let f = format {
            if f.pointee.pb != nil { avio_closep(&f.pointee.pb) }
            avformat_free_context(f)
        }
        avcodec_free_context(&codec)
        sws_freeContext(sws)
    }
}
