import FFmpegBridge
import MediaTime

/// The extractor's values (its frame slots, where its decoder stands, what a request resolved to) and its decoder's
/// settings.
extension FrameExtractor {
    /// A reusable frame and the presentation time of what it holds (nil: empty).
    struct Slot {
        var frame: Frame
        var time: MediaTime?
    }

    /// The decoder's position relative to the stream.
    enum DecodeState: Equatable {
        /// Not positioned: the next request seeks (before the first request, and after the keyframe path drained the
        /// decoder).
        case unpositioned
        /// Decoding forward from the last seek; `fromStart` when that seek went to the start of the stream, so the
        /// first frame decoded is the video's first.
        case decoding(fromStart: Bool)
        /// The stream ended after the last seek: no frame comes after `last`.
        case ended(fromStart: Bool)

        /// Whether decoding can continue forward from here.
        var isPositioned: Bool { self != .unpositioned }
        /// Whether the last seek went to the start of the stream.
        var fromStart: Bool {
            switch self {
            case .decoding(let s), .ended(let s): return s
            case .unpositioned: return false
            }
        }
        /// This state with the end of the stream reached.
        var ended: DecodeState { .ended(fromStart: fromStart) }
    }

    /// What a request resolved to: the frame (valid until the next call) and its presentation time.
    struct Found {
        let frame: Frame
        let time: MediaTime
        /// True when the keyframe path served it again without decoding (a duplicate within one GOP).
        let reused: Bool
        /// True when the frame is the one shown at the requested time: its display interval contains it, or the time
        /// lies before the first frame or past the declared end of the video. False for a keyframe (the caller checks
        /// its tolerance window) and for a frame the decoder could only reach beyond the time (damaged or
        /// truncated data).
        var containsTime = false
    }
}
