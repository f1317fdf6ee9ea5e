import CFFmpeg

/// Sends `frame` to `codec` (nil: the end, so what it holds comes out) and writes every packet that comes out to
/// `format` as `stream`, each lasting a frame at least (without a duration the MP4 muxer's edit list cuts the last
/// frame off). The one encode-and-mux loop of the writers (``VideoWriter``, ``GIFWriter``).
func encodeAndWrite(_ frame: UnsafeMutablePointer<AVFrame>?, codec: UnsafeMutablePointer<AVCodecContext>,
                    format: UnsafeMutablePointer<AVFormatContext>, stream: UnsafeMutablePointer<AVStream>, packet: Packet) throws {
    _ = try check(avcodec_send_frame(codec, frame), "encode")
    while true {
        let r = avcodec_receive_packet(codec, packet.pointer)
        if r == scrub_averror_eagain() || r == scrub_averror_eof() { return }
        _ = try check(r, "encode")
        if packet.pointer.pointee.duration == 0 { packet.pointer.pointee.duration = 1 }
        av_packet_rescale_ts(packet.pointer, codec.pointee.time_base, stream.pointee.time_base)
        packet.pointer.pointee.stream_index = stream.pointee.index
        _ = try check(av_interleaved_write_frame(format, packet.pointer), "write")
    }
}
