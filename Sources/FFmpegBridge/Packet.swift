import CFFmpeg
import MediaTime

/// Owns one `AVPacket`.
public final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    /// An empty packet (`av_packet_alloc`); throws when out of memory.
    public init() throws {
        guard let p = av_packet_alloc() else {
            throw FFmpegError(operation: "allocate packet", message: "out of memory")
        }
        pointer = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    /// The stream it belongs to.
    public var streamIndex: Int { Int(pointer.pointee.stream_index) }
    /// Presentation timestamp in the stream's time base (`AV_NOPTS_VALUE` when missing).
    public var pts: Int64 { pointer.pointee.pts }
    /// Decoding timestamp in the stream's time base.
    public var dts: Int64 { pointer.pointee.dts }
    /// The presentation timestamp, else (when the container gives none) the decoding one: where a packet is placed
    /// when only one time is wanted.
    public var timestamp: Int64 { pts != MediaTime.noTimestamp ? pts : dts }
    /// Byte offset in the file (-1 when unknown).
    public var position: Int64 { pointer.pointee.pos }
    /// Whether the container marks it a keyframe.
    public var isKeyframe: Bool { scrub_packet_is_key(pointer) != 0 }
    /// Payload bytes.
    public var size: Int { Int(pointer.pointee.size) }

    /// Releases the payload (the packet can be read into again).
    public func unref() { av_packet_unref(pointer) }

    /// Refers to `other`'s data (its buffer is shared, counted by FFmpeg; no copy) with its fields; `other` keeps them.
    public func reference(_ other: Packet) throws {
        av_packet_unref(pointer)
        let r = av_packet_ref(pointer, other.pointer)
        if r < 0 { throw FFmpegError(r, "reference packet") }
    }

    /// Takes `other`'s data and fields, leaving `other` empty (no copy).
    public func take(from other: Packet) {
        av_packet_unref(pointer)
        av_packet_move_ref(pointer, other.pointer)
    }
}
