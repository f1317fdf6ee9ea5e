import CFFmpeg

/// One encoder muxed into one file: the output container, the encoder, its stream and the packet between them — the
/// one set-up, encode-and-write loop and ending of the writers (``VideoWriter``, ``GIFWriter``). Owns its contexts;
/// not thread-safe.
final class MuxedEncoder {
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private let stream: UnsafeMutablePointer<AVStream>
    private let packet: Packet
    private var finished = false

    /// The encoder's context, for the writer's frames (size, pixel format, time base).
    var context: UnsafeMutablePointer<AVCodecContext> { codec! }

    /// Opens `path` as a `container` file (FFmpeg's muxer name) with one stream from `encoder`: `width × height`
    /// pictures of `pixelFormat` at `fps`, `configure` setting anything else on the context before it opens with
    /// `options`. `what` names the encoder in errors.
    init(path: String, container: String, encoder: UnsafePointer<AVCodec>, what: String, width: Int, height: Int,
         pixelFormat: AVPixelFormat, fps: Int32, options: [(String, String)] = [],
         configure: (UnsafeMutablePointer<AVCodecContext>) -> Void = { _ in }) throws {
        packet = try Packet()
        var fmt: UnsafeMutablePointer<AVFormatContext>? = nil
        try check(avformat_alloc_output_context2(&fmt, nil, container, path), "create \(path)")
        format = fmt
        codec = avcodec_alloc_context3(encoder)
        guard let c = codec, let f = format else { throw FFmpegError(operation: what, message: "out of memory") }
        c.pointee.width = Int32(width)
        c.pointee.height = Int32(height)
        c.pointee.pix_fmt = pixelFormat
        c.pointee.time_base = AVRational(num: 1, den: fps)
        c.pointee.framerate = AVRational(num: fps, den: 1)
        if (f.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0 {
            c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        }
        configure(c)
        var opts: OpaquePointer? = nil
        defer { av_dict_free(&opts) }
        for (key, value) in options { av_dict_set(&opts, key, value, 0) }
        try check(avcodec_open2(c, encoder, &opts), "open the \(what) encoder")
        guard let s = avformat_new_stream(f, nil) else {
            throw FFmpegError(operation: what, message: "cannot add a stream")
        }
        stream = s
        s.pointee.time_base = c.pointee.time_base
        try check(avcodec_parameters_from_context(s.pointee.codecpar, c), "configure the \(what) stream")
        try check(avio_open(&f.pointee.pb, path, AVIO_FLAG_WRITE), "open \(path)")
        try check(avformat_write_header(f, nil), "write the \(what) header")
    }

    deinit {
        if let f = format {
            if f.pointee.pb != nil { avio_closep(&f.pointee.pb) }
            avformat_free_context(f)
        }
        avcodec_free_context(&codec)
    }

    /// Sends `frame` to the encoder (nil: the end, so what it holds comes out) and writes every packet that comes out,
    /// each lasting a frame at least (without a duration the MP4 muxer's edit list cuts the last frame off).
    func encode(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        guard let codec, let format, !finished else {
            throw FFmpegError(operation: "encode", message: "the writer is not open")
        }
        try check(avcodec_send_frame(codec, frame), "encode")
        while true {
            let r = avcodec_receive_packet(codec, packet.pointer)
            if r == scrub_averror_eagain() || r == scrub_averror_eof() { return }
            try check(r, "encode")
            if packet.pointer.pointee.duration == 0 { packet.pointer.pointee.duration = 1 }
            av_packet_rescale_ts(packet.pointer, codec.pointee.time_base, stream.pointee.time_base)
            packet.pointer.pointee.stream_index = stream.pointee.index
            try check(av_interleaved_write_frame(format, packet.pointer), "write")
        }
    }

    /// Flushes the encoder and writes the trailer (once; later calls do nothing).
    func finish() throws {
        guard !finished else { return }
        try encode(nil)
        finished = true
        try check(av_write_trailer(format), "write the trailer")
    }
}
