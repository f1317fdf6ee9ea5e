import MediaTime

/// What `scrub info` reports about a file. Field names are the `--json` contract.
public struct MediaInfo: Sendable {
    /// Whether the duration is known, indefinite (e.g. live) or unknown (nothing trustworthy).
    public enum DurationKind: String, Sendable { case known, indefinite, unknown }

    public var path: String
    public var container: String?
    public var duration: MediaTime
    public var durationKind: DurationKind
    /// The first presentation time of the timeline (the video stream's when there is one).
    public var startTime: MediaTime
    public var isStill: Bool
    public var bitRate: Int?
    public var video: VideoInfo?
    public var audio: [AudioInfo]
    public var attachedPictures: Int
    /// Set when the file cannot be used; the other fields hold what could be learned.
    public var error: MediaError?

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
        attachedPictures = 0
        error = nil
    }
}

/// The chosen video stream.
public struct VideoInfo: Sendable {
    public var streamIndex: Int
    public var codec: String
    public var profile: String?
    public var pixelFormat: String?
    public var bitDepth: Int?
    public var width: Int
    public var height: Int
    public var sar: (num: Int32, den: Int32)
    /// Clockwise degrees to display (0/90/180/270), applied after `mirrored`.
    public var rotation: Int
    public var mirrored: Bool
    /// Size on screen: SAR applied to the width, then rotation.
    public var displayWidth: Int
    public var displayHeight: Int
    public var frameRate: Double?
    public var averageFrameRate: Double?
    public var frameCount: Int?
    /// Estimated seconds between keyframes, from the packets near the start.
    public var keyframeInterval: Double?
    public var colorPrimaries: String?
    public var colorTransfer: String?
    public var colorMatrix: String?
    public var colorRange: String?
    public enum HDR: String, Sendable { case none, pq, hlg }
    public var hdr: HDR

    /// The display size of a `width × height` picture with sample aspect ratio `sar`, rotated per `orientation`.
    public static func displaySize(width: Int, height: Int, sar: (num: Int32, den: Int32), rotation: Int) -> (Int, Int) {
        var w = width
        if sar.num > 0, sar.den > 0, sar.num != sar.den {
            w = Int((Double(width) * Double(sar.num) / Double(sar.den)).rounded())
        }
        return rotation == 90 || rotation == 270 ? (height, w) : (w, height)
    }
}

/// One audio stream.
public struct AudioInfo: Sendable {
    public var codec: String
    public var sampleRate: Int
    public var channels: Int
}
