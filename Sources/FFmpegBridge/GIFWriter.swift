import CFFmpeg
import Foundation

/// Writes an animated GIF with one palette for the whole clip, as FFmpeg's best recipe makes it: libavfilter's
/// `palettegen` learns the palette from every frame (the first pass, ``learn(_:)``), `paletteuse` maps the frames to
/// it with error diffusion (the second pass, ``append(_:)``), and FFmpeg's GIF encoder and muxer write them (looping).
/// Frames are not kept: the caller gives them twice (learnt, then appended). Owns its contexts; not thread-safe.
public final class GIFWriter {
    /// The frame size every picture must have.
    public let width: Int, height: Int
    private let fps: Int
    private var learner: UnsafeMutablePointer<scrub_vgraph>?
    private var mapper: UnsafeMutablePointer<scrub_vgraph>? = nil
    private let output: MuxedEncoder
    private var learned: Int64 = 0
    private var written: Int64 = 0
    private var finished = false

    /// Opens `path` for `width × height` frames at `fps`.
    public init(path: String, width: Int, height: Int, fps: Int) throws {
        self.width = width
        self.height = height
        self.fps = fps
        learner = scrub_vgraph_new(
            "[in0]palettegen=stats_mode=full[out]", 1, [Int32(width)], [Int32(height)],
            [scrub_pix_fmt_rgb24()], Int32(fps))
        guard learner != nil else {
            throw FFmpegError(operation: "GIF", message: "libavfilter cannot make a palette (palettegen)")
        }
        guard let encoder = avcodec_find_encoder(AV_CODEC_ID_GIF) else {
            throw FFmpegError(operation: "GIF", message: "this FFmpeg has no GIF encoder")
        }
        output = try MuxedEncoder(
            path: path, container: "gif", encoder: encoder, what: "GIF", width: width, height: height,
            pixelFormat: AV_PIX_FMT_PAL8, fps: Int32(fps))
    }

    deinit {
        scrub_vgraph_free(learner)
        scrub_vgraph_free(mapper)
    }

    /// The first pass: a frame (`width × height × 3` bytes of RGB) the palette is learnt from.
    public func learn(_ rgb: [UInt8]) throws {
        guard let learner else {
            throw FFmpegError(operation: "GIF", message: "frames are learnt before any is written")
        }
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
        try output.finish()
    }

    private func push(_ rgb: [UInt8], into graph: UnsafeMutablePointer<scrub_vgraph>, pts: Int64) throws {
        guard rgb.count == width * height * 3 else {
            throw FFmpegError(operation: "GIF", message: "a frame of \(rgb.count) bytes for \(width)×\(height)")
        }
        var frame = rgb.withUnsafeBufferPointer {
            scrub_frame_from_rgb($0.baseAddress, Int32(width), Int32(height), pts)
        }
        guard frame != nil else { throw FFmpegError(operation: "GIF", message: "out of memory") }
        defer { av_frame_free(&frame) }
        try check(scrub_vgraph_push(graph, 0, frame), "filter a GIF frame")
    }

    /// The palette learnt (palettegen gives it at the end of its input), handed to a `paletteuse` graph.
    private func startMapping() throws {
        guard let learner else { throw FFmpegError(operation: "GIF", message: "no palette") }
        _ = scrub_vgraph_push(learner, 0, nil)
        var status: Int32 = 0
        guard let palette = scrub_vgraph_pull(learner, &status) else {
            throw FFmpegError(status, "make the GIF palette")
        }
        mapper = scrub_vgraph_new(
            "[in0][in1]paletteuse=dither=sierra2_4a[out]", 2, [Int32(width), palette.pointee.width],
            [Int32(height), palette.pointee.height], [scrub_pix_fmt_rgb24(), palette.pointee.format], Int32(fps))
        guard let mapper else {
            throw FFmpegError(operation: "GIF", message: "libavfilter cannot map to the palette (paletteuse)")
        }
        palette.pointee.pts = 0
        try check(scrub_vgraph_push(mapper, 1, palette), "use the GIF palette")
        _ = scrub_vgraph_push(mapper, 1, nil)
        scrub_vgraph_free(learner)
        self.learner = nil
    }

    private func drain(_ graph: UnsafeMutablePointer<scrub_vgraph>) throws {
        var status: Int32 = 0
        while let frame = scrub_vgraph_pull(graph, &status) { try encode(frame) }
        if status < 0 && status != scrub_averror_eagain() && status != scrub_averror_eof() {
            throw FFmpegError(status, "map a GIF frame")
        }
    }

    private func encode(_ frame: UnsafeMutablePointer<AVFrame>?) throws { try output.encode(frame) }
}
