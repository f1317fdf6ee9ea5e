import CFFmpeg
import Foundation
import MediaTime

/// Owns an `AVFormatContext` opened on a local file or an HTTP(S) URL (timeouts, reconnects): container facts,
/// packets, seeking.
/// Not thread-safe: confine to one task/actor.
public final class Demuxer {
    let context: UnsafeMutablePointer<AVFormatContext>
    /// The path as the user gave it.
    public let path: String
    /// Whether packets have been read since opening or the last rewind.
    var hasRead = false

    /// Opens `path` (always as a plain file: `a:b.mp4` is not a protocol, `%` is not an image sequence) and reads
    /// enough packets to learn the streams.
    public convenience init(path: String, maxPixels: Int = 0) throws {
        try self.init(path: path, probesStills: true, maxPixels: maxPixels)
    }

    /// - Parameter probesStills: whether to probe (`avformat_find_stream_info`) single-image files too. The probe of a
    ///   still decodes the whole picture at full size just to learn its pixel format — for a 24 MP JPEG most of the
    ///   time and memory of a thumbnail. Callers that read the size from the file header and let the decoder report
    ///   the rest pass false. Every other kind of file is always probed.
    /// - Parameter maxPixels: when positive, the probe's decoders refuse pictures above this many pixels (FFmpeg's
    ///   `max_pixels`), so a forged 12288×12288 stream is never decoded (or allocated) just to learn its format.
    /// - Parameter refusesOversized: with `maxPixels`, a video stream whose container header already declares more
    ///   pixels is refused before any probing (``PictureTooLarge``), so no decoder is opened for it at all.
    /// - Parameter probes: false to stop at the container's header (nothing read or decoded beyond it): what it says
    ///   is all there is, so the pixel format, a bitstream's own tags and timings the probe would estimate stay
    /// unknown.
    /// - Parameter timeLeft: for a URL, the seconds this open may take in all (connecting, FFmpeg's own reconnects,
    ///   probing); nil for ``networkTimeout``. One attempt: a connection that broke is reported as
    ///   ``ConnectionBroken`` and trying again is the caller's policy.
    public init(
        path: String, probesStills: Bool, maxPixels: Int = 0, refusesOversized: Bool = false, probes: Bool = true,
        timeLeft: Double? = nil
    ) throws {
        self.path = path
        let isURL = Demuxer.isURL(path)
        let target: String
        if isURL {
            Demuxer.networkReady()
            target = path
        } else {
            target = "file:" + (path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path)
        }
        let timeout = Demuxer.networkTimeout
        let remaining = timeLeft ?? timeout
        let began = Demuxer.now()
        let reconnectsBefore = scrub_ffmpeg_reconnects()
        /// The open gave up: how long it waited and how many connections were tried (FFmpeg's reconnects too).
        func timedOut() -> TimedOut {
            TimedOut(seconds: Demuxer.now() - began, attempts: 1 + scrub_ffmpeg_reconnects() - reconnectsBefore)
        }
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        av_dict_set(&options, "pattern_type", "none", 0)   // image2: names with % are not sequences
        if isURL {
            // Bounded waits and reconnects with back-off (mid-stream too), all inside the deadline; seeking is by
            // HTTP range requests (a `moov` at the end costs one more range, not a download).
            av_dict_set(&options, "rw_timeout", String(Int64(timeout * 1_000_000)), 0)   // µs, per request
            av_dict_set(&options, "reconnect", "1", 0)
            av_dict_set(&options, "reconnect_on_network_error", "1", 0)
            av_dict_set(&options, "reconnect_delay_max", "4", 0)      // s: 0, 1, 2, 4 — then give up
            av_dict_set(&options, "user_agent", "scrubkit", 0)
            // Not probed (one picture): a fragmented MP4 is found through its fragment index at the end ('mfra')
            // instead of a walk from the start over every fragment's header, a request each. (FFmpeg then knows the
            // first fragment only, and its probe would estimate the bit rate and frame rate from it: what is
            // reported keeps the walk.) See learnFragmentedLength.
            if !probes { av_dict_set(&options, "use_mfra_for", "pts", 0) }
        }
        var opening: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        // Remote sources get an interrupt deadline (re-armed by every read and seek); FFmpeg frees ctx itself
        // when the open fails.
        let deadline = opening != nil && isURL ? scrub_deadline_install(opening) : nil
        scrub_deadline_set(deadline, max(0.1, remaining))
        // Progressive files over HTTP are read in bounded ranges (see scrub_ranged_open in the shim); playlists
        // are left to FFmpeg's HLS demuxer, which opens its segments itself.
        var ranged: UnsafeMutablePointer<AVIOContext>? = nil
        if let c = opening, isURL, !Demuxer.isPlaylist(path),
            ProcessInfo.processInfo.environment["SCRUBKIT_OPEN_ENDED_RANGES"] == nil
        {
            ranged = scrub_ranged_open(path, options, c.pointee.interrupt_callback)
            if let ranged {
                c.pointee.pb = ranged
                c.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
            }
        }
        let opened = avformat_open_input(&opening, target, nil, &options)
        guard opened >= 0, opening != nil else {
            av_free(deadline)
            scrub_ranged_close(ranged)
            if isURL && (opened == scrub_averror_exit() || opened == -ETIMEDOUT || Demuxer.now() - began >= remaining) {
                throw timedOut()
            }
            let failure = FFmpegError(opened, "open")
            if isURL && [-ECONNRESET, -EPIPE, -EIO, -ECONNABORTED].contains(opened) {
                throw ConnectionBroken(failure: failure)
            }
            throw failure
        }
        let ctx = opening!
        context = ctx   // from here on, deinit closes it (also when the next call throws)
        self.deadline = deadline
        self.ranged = ranged
        let name = String(cString: ctx.pointee.iformat.pointee.name)
        if maxPixels > 0 && refusesOversized { try refuseOversized(above: maxPixels) }
        if ranged != nil && !probes {
            learnFragmentedStart()    // (what the probe would have learnt of it)
            learnFragmentedLength()   // (what the walk over every fragment would have)
        }
        if probes {
            do { try probeStreams(maxPixels: maxPixels, probesStills: probesStills, armingDeadline: false) }
            catch is TimedOut { throw timedOut() }
        }
        isLive = isURL && (name == "hls" || name == "dash")
            && (ctx.pointee.duration <= 0 || ctx.pointee.duration == MediaTime.noTimestamp)
    }

    /// Throws ``PictureTooLarge`` when a video stream's header declares more than `maxPixels` pixels.
    private func refuseOversized(above maxPixels: Int) throws {
        for i in 0..<Int(context.pointee.nb_streams) {
            guard let par = context.pointee.streams[i]?.pointee.codecpar, par.pointee.codec_type == AVMEDIA_TYPE_VIDEO
            else { continue }
            let (w, h) = (Int(par.pointee.width), Int(par.pointee.height))
            if w > 0, h > 0, w * h > maxPixels { throw PictureTooLarge(width: w, height: h) }
        }
    }

    /// Arms a remote source's deadline for the next operation: ``networkTimeout`` from now (a live stream's reads:
    /// ``liveReadWait``).
    func armDeadline(reading: Bool = false) {
        guard deadline != nil else { return }
        scrub_deadline_set(deadline, reading && isLive ? Demuxer.liveReadWait : Demuxer.networkTimeout)
    }

    /// A video stream declares a picture above the pixel limit (see `refusesOversized`).
    public struct PictureTooLarge: Error, Sendable {
        /// The declared width.
        public var width: Int
        /// The declared height.
        public var height: Int
    }

    deinit {
        var c: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&c)
        scrub_ranged_close(ranged)   // (custom I/O outlives avformat_close_input)
        av_free(deadline)
    }

    /// The bounded-range reader of a progressive file over HTTP (nil otherwise).
    private(set) var ranged: UnsafeMutablePointer<AVIOContext>? = nil

    /// HTTP requests made and body bytes read through bounded ranges (zero for files and playlists).
    public var rangedTransfer: (requests: Int, bytes: Int) {
        (Int(scrub_ranged_requests(ranged)), Int(scrub_ranged_bytes(ranged)))
    }

    /// The interrupt deadline of a remote source (nil for files).
    private(set) var deadline: UnsafeMutablePointer<scrub_deadline>? = nil

    /// A live stream: an HLS playlist without an end (no `#EXT-X-ENDLIST`), whose duration is indefinite and whose
    /// next segments do not exist yet. Reads wait at most ``liveReadWait`` for new data, then report the end.
    public private(set) var isLive = false

    /// How long a read of a live stream waits for data that is not there yet (a few segment durations).
    public static let liveReadWait = 10.0

    /// The demuxer's short name, e.g. "mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "image2".
    public var formatName: String { String(cString: context.pointee.iformat.pointee.name) }

    /// Whether the container is read by FFmpeg's MOV demuxer (MP4, MOV, M4A, 3GP): sample tables in the header,
    /// hence an index before any packet is read.
    public var isMP4Family: Bool { Demuxer.isMP4Family(formatName) }

    /// Whether `formatName` (a demuxer's short name) is the MOV demuxer's.
    public static func isMP4Family(_ formatName: String) -> Bool { formatName.hasPrefix("mov,") }

    /// The container's duration, or invalid when it does not say.
    public var duration: MediaTime {
        let d = context.pointee.duration
        return d > 0 && d != MediaTime.noTimestamp ? MediaTime(value: d, timescale: AV_TIME_BASE) : .invalid
    }

    /// The container's start time, or invalid when it does not say.
    public var startTime: MediaTime {
        let s = context.pointee.start_time
        return s != MediaTime.noTimestamp ? MediaTime(value: s, timescale: AV_TIME_BASE) : .invalid
    }

    /// The container's overall bit rate (bits/s), when known.
    public var bitRate: Int? { context.pointee.bit_rate > 0 ? Int(context.pointee.bit_rate) : nil }

    /// The file size in bytes, when known.
    public var fileSize: Int? {
        guard let pb = context.pointee.pb else { return nil }
        let s = avio_size(pb)
        return s > 0 ? Int(s) : nil
    }

    /// Facts about every stream, in container order.
    public var streams: [StreamFacts] {
        (0..<Int(context.pointee.nb_streams)).compactMap { i in
            context.pointee.streams[i].map { StreamFacts(stream: $0) }
        }
    }

    /// The container's chapters, in file order (Matroska editions, MP4 chapter tracks, Nero chapters, OGG comments):
    /// start and end on the container's timeline (end invalid when not stated) and the title, when there is one.
    public var chapters: [(start: MediaTime, end: MediaTime, title: String?)] {
        (0..<Int(context.pointee.nb_chapters)).compactMap { i in
            guard let c = context.pointee.chapters[i] else { return nil }
            let base = (c.pointee.time_base.num, c.pointee.time_base.den)
            guard base.0 > 0, base.1 > 0 else { return nil }
            let title = av_dict_get(c.pointee.metadata, "title", nil, 0).flatMap {
                $0.pointee.value.map { String(cString: $0) }
            }
            return (
                MediaTime(pts: c.pointee.start, timeBase: base), MediaTime(pts: c.pointee.end, timeBase: base), title
            )
        }
    }

    /// FFmpeg's choice of video stream (prefers multi-frame, default, decodable-looking streams), or nil.
    public var bestVideoStreamIndex: Int? {
        let r = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        return r >= 0 ? Int(r) : nil
    }

    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[index]! }

    /// Reads the next packet into `packet`; false at end of file. Unrecoverable read errors throw.
    public func read(into packet: Packet) throws -> Bool {
        packet.unref()
        hasRead = true
        armDeadline(reading: true)
        let r = av_read_frame(context, packet.pointer)
        if r == scrub_averror_eof() { return false }
        if r == scrub_averror_exit() && isLive { return false }   // the live edge: nothing newer arrived in time
        if r == scrub_averror_exit() && deadline != nil { throw TimedOut(seconds: Demuxer.networkTimeout, attempts: 1) }
        if r < 0 { throw FFmpegError(r, "read packet") }
        return true
    }

    /// Seeks `streamIndex` to the keyframe at or before `timestamp` (in that stream's time base).
    public func seek(streamIndex: Int, timestamp: Int64) throws {
        armDeadline()
        try check(av_seek_frame(context, Int32(streamIndex), timestamp, AVSEEK_FLAG_BACKWARD), "seek")
    }

    /// Lets only stream `keep`'s packets through the demuxer (others are discarded before reading their data).
    public func discardAllStreams(except keep: Int) { discardAllStreams(except: [keep]) }

    /// Lets only the `keep` streams' packets through the demuxer (all of theirs again, if they were discarded before).
    public func discardAllStreams(except keep: Set<Int>) {
        for i in 0..<Int(context.pointee.nb_streams) {
            context.pointee.streams[i]!.pointee.discard = keep.contains(i) ? AVDISCARD_DEFAULT : AVDISCARD_ALL
        }
    }
}

extension Demuxer {
    /// Seeks to the first keyframe of `streamIndex` (forward search from far before any timestamp), falling back to
    /// ``rewind()``. MPEG-TS/PS rewind by byte: their timestamp search lands on the first keyframe the demuxer has
    /// indexed while reading, which need not be the first in the file.
    public func rewind(streamIndex: Int) {
        armDeadline()
        if let format = context.pointee.iformat, format.pointee.flags & AVFMT_TS_DISCONT != 0 {
            hasRead = true; rewind(); return
        }
        hasRead = false
        if av_seek_frame(context, Int32(streamIndex), -(1 << 62), 0) < 0 { hasRead = true; rewind() }
    }

    /// Seeks back to the start of the file (by time; by byte where time seeking is not supported, and first for
    /// streams with timestamp discontinuities — MPEG-TS/PS — whose timestamp search can land past the first
    /// keyframe when the file starts at a late timestamp).
    public func rewind() {
        armDeadline()
        guard hasRead else { return }
        hasRead = false
        if let format = context.pointee.iformat, format.pointee.flags & AVFMT_TS_DISCONT != 0,
           format.pointee.flags & AVFMT_NO_BYTE_SEEK == 0,
           avformat_seek_file(context, -1, Int64.min, 0, 0, AVSEEK_FLAG_BYTE) >= 0 {
            return
        }
        let s = context.pointee.start_time
        let start = s == MediaTime.noTimestamp ? 0 : s
        if avformat_seek_file(context, -1, Int64.min, start, start, 0) < 0 {
            _ = avformat_seek_file(context, -1, Int64.min, 0, 0, AVSEEK_FLAG_BYTE)
        }
    }
}
