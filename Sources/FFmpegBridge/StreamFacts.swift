import CFFmpeg
import MediaTime

/// What a stream is, read from its codec parameters and metadata: Swift values only.
public struct StreamFacts: Sendable {
    /// What a stream carries.
    public enum Kind: String, Sendable { case video, audio, subtitle, data, attachment, other }

    /// The stream's index in the container.
    public var index: Int
    /// Video, audio, subtitles, data or attachments.
    public var kind: Kind
    /// FFmpeg's codec name ("h264"), or "none"/"unknown" when FFmpeg cannot identify it.
    public var codecName: String
    /// The container's codec tag as text (e.g. "vvc1"), when it has a printable one.
    public var codecTag: String?
    /// Whether this FFmpeg build has a decoder for the codec.
    public var hasDecoder: Bool
    /// The codec profile's name (`High`, `Main 10`), when stated.
    public var profile: String?
    /// FFmpeg's pixel format name (`yuv420p`), when known.
    public var pixelFormat: String?
    /// Bits per sample of the pixel format.
    public var bitDepth: Int?
    /// Coded width (0 when unknown, e.g. an unprobed still).
    public var width: Int
    /// Coded height (0 when unknown).
    public var height: Int
    /// Sample aspect ratio; (1, 1) when unknown or 0/1.
    public var sampleAspectRatio: (num: Int32, den: Int32)
    /// The stream's display matrix, 3×3 in 16.16 fixed point (phones' rotation), when it has one.
    public var displayMatrix: [Int32]?
    /// A clockwise rotation an HTC phone wrote in the stream's title instead of a display matrix, when any.
    public var titleRotation: Int?
    /// `r_frame_rate`: the lowest rate that represents all timestamps.
    public var frameRate: (num: Int32, den: Int32)
    /// `avg_frame_rate`: frames over duration (differs from ``frameRate`` for VFR).
    public var averageFrameRate: (num: Int32, den: Int32)
    /// Frame count from the container, when it says.
    public var frameCount: Int?
    /// The unit of the stream's timestamps.
    public var timeBase: (num: Int32, den: Int32)
    /// The first presentation time (stream time base), when known.
    public var startTime: MediaTime
    /// The stream's own duration, when the container says.
    public var duration: MediaTime
    /// Colour primaries, when signalled.
    public var colorPrimaries: String?
    /// Transfer characteristics, when signalled.
    public var colorTransfer: String?
    /// YUV→RGB matrix, when signalled.
    public var colorMatrix: String?
    /// `tv` or `pc`, when signalled.
    public var colorRange: String?
    /// Mastering-display metadata present (HDR10).
    public var hasHDRMetadata: Bool
    /// A cover picture (ID3 APIC, MP4 covr, FLAC PICTURE), not a real video track.
    public var isAttachedPicture: Bool
    /// Pictures are decoded in another order than they are shown (B-pictures: the stream's decoding delay).
    public var reorders: Bool
    /// Audio: samples per second (0 for other kinds).
    public var sampleRate: Int
    /// Audio: channel count (0 for other kinds).
    public var channels: Int
    /// The stream's bit rate, when the container says.
    public var bitRate: Int?
    /// The stream's language tag (`eng`, `fr`; `und` left out), when stated.
    public var language: String?
    /// The stream's title (`English SDH`, `Commentary`), when stated.
    public var title: String?
    /// The container marks it to be chosen first (Matroska's default flag, MP4's enabled track).
    public var isDefault: Bool
    /// The container marks it forced (subtitles for foreign speech, shown even with subtitles off).
    public var isForced: Bool

    init(stream st: UnsafeMutablePointer<AVStream>) {
        let par = st.pointee.codecpar!
        index = Int(st.pointee.index)
        switch par.pointee.codec_type {
        case AVMEDIA_TYPE_VIDEO: kind = .video
        case AVMEDIA_TYPE_AUDIO: kind = .audio
        case AVMEDIA_TYPE_SUBTITLE: kind = .subtitle
        case AVMEDIA_TYPE_DATA: kind = .data
        case AVMEDIA_TYPE_ATTACHMENT: kind = .attachment
        default: kind = .other
        }
        let codecID = par.pointee.codec_id
        codecName = codecID == AV_CODEC_ID_NONE ? "none" : String(cString: avcodec_get_name(codecID))
        let tag = par.pointee.codec_tag
        let tagBytes = (0..<4).map { UInt8((tag >> ($0 * 8)) & 0xff) }
        codecTag =
            tag != 0 && tagBytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7f })
            ? String(decoding: tagBytes, as: UTF8.self) : nil
        hasDecoder = codecID != AV_CODEC_ID_NONE && avcodec_find_decoder(codecID) != nil
        if let p = avcodec_profile_name(codecID, par.pointee.profile) {
            profile = String(cString: p)
        } else {
            profile = nil
        }
        let fmt = AVPixelFormat(rawValue: par.pointee.format)
        if kind == .video, par.pointee.format >= 0, let desc = av_pix_fmt_desc_get(fmt) {
            pixelFormat = String(cString: desc.pointee.name)
            bitDepth = Int(desc.pointee.comp.0.depth)
        } else {
            pixelFormat = nil
            bitDepth = nil
        }
        width = Int(par.pointee.width)
        height = Int(par.pointee.height)
        // The container's statement first ('pasp' in MP4/MOV, Matroska's display size, AVI's vprp), then the
        // bitstream's — FFmpeg's av_guess_sample_aspect_ratio and QuickTime agree: an H.263 3GP whose bitstream says
        // 12:11 (the CIF default) or a phone's slow-motion H.264 whose VUI says 27:64 while 'pasp' says 1:1 is square.
        var sar = st.pointee.sample_aspect_ratio
        if sar.num <= 0 || sar.den <= 0 { sar = par.pointee.sample_aspect_ratio }
        sampleAspectRatio = (sar.num > 0 && sar.den > 0) ? StreamFacts.reduced(sar.num, sar.den) : (1, 1)
        displayMatrix = scrub_stream_display_matrix(st).map { Array(UnsafeBufferPointer(start: $0, count: 9)) }
        titleRotation = av_dict_get(st.pointee.metadata, "title", nil, 0)?.pointee.value.flatMap {
            StreamFacts.htcRotation(String(cString: $0))
        }
        frameRate = (st.pointee.r_frame_rate.num, st.pointee.r_frame_rate.den)
        averageFrameRate = (st.pointee.avg_frame_rate.num, st.pointee.avg_frame_rate.den)
        frameCount = st.pointee.nb_frames > 0 ? Int(st.pointee.nb_frames) : nil
        timeBase = (st.pointee.time_base.num, st.pointee.time_base.den)
        startTime = MediaTime(pts: st.pointee.start_time, timeBase: timeBase)
        duration = st.pointee.duration > 0 ? MediaTime(pts: st.pointee.duration, timeBase: timeBase) : .invalid
        func name(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
        let unspecified = { (s: String?) -> String? in (s == nil || s == "unknown" || s == "reserved") ? nil : s }
        colorPrimaries = unspecified(name(av_color_primaries_name(par.pointee.color_primaries)))
        colorTransfer = unspecified(name(av_color_transfer_name(par.pointee.color_trc)))
        colorMatrix = unspecified(name(av_color_space_name(par.pointee.color_space)))
        colorRange = unspecified(name(av_color_range_name(par.pointee.color_range)))
        hasHDRMetadata = scrub_stream_has_hdr_metadata(st) != 0
        isAttachedPicture = (st.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0
        reorders = par.pointee.video_delay > 0
        sampleRate = Int(par.pointee.sample_rate)
        channels = Int(par.pointee.ch_layout.nb_channels)
        bitRate = par.pointee.bit_rate > 0 ? Int(par.pointee.bit_rate) : nil
        func metadata(_ key: String) -> String? {
            av_dict_get(st.pointee.metadata, key, nil, 0)?.pointee.value.map { String(cString: $0) }.flatMap {
                $0.isEmpty ? nil : $0
            }
        }
        language = metadata("language").flatMap { $0 == "und" ? nil : $0 }
        title = metadata("title")
        isDefault = (st.pointee.disposition & AV_DISPOSITION_DEFAULT) != 0
        isForced = (st.pointee.disposition & AV_DISPOSITION_FORCED) != 0
    }

    /// HTC phones write the rotation into the Matroska track name, e.g. `htc_video_rotA-090` (clockwise degrees, as
    /// ExoPlayer reads it), and no display matrix.
    static func htcRotation(_ title: String) -> Int? {
        guard title.hasPrefix("htc_video_rotA-"), let n = Int(title.dropFirst("htc_video_rotA-".count)),
            [0, 90, 180, 270].contains(n)
        else { return nil }
        return n
    }

    static func reduced(_ n: Int32, _ d: Int32) -> (Int32, Int32) {
        var (a, b) = (n, d)
        while b != 0 { (a, b) = (b, a % b) }
        return (n / a, d / a)
    }
}
