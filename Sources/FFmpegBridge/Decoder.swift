import CFFmpeg
import MediaTime

/// How a decoder uses threads. Slice threads keep latency low (one frame in, one out); frame threads raise
/// throughput on long forward decodes but hold one extra frame per thread.
public enum DecoderThreading: Sendable, Equatable {
    case single
    case slice(Int)
    case frame(Int)
}

/// Owns an `AVCodecContext` opened for one stream. Not thread-safe: confine to one task/actor.
public final class Decoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    /// The stream this decoder reads.
    public let streamIndex: Int
    /// The stream's time base as (num, den).
    public let timeBase: (num: Int32, den: Int32)
    /// The `lowres` factor in use (JPEG-family shrink-on-load: 1/2^lowres per side).
    public let lowres: Int

    /// Opens a decoder for `streamIndex` of `demuxer`.
    /// - Parameters:
    ///   - lowres: requested shrink-on-load factor (0–3); clamped to what the codec supports.
    ///   - maxPixels: refuse pictures larger than this (FFmpeg's `max_pixels`).
    public init(demuxer: Demuxer, streamIndex: Int, threading: DecoderThreading, lowres: Int = 0,
                maxPixels: Int = Int(Int32.max)) throws {
        let st = demuxer.stream(streamIndex)
        let par = st.pointee.codecpar!
        guard let codec = avcodec_find_decoder(par.pointee.codec_id) else {
            throw FFmpegError(scrub_averror_decoder_not_found(), "find decoder")
        }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw FFmpegError(operation: "allocate decoder", message: "out of memory")
        }
        var owned: UnsafeMutablePointer<AVCodecContext>? = ctx
        do {
            try check(avcodec_parameters_to_context(ctx, par), "configure decoder")
            ctx.pointee.pkt_timebase = st.pointee.time_base
            switch threading {
            case .single: ctx.pointee.thread_count = 1
            case .slice(let n): ctx.pointee.thread_count = Int32(n); ctx.pointee.thread_type = FF_THREAD_SLICE
            case .frame(let n):
                ctx.pointee.thread_count = Int32(n); ctx.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
            }
            let maxLowres = Int(codec.pointee.max_lowres)
            let chosen = max(0, min(lowres, maxLowres))
            ctx.pointee.lowres = Int32(chosen)
            ctx.pointee.max_pixels = Int64(maxPixels)
            self.lowres = chosen
            try check(avcodec_open2(ctx, codec, nil), "open decoder")
        } catch {
            avcodec_free_context(&owned)
            throw error
        }
        context = ctx
        self.streamIndex = streamIndex
        self.timeBase = (st.pointee.time_base.num, st.pointee.time_base.den)
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// The largest `lowres` the codec of `streamIndex` supports (0 for H.264/HEVC/VP9/AV1).
    public static func maxLowres(demuxer: Demuxer, streamIndex: Int) -> Int {
        let par = demuxer.stream(streamIndex).pointee.codecpar!
        guard let codec = avcodec_find_decoder(par.pointee.codec_id) else { return 0 }
        return Int(codec.pointee.max_lowres)
    }

    /// Result of asking the decoder for a frame.
    public enum Output { case frame, needsInput, finished }

    /// Sends a packet (nil = drain). Returns false when the decoder wants frames taken out first.
    /// Corrupt packets are skipped (returns true) so one bad packet does not end decoding.
    @discardableResult
    public func send(_ packet: Packet?) throws -> Bool {
        let r = avcodec_send_packet(context, packet?.pointer)
        if r == scrub_averror_eagain() { return false }
        if r == scrub_averror_eof() { return true }
        if r == scrub_averror_invaliddata() { return true }
        if r < 0 { throw FFmpegError(r, "decode") }
        return true
    }

    /// Takes the next decoded frame into `frame`.
    public func receive(into frame: Frame) throws -> Output {
        frame.unref()
        let r = avcodec_receive_frame(context, frame.pointer)
        if r == scrub_averror_eagain() { return .needsInput }
        if r == scrub_averror_eof() { return .finished }
        if r < 0 { throw FFmpegError(r, "decode") }
        return .frame
    }

    /// Which frames the decoder drops without decoding them.
    public enum Skipping: Sendable, Equatable {
        /// None: every frame is decoded.
        case none
        /// Frames no other frame is predicted from (FFmpeg's `AVDISCARD_NONREF`).
        case nonReference
        /// Every bidirectionally predicted frame, referenced or not (`AVDISCARD_BIDIR`).
        case bidirectional
    }

    /// What the decoder drops from the next packet on. Changing it between packets is allowed (frame threads pick it
    /// up per packet).
    public var skipping: Skipping {
        get {
            switch context.pointee.skip_frame {
            case AVDISCARD_NONREF: return .nonReference
            case AVDISCARD_BIDIR: return .bidirectional
            default: return .none
            }
        }
        set {
            switch newValue {
            case .none: context.pointee.skip_frame = AVDISCARD_DEFAULT
            case .nonReference: context.pointee.skip_frame = AVDISCARD_NONREF
            case .bidirectional: context.pointee.skip_frame = AVDISCARD_BIDIR
            }
        }
    }

    /// Whether the decoder skips its in-loop deblocking filter (H.264, HEVC, VP8/9…: about a fifth of the decoding
    /// time). Reference pictures then differ slightly, so this is only for pictures that are shrunk a lot.
    public var skipsLoopFilter: Bool {
        get { context.pointee.skip_loop_filter == AVDISCARD_ALL }
        set { context.pointee.skip_loop_filter = newValue ? AVDISCARD_ALL : AVDISCARD_DEFAULT }
    }

    /// Forgets buffered state (after a seek).
    public func flush() { avcodec_flush_buffers(context) }

    /// The presentation time of `frame` (best effort), invalid when unknown.
    public func time(of frame: Frame) -> MediaTime {
        var ts = frame.bestEffortTimestamp
        if ts == MediaTime.noTimestamp { ts = frame.pts }
        return MediaTime(pts: ts, timeBase: timeBase)
    }

    /// The duration of `frame` in the stream time base, invalid when unknown.
    public func duration(of frame: Frame) -> MediaTime {
        frame.duration > 0 ? MediaTime(pts: frame.duration, timeBase: timeBase) : .invalid
    }
}
