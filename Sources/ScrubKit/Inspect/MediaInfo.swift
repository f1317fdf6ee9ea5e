import MediaTime

/// What `scrubkit info` reports about a file. Field names are the `--json` contract.
public struct MediaInfo: Sendable {
    /// Whether the duration is known, indefinite (e.g. live) or unknown (nothing trustworthy).
    public enum DurationKind: String, Sendable { case known, indefinite, unknown }

    /// The file or URL as given (`--json`: `path`).
    public var path: String
    /// FFmpeg's name of the container format (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`), or `heif`/`avif`; nil when
    /// it could not be opened.
    public var container: String?
    /// The length of the timeline; meaningful when ``durationKind`` is `.known`.
    public var duration: MediaTime
    /// Whether ``duration`` can be trusted (container, stream, last packet) or the length is indefinite or unknown.
    public var durationKind: DurationKind
    /// The first presentation time of the timeline (the video stream's when there is one).
    public var startTime: MediaTime
    /// A single picture (JPEG, PNG, HEIC…): no timeline, any time names the picture.
    public var isStill: Bool
    /// Bits per second of the whole file (the container's, or the size over a known duration); nil for stills.
    public var bitRate: Int?
    /// The real video stream (never a cover picture or an empty track), nil when there is none.
    public var video: VideoInfo?
    /// The audio streams, in file order.
    public var audio: [AudioInfo]
    /// The subtitle streams, in file order.
    public var subtitles: [SubtitleInfo]
    /// How many cover pictures (attached pictures) the file carries.
    public var attachedPictures: Int
    /// The container's chapters, in file order.
    public var chapters: [Chapter]
    /// Set when the file cannot be used; the other fields hold what could be learned.
    public var error: MediaError?

    /// Facts of `path` not yet learned: unknown duration, no streams, no error.
    public init(path: String) {
        self.path = path
        container = nil
        duration = .invalid
        durationKind = .unknown
        startTime = .zero
        isStill = false
        bitRate = nil
        video = nil
        audio = []
        subtitles = []
        attachedPictures = 0
        chapters = []
        error = nil
    }
}

/// The chosen video stream.
public struct VideoInfo: Sendable {
    /// The stream's index in the container.
    public var streamIndex: Int
    /// FFmpeg's codec name (`h264`, `hevc`, `av1`, `mjpeg`).
    public var codec: String
    /// The codec profile (`High`, `Main 10`), when the stream states one.
    public var profile: String?
    /// FFmpeg's pixel format (`yuv420p`, `yuv420p10le`, `yuvj420p`).
    public var pixelFormat: String?
    /// Bits per sample of the pixel format (8, 10, 12).
    public var bitDepth: Int?
    /// Coded width in pixels (before SAR and rotation).
    public var width: Int
    /// Coded height in pixels (before rotation).
    public var height: Int
    /// Sample (pixel) aspect ratio; the container's wins over the bitstream's, as in FFmpeg and QuickTime.
    public var sar: (num: Int32, den: Int32)
    /// Clockwise degrees to display (0/90/180/270), applied after `mirrored`.
    public var rotation: Int
    /// Mirrored horizontally before the rotation (display matrix or EXIF orientation).
    public var mirrored: Bool
    /// Size on screen: SAR applied to the width, then rotation.
    public var displayWidth: Int
    /// Height on screen (see ``displayWidth``).
    public var displayHeight: Int
    /// The stream's nominal frame rate (FFmpeg's `r_frame_rate`); nil for stills.
    public var frameRate: Double?
    /// Frames per second averaged over the stream (differs from ``frameRate`` for VFR video).
    public var averageFrameRate: Double?
    /// Frames in the stream, when the container says (or an animation's frame count).
    public var frameCount: Int?
    /// Estimated seconds between keyframes, from the packets near the start.
    public var keyframeInterval: Double?
    /// Colour primaries (`bt709`, `bt2020`), when signalled.
    public var colorPrimaries: String?
    /// Transfer characteristics (`bt709`, `smpte2084` for PQ, `arib-std-b67` for HLG), when signalled.
    public var colorTransfer: String?
    /// YUV→RGB matrix (`bt709`, `bt470bg`, `bt2020nc`), when signalled.
    public var colorMatrix: String?
    /// `tv` (limited) or `pc` (full), when signalled.
    public var colorRange: String?
    /// The HDR kind from the transfer characteristics: none, PQ (HDR10, Dolby Vision base) or HLG.
    public enum HDR: String, Sendable { case none, pq, hlg }
    /// HDR kind (tone-mapped to SDR in thumbnails unless asked otherwise).
    public var hdr: HDR

    /// The display size of a `width × height` picture with sample aspect ratio `sar`, rotated per `orientation`.
    public static func displaySize(width: Int, height: Int, sar: (num: Int32, den: Int32), rotation: Int) -> (Int, Int)
    {
        var w = width
        if sar.num > 0, sar.den > 0, sar.num != sar.den {
            w = Int((Double(width) * Double(sar.num) / Double(sar.den)).rounded())
        }
        return rotation == 90 || rotation == 270 ? (height, w) : (w, height)
    }
}

/// One subtitle stream.
public struct SubtitleInfo: Sendable, Equatable {
    /// FFmpeg's codec name (`subrip`, `ass`, `webvtt`, `mov_text`, `hdmv_pgs_subtitle`, `dvd_subtitle`).
    public var codec: String
    /// The language tag (`eng`), when stated.
    public var language: String?
    /// The title (`English SDH`), when stated.
    public var title: String?
    /// Marked default (chosen first).
    public var isDefault: Bool
    /// Marked forced (shown even with subtitles off).
    public var isForced: Bool
    /// Pictures, not text (PGS, DVB, VobSub).
    public var isBitmap: Bool

    /// FFmpeg's names of the subtitle codecs that carry pictures.
    static let bitmapCodecs: Set<String> = ["hdmv_pgs_subtitle", "dvb_subtitle", "dvd_subtitle", "xsub", "dvb_teletext"]

    /// `eng "English SDH"`: the language and title ("" when neither is stated).
    public var name: String { [language, title.map { "\"\($0)\"" }].compactMap { $0 }.joined(separator: " ") }

    /// `(default, forced)`, or "".
    public var marks: String {
        let marks = [isDefault ? "default" : nil, isForced ? "forced" : nil].compactMap { $0 }
        return marks.isEmpty ? "" : "(" + marks.joined(separator: ", ") + ")"
    }

    /// `eng "English SDH" (default)`, or the codec when neither language nor title is stated (`mov_text (default)`):
    /// what names the stream for people (a status line).
    public var label: String { [name.isEmpty ? codec : name, marks].filter { !$0.isEmpty }.joined(separator: " ") }
}

/// One audio stream.
public struct AudioInfo: Sendable {
    /// FFmpeg's codec name (`aac`, `opus`, `mp3`, `flac`).
    public var codec: String
    /// Samples per second (44100, 48000).
    public var sampleRate: Int
    /// Number of channels (2 for stereo, 6 for 5.1).
    public var channels: Int
}
