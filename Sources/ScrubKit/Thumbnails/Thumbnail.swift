import FFmpegBridge
import MediaTime

/// One generated picture: AVAssetImageGenerator's (requestedTime, actualTime, image) triple.
public struct Thumbnail: Sendable {
    /// The time that was asked for, resolved onto the file's presentation timeline.
    public var requestedTime: MediaTime
    /// The presentation time of the frame returned (0 for a still).
    public var actualTime: MediaTime
    /// The picture, upright (when the transform is applied), fitted to the maximum size.
    public var image: RGBImage
    /// The transform the source asked for (applied or not, per the generator's setting).
    public var orientation: Orientation
    /// Whether the frame is the one whose display interval contains `requestedTime` (zero tolerances).
    public var isExact: Bool
    /// The frame lies outside the tolerance window (only with ``ThumbnailGenerator/acceptsApproximateFrames``):
    /// the data around the requested time does not decode, and this is the nearest frame that does.
    public var isApproximate: Bool = false
    /// For a representative frame (``ThumbnailGenerator/selectsRepresentativeFrames``): every frame considered, in
    /// the order tried, with why the others were passed over. Empty otherwise.
    public var candidates: [FrameCandidate] = []

    /// The picture encoded as a file's bytes.
    public func encoded(as format: ImageFormat, quality: Int = 85) throws -> [UInt8] {
        try image.encoded(as: format, quality: quality)
    }
}

/// The result for one requested time: its position in the request list, and the thumbnail or an error.
public struct ThumbnailResult: Sendable {
    /// Index of the time in the caller's list.
    public var index: Int
    /// The requested time as given.
    public var request: TimeExpression
    /// The thumbnail, or why there is none for this time.
    public var result: Result<Thumbnail, MediaError>
}
