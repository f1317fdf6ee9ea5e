import CFFmpeg
import MediaTime

/// Packets copied into a new file without decoding (a lossless cut): one output stream per copied input stream, with
/// its codec parameters, language and disposition, the file's metadata and the chapters it is given. Owns its output
/// context; not thread-safe.
public final class StreamCopier {
    private var format: UnsafeMutablePointer<AVFormatContext>?
    /// Input stream index → (output stream, input time base).
    private var outputs: [Int: (stream: UnsafeMutablePointer<AVStream>, base: AVRational)] = [:]
    /// The last decode time written per input stream (the output's time base).
    private var lastDecodeTime: [Int: Int64] = [:]
    private var finished = false

    /// Opens `path` for writing in the container its name `named` says (`named` is the file's final name: `path` may
    /// be a temporary one), copying `streams` of `demuxer` (their parameters and metadata) and the file's metadata,
    /// with `chapters` (on the copy's timeline; the shape ``Demuxer/chapters`` reads them in).
    public init(path: String, named: String, streams: [Int], from demuxer: Demuxer,
                chapters: [(start: MediaTime, end: MediaTime, title: String?)]) throws {
        var fmt: UnsafeMutablePointer<AVFormatContext>? = nil
        try check(avformat_alloc_output_context2(&fmt, nil, nil, named), "choose a container")
        format = fmt
        guard let f = fmt else { throw FFmpegError(operation: "copy", message: "out of memory") }
        av_dict_copy(&f.pointee.metadata, demuxer.context.pointee.metadata, 0)
        for index in streams {
            let input = demuxer.stream(index)
            guard let s = avformat_new_stream(f, nil) else {
                throw FFmpegError(operation: "copy", message: "cannot add a stream")
            }
            try check(avcodec_parameters_copy(s.pointee.codecpar, input.pointee.codecpar), "copy the stream parameters")
            // The stream's side data as ffmpeg -c copy keeps it: a phone video's display matrix (its rotation), HDR
            // mastering and light levels…
            for i in 0..<Int(input.pointee.nb_side_data) {
                let data = input.pointee.side_data[i]
                guard data.size > 0, let from = data.data else { continue }
                guard let to = av_stream_new_side_data(s, data.type, data.size) else {
                    throw FFmpegError(operation: "copy", message: "out of memory")
                }
                to.update(from: from, count: data.size)
            }
            // The input's codec tag only where the output container knows it for this codec (as ffmpeg's -c copy).
            let id = input.pointee.codecpar.pointee.codec_id, tag = input.pointee.codecpar.pointee.codec_tag
            var known: UInt32 = 0
            if let tags = f.pointee.oformat.pointee.codec_tag,
               av_codec_get_id(tags, tag) != id && av_codec_get_tag2(tags, id, &known) != 0 {
                s.pointee.codecpar.pointee.codec_tag = 0
            }
            s.pointee.time_base = input.pointee.time_base
            s.pointee.disposition = input.pointee.disposition
            // (The muxer refuses a stream whose aspect differs from its codec's: the codec's, as ffmpeg copies.)
            s.pointee.sample_aspect_ratio = s.pointee.codecpar.pointee.sample_aspect_ratio
            s.pointee.avg_frame_rate = input.pointee.avg_frame_rate
            av_dict_copy(&s.pointee.metadata, input.pointee.metadata, 0)
            outputs[index] = (s, input.pointee.time_base)
        }
        try add(chapters, to: f)
        try check(avio_open(&f.pointee.pb, path, AVIO_FLAG_WRITE), "open")
        try check(avformat_write_header(f, nil), "write the header")
    }

    deinit {
        if let f = format {
            if f.pointee.pb != nil { avio_closep(&f.pointee.pb) }
            avformat_free_context(f)
        }
    }

    /// Whether FFmpeg has a container for a file named `named` (by its extension).
    public static func hasContainer(named: String) -> Bool { av_guess_format(nil, named, nil) != nil }

    /// Whether a file named `named` (its container chosen by the name) can hold stream `streamIndex` of `demuxer` as
    /// it is, as FFmpeg's muxer says; nil when it cannot tell.
    public static func container(named: String, holds streamIndex: Int, of demuxer: Demuxer) -> Bool? {
        guard let format = av_guess_format(nil, named, nil) else { return false }
        let id = demuxer.stream(streamIndex).pointee.codecpar.pointee.codec_id
        let r = avformat_query_codec(format, id, FF_COMPLIANCE_NORMAL)
        return r < 0 ? nil : r > 0
    }

    /// Whether `streamIndex` (an input stream) is copied.
    public func copies(_ streamIndex: Int) -> Bool { outputs[streamIndex] != nil }

    /// Writes `packet` (read from the input) `shift` earlier on the copy's timeline, lasting until `end` at most (a
    /// subtitle shown past the section's end; the input's timeline). Its data is handed to the muxer (the packet is
    /// empty afterwards).
    public func write(_ packet: Packet, shiftedBy shift: MediaTime, endingBy end: MediaTime? = nil) throws {
        guard let format, !finished, let out = outputs[packet.streamIndex] else { return }
        let p = packet.pointer
        let base = (out.base.num, out.base.den)
        if let end, p.pointee.pts != MediaTime.noTimestamp, p.pointee.duration > 0,
            let last = end.pts(timeBase: base, method: .roundHalfAwayFromZero),
            p.pointee.pts + p.pointee.duration > last
        {
            p.pointee.duration = max(1, last - p.pointee.pts)
        }
        let offset = shift.pts(timeBase: base, method: .roundHalfAwayFromZero) ?? 0
        if p.pointee.pts != MediaTime.noTimestamp { p.pointee.pts -= offset }
        if p.pointee.dts != MediaTime.noTimestamp { p.pointee.dts -= offset }
        av_packet_rescale_ts(p, out.base, out.stream.pointee.time_base)
        // Decode times must rise and never pass presentation times: a damaged or spliced source's that do not are
        // mended as ffmpeg mends them when it copies: a presentation time before its decode time sets both to the
        // median of the two and the last decode time + 1; then a decode time that does not rise goes just after the
        // last.
        let index = packet.streamIndex
        let next = lastDecodeTime[index].map { $0 + 1 } ?? Int64.min
        if p.pointee.dts != MediaTime.noTimestamp, p.pointee.pts != MediaTime.noTimestamp, p.pointee.pts < p.pointee.dts
        {
            let three = [p.pointee.pts, p.pointee.dts, next].sorted()
            p.pointee.pts = three[1]
            p.pointee.dts = three[1]
        }
        if p.pointee.dts != MediaTime.noTimestamp, p.pointee.dts < next {
            p.pointee.dts = next
            if p.pointee.pts != MediaTime.noTimestamp && p.pointee.pts < next { p.pointee.pts = next }
        }
        if p.pointee.dts != MediaTime.noTimestamp { lastDecodeTime[index] = p.pointee.dts }
        // (Without a presentation time — an AVI's pictures — it is the decode time, as FFmpeg's muxers assume.)
        if p.pointee.pts == MediaTime.noTimestamp { p.pointee.pts = p.pointee.dts }
        p.pointee.stream_index = out.stream.pointee.index
        p.pointee.pos = -1
        try check(av_interleaved_write_frame(format, p), "write")
    }

    /// Writes the trailer (once; later calls do nothing).
    public func finish() throws {
        guard let format, !finished else { return }
        finished = true
        try check(av_write_trailer(format), "write the trailer")
        avio_closep(&format.pointee.pb)
    }

    private func add(
        _ chapters: [(start: MediaTime, end: MediaTime, title: String?)], to f: UnsafeMutablePointer<AVFormatContext>
    ) throws {
        guard !chapters.isEmpty else { return }
        let size = MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride * chapters.count
        guard let raw = av_mallocz(size) else { throw FFmpegError(operation: "copy", message: "out of memory") }
        let list = raw.bindMemory(to: UnsafeMutablePointer<AVChapter>?.self, capacity: chapters.count)
        f.pointee.chapters = list
        for (i, chapter) in chapters.enumerated() {
            guard let c = av_mallocz(MemoryLayout<AVChapter>.stride)?.bindMemory(to: AVChapter.self, capacity: 1) else {
                throw FFmpegError(operation: "copy", message: "out of memory")
            }
            list[i] = c
            f.pointee.nb_chapters = UInt32(i + 1)   // (counted as added: freed with the context on any failure)
            c.pointee.id = Int64(i + 1)
            c.pointee.time_base = AVRational(num: 1, den: 1000)
            c.pointee.start = chapter.start.pts(timeBase: (1, 1000), method: .roundHalfAwayFromZero) ?? 0
            c.pointee.end = chapter.end.pts(timeBase: (1, 1000), method: .roundHalfAwayFromZero) ?? c.pointee.start
            if let title = chapter.title { av_dict_set(&c.pointee.metadata, "title", title, 0) }
        }
    }
}
