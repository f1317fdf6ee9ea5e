import CFFmpeg

/// Owns one `AVFrame` (allocated in `init`, freed once in `deinit`); its buffers are reference counted by FFmpeg and
/// released by ``unref()`` or when the frame is refilled. A class: the one owner is shared, never copied.
public final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    /// An empty frame (`av_frame_alloc`); throws when out of memory.
    public init() throws {
        guard let f = av_frame_alloc() else { throw FFmpegError(operation: "allocate frame", message: "out of memory") }
        pointer = f
    }

    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&f)
    }

    /// Width in pixels.
    public var width: Int { Int(pointer.pointee.width) }
    /// Height in pixels.
    public var height: Int { Int(pointer.pointee.height) }
    /// FFmpeg's pixel format (`AVPixelFormat` raw value).
    public var format: Int32 { pointer.pointee.format }
    /// The decoder's best guess at the presentation timestamp (robust to missing/broken pts).
    public var bestEffortTimestamp: Int64 { pointer.pointee.best_effort_timestamp }
    /// The presentation timestamp as coded (may be missing: see ``bestEffortTimestamp``).
    public var pts: Int64 { pointer.pointee.pts }
    /// The frame's duration in stream time base units, 0 when unknown.
    public var duration: Int64 { pointer.pointee.pkt_duration }
    /// Whether the decoder marked it a keyframe.
    public var isKeyframe: Bool { scrub_frame_is_key(pointer) != 0 }

    /// The display matrix on the frame, 3×3 in 16.16 fixed point (EXIF orientation of a JPEG arrives here), when any.
    public var displayMatrix: [Int32]? {
        guard let m = scrub_frame_display_matrix(pointer) else { return nil }
        return Array(UnsafeBufferPointer(start: m, count: 9))
    }

    /// The frame's `Orientation` metadata tag (EXIF 1–8), when present.
    public var exifOrientationTag: Int? {
        guard let e = av_dict_get(pointer.pointee.metadata, "Orientation", nil, 0), let v = e.pointee.value else {
            return nil
        }
        return Int(String(cString: v))
    }

    /// The frame's transfer characteristic, as far as HDR is concerned.
    public var transfer: TransferKind {
        switch pointer.pointee.color_trc {
        case AVCOL_TRC_SMPTE2084: return .pq
        case AVCOL_TRC_ARIB_STD_B67: return .hlg
        default: return .sdr
        }
    }

    /// The YUV→RGB matrix signalled for the frame.
    public var colorSpace: AVColorSpace { pointer.pointee.colorspace }
    /// Limited (tv) or full (pc) range, as signalled.
    public var colorRange: AVColorRange { pointer.pointee.color_range }

    /// Releases the frame's buffers (the frame can be filled again).
    public func unref() { av_frame_unref(pointer) }

    /// Moves `other`'s picture into this frame (no pixel copy); `other` is left empty.
    public func take(from other: Frame) {
        av_frame_unref(pointer)
        av_frame_move_ref(pointer, other.pointer)
    }

    /// Whether this frame holds a picture.
    public var hasPicture: Bool { pointer.pointee.buf.0 != nil || pointer.pointee.data.0 != nil }
}

/// Standard dynamic range, or one of the two HDR transfer functions.
public enum TransferKind: Sendable, Equatable { case sdr, pq, hlg }
