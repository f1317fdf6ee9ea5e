import CFFmpeg
import Foundation

/// Writes an animated GIF with one palette for the whole clip, as FFmpeg's best recipe makes it: libavfilter's
/// `palettegen` learns the palette from every frame (the first pass, ``learn(_:)``), `paletteuse` maps the frames to
/// it with error diffusion (the second pass, ``append(_:)``), and FFmpeg's GIF encoder and muxer write them (looping).
/// Frames are not kept: the caller produces them twice. Owns its contexts; not thread-safe.
public final class GIFWriter {
    /// The frame size every picture must have.
    public let width: Int, height: Int
    private let fps: Int
    private var learner: UnsafeMutablePointer<scrub_vgraph>?
    private var mapper: UnsafeMutablePointer<scrub_vgraph>? = nil
    private var format: UnsafeMutablePointer<AVFormatContext>? = nil
    private var codec: UnsafeMutablePointer<AVCodecContext>? = nil
    private var stream: UnsafeMutablePointer<AVStream>? = nil
    private let packet: Packet
    private var learned: Int64 = 0
    private var written: Int64 = 0
    private var finished = false

    /// Opens `path` for `width × height` frames at `fps`.
    public init(path: String, width: Int, height: Int, fps: Int) throws {
        self.width = width
        self.height = height
        self.fps = fps
        packet = try Packet()
        learner = scrub_vgraph_new("[in0]palettegen=stats_mode=full[out]", 1, [Int32(width)], [Int32(height)],
                                   [scrub_pix_fmt_rgb24()], Int32(fps))
        guard learner != nil else { throw FFmpegError(operation: "GIF", message: "libavfilter cannot make a palette (palettegen)") }
        var fmt: UnsafeMutablePointer<AVFormatContext>? = nil
        try check(avformat_alloc_output_context2(&fmt, nil, "gif", path), "create \(path)")
        format = fmt
        guard let encoder = avcodec_find_encoder(AV_CODEC_ID_GIF) else { throw FFmpegError(operation: "GIF", message: "this FFmpeg has no GIF encoder") }
        codec = avcodec_alloc_context3(encoder)
        guard let c = codec, let f = format else { throw FFmpegError(operation: "GIF", message: "out of memory") }
        c.pointee.width = Int32(width)
        c.pointee.height = Int32(height)
        c.pointee.pix_fmt = AV_PIX_FMT_PAL8
        c.pointee.time_base = AVRational(num: 1, den: Int32(fps))
        c.pointee.framerate = AVRational(num: Int32(fps), den: 1)
        try check(avcodec_open2(c, encoder, nil), "open the GIF encoder")
        stream = avformat_new_stream(f, nil)
        guard let s = stream else { throw FFmpegError(operation: "GIF", message: "out of memory") }
        s.pointee.time_base = c.pointee.time_base
        try check(avcodec_parameters_from_context(s.pointee.codecpar, c), "GIF stream")
        try check(avio_open(&f.pointee.pb, path, AVIO_FLAG_WRITE), "open \(path)")
        try check(avformat_write_header(f, nil), "write the GIF header")
    }

    deinit {
        scrub_vgraph_free(learner)
        scrub_vgraph_free(mapper)
        if let f = format {
            if f.pointee.pb != nil { avio_closep(&f.pointee.pb) }
            avformat_free_context(f)
        }
        avcodec_free_context(&codec)
    }

    /// The first pass: a frame (`width × height × 3` bytes of RGB) the palette is learnt from.
    public func learn(_ rgb: [UInt8]) throws {
        guard let learner else { throw FFmpegError(operation: "GIF", message: "frames are learnt before any is written") }
        try push(rgb, into: learner, pts: learned)
        learned += 1
    }

    /// The second pass: a frame mapped to the palette and written.
    public func append(_ rgb: [UInt8]) throws {
        if mapper == nil { try startMapping() }
        try push(rgb, into: mapper!, pts: written)
        written += 1
        try drain(mapper!)
    }

    /// Ends the file (the last frames and the trailer).
    public func finish() throws {
        guard !finished else { return }
        finished = true
        if mapper == nil { try startMapping() }
        _ = scrub_vgraph_push(mapper!, 0, nil)
        try drain(mapper!)
        try encode(nil)
        try check(av_write_trailer(format), "write the GIF trailer")
    }

    private func push(_ rgb: [UInt8], into graph: UnsafeMutablePointer<scrub_vgraph>, pts: Int64) throws {
        guard rgb.count == width * height * 3 else { throw FFmpegError(operation: "GIF", message: "a frame of \(rgb.count) bytes for \(width)×\(height)") }
        var frame = rgb.withUnsafeBufferPointer { scrub_frame_from_rgb($0.baseAddress, Int32(width), Int32(height), pts) }
        guard frame != nil else { throw FFmpegError(operation: "GIF", message: "out of memory") }
        defer { av_frame_free(&frame) }
        try check(scrub_vgraph_push(graph, 0, frame), "filter a GIF frame")
    }

    /// The palette learnt (palettegen gives it at the end of its input), handed to a `paletteuse` graph.
    private func startMapping() throws {
        guard let learner else { throw FFmpegError(operation: "GIF", message: "no palette") }
        _ = scrub_vgraph_push(learner, 0, nil)
        var status: Int32 = 0
        guard let palette = scrub_vgraph_pull(learner, &status) else { throw FFmpegError(status, "make the GIF palette") }
        mapper = scrub_vgraph_new("[in0][in1]paletteuse=dither=sierra2_4a[out]", 2, [Int32(width), palette.pointee.width],
                                  [Int32(height), palette.pointee.height], [scrub_pix_fmt_rgb24(), palette.pointee.format], Int32(fps))
        guard let mapper else { throw FFmpegError(operation: "GIF", message: "libavfilter cannot map to the palette (paletteuse)") }
        palette.pointee.pts = 0
        try check(scrub_vgraph_push(mapper, 1, palette), "use the GIF palette")
        _ = scrub_vgraph_push(mapper, 1, nil)
        scrub_vgraph_free(learner)
        self.learner = nil
    }

    private func drain(_ graph: UnsafeMutablePointer<scrub_vgraph>) throws {
        var status: Int32 = 0
        while let frame = scrub_vgraph_pull(graph, &status) { try encode(frame) }
        if status < 0 && status != scrub_averror_eagain() && status != scrub_averror_eof() { throw FFmpegError(status, "map a GIF frame") }
    }

    private func encode(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        guard let codec, let format, let stream else { throw FFmpegError(operation: "GIF", message: "the writer is not open") }
        try encodeAndWrite(frame, codec: codec, format: format, stream: stream, packet: packet)
    }

    private func check(_ r: Int32, _ what: String) throws { if r < 0 { throw FFmpegError(r, what) } }
}
