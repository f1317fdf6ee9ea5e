import CFFmpeg

/// The pictures of a smart cut's first, partial group re-encoded to go in front of copied ones (LosslessCut's
/// "smart cut"): H.264 through libx264 or HEVC through libx265, matched to the copied stream (size, pixel format,
/// aspect, colour, time base), with no B-pictures (presentation order is decode order) and its parameter sets in the
/// first packet, so the copy's own parameter sets, put back in front of its first keyframe (``preparingJoin(at:)``),
/// take over there. Packets come out in the copied stream's framing (4-byte lengths, as MP4 and Matroska carry H.264,
/// or start codes). Owns its encoder; not thread-safe.
public final class HeadEncoder {
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private let packet: Packet
    /// The copied stream's NAL unit framing: its avcC's length size (1, 2 or 4 bytes), nil for start codes.
    private let lengthSize: Int?
    /// The copied stream's SPS and PPS, framed as its packets are (empty when its packets carry their own).
    private let parameterSets: [UInt8]
    /// The stream is HEVC (else H.264).
    private let hevc: Bool

    /// The encoder for each codec a smart cut is made for, and its settings: no B-pictures, one keyframe, parameter
    /// sets in band, visually lossless.
    private static let encoders: [UInt32: (name: String, label: String, options: [(String, String)])] = [
        AV_CODEC_ID_H264.rawValue: (
            "libx264", "H.264", [("crf", "16"), ("preset", "fast"), ("x264-params", "scenecut=0:open-gop=0")]
        ),
        AV_CODEC_ID_HEVC.rawValue: (
            "libx265", "HEVC",
            [
                ("crf", "18"), ("preset", "fast"),
                ("x265-params", "bframes=0:scenecut=0:open-gop=0:repeat-headers=1:log-level=error"),
            ]
        ),
    ]

    /// Why a stream cannot have a smart cut here, in a few words; nil when it can (H.264 with libx264, HEVC with
    /// libx265).
    public static func refusal(streamIndex: Int, of demuxer: Demuxer) -> String? {
        let id = demuxer.stream(streamIndex).pointee.codecpar.pointee.codec_id
        guard let e = encoders[id.rawValue] else {
            return "re-encoding is done for H.264 and HEVC only, not \(String(cString: avcodec_get_name(id)))"
        }
        guard avcodec_find_encoder_by_name(e.name) != nil else {
            return "this FFmpeg has no \(e.label) encoder (\(e.name))"
        }
        return nil
    }

    /// An encoder for pictures like those `frame` (decoded from stream `streamIndex` of `demuxer`) holds.
    public init(matching streamIndex: Int, of demuxer: Demuxer, frame: Frame) throws {
        packet = try Packet()
        let st = demuxer.stream(streamIndex), par = st.pointee.codecpar!
        let extradata =
            par.pointee.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(par.pointee.extradata_size))) }
            ?? []
        hevc = par.pointee.codec_id == AV_CODEC_ID_HEVC
        (lengthSize, parameterSets) = hevc ? HeadEncoder.framing(hvcC: extradata) : HeadEncoder.framing(avcC: extradata)
        guard let settings = HeadEncoder.encoders[par.pointee.codec_id.rawValue],
            let encoder = avcodec_find_encoder_by_name(settings.name)
        else {
            throw FFmpegError(operation: "smart cut", message: "no encoder")
        }
        codec = avcodec_alloc_context3(encoder)
        guard let c = codec else { throw FFmpegError(operation: "smart cut", message: "out of memory") }
        c.pointee.width = Int32(frame.width)
        c.pointee.height = Int32(frame.height)
        c.pointee.pix_fmt = AVPixelFormat(rawValue: frame.format)
        c.pointee.time_base = st.pointee.time_base
        c.pointee.framerate = st.pointee.avg_frame_rate
        c.pointee.sample_aspect_ratio = par.pointee.sample_aspect_ratio
        c.pointee.color_primaries = par.pointee.color_primaries
        c.pointee.color_trc = par.pointee.color_trc
        c.pointee.colorspace = par.pointee.color_space
        c.pointee.color_range = par.pointee.color_range
        c.pointee.chroma_sample_location = par.pointee.chroma_location
        c.pointee.max_b_frames = 0
        c.pointee.gop_size = 100_000
        c.pointee.thread_count = 0
        var opts: OpaquePointer? = nil
        defer { av_dict_free(&opts) }
        for (key, value) in settings.options { av_dict_set(&opts, key, value, 0) }
        try check(avcodec_open2(c, encoder, &opts), "open the \(settings.label) encoder")
    }

    deinit { avcodec_free_context(&codec) }

    /// Encodes `frame` shown from `pts` (the copied stream's time base; nil: the end) and returns the packets that
    /// came out, timed in that time base (decode time = presentation time).
    public func encode(_ frame: Frame?, pts: Int64 = 0) throws -> [Packet] {
        guard let codec else { return [] }
        if let frame {
            frame.pointer.pointee.pts = pts
            frame.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        }
        try check(avcodec_send_frame(codec, frame?.pointer), "encode")
        var out: [Packet] = []
        while true {
            let r = avcodec_receive_packet(codec, packet.pointer)
            if r == scrub_averror_eagain() || r == scrub_averror_eof() { return out }
            try check(r, "encode")
            let framed = try Packet()
            try framed.setData(reframed(packet.data), like: packet)
            framed.pointer.pointee.dts = framed.pointer.pointee.pts
            out.append(framed)
            packet.unref()
        }
    }

    /// `packet` (the copy's first keyframe) made the join: the copy's own parameter sets in front, so the pictures
    /// after the re-encoded ones decode with them, and an HEVC CRA picture marked BLA (nal_unit_type 21 → 16: a
    /// splice point, where new parameter sets may start and the pictures that would refer to what came before —
    /// left out of the copy — are not shown), as HEVC splicing is done.
    public func preparingJoin(at packet: Packet) throws {
        var data = packet.data
        if hevc {
            let heads = lengthSize.map { (lengthPrefixedUnits(data, lengthSize: $0) ?? []).map(\.lowerBound) }
                ?? HeadEncoder.nalUnits(data).map(\.startIndex)
            for at in heads where (data[at] >> 1) & 0x3F == 21 { data[at] = (data[at] & 0x81) | (16 << 1) }
        }
        guard !parameterSets.isEmpty || data != packet.data else { return }
        try packet.setData(parameterSets + data, like: packet)
    }

    /// libx264's start-code-framed output in the copied stream's framing.
    private func reframed(_ annexB: [UInt8]) -> [UInt8] {
        guard let lengthSize else { return annexB }
        var out: [UInt8] = []
        for nal in HeadEncoder.nalUnits(annexB) {
            for i in (0..<lengthSize).reversed() { out.append(UInt8(truncatingIfNeeded: nal.count >> (8 * i))) }
            out += nal
        }
        return out
    }

    /// The NAL units of a start-code-framed stream.
    static func nalUnits(_ b: [UInt8]) -> [ArraySlice<UInt8>] {
        var starts: [(code: Int, payload: Int)] = []
        var i = 0
        while i + 2 < b.count {
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1 {
                starts.append((i > 0 && b[i - 1] == 0 ? i - 1 : i, i + 3)); i += 3
            } else {
                i += 1
            }
        }
        return starts.enumerated().map { k, s in b[s.payload..<(k + 1 < starts.count ? starts[k + 1].code : b.count)] }
    }

    /// From an hvcC record: the NAL length size and its VPS, SPS and PPS framed with it; (nil, []) for start codes.
    static func framing(hvcC e: [UInt8]) -> (Int?, [UInt8]) {
        guard e.count >= 23, e[0] == 1 else { return (nil, []) }
        let size = Int(e[21] & 3) + 1
        var sets: [UInt8] = [], i = 23
        for _ in 0..<Int(e[22]) {
            guard i + 3 <= e.count else { break }
            let type = e[i] & 0x3F, count = Int(e[i + 1]) << 8 | Int(e[i + 2])
            i += 3
            for _ in 0..<count {
                guard i + 2 <= e.count else { break }
                let n = Int(e[i]) << 8 | Int(e[i + 1])
                guard i + 2 + n <= e.count else { break }
                // VPS, SPS, PPS (32, 33, 34); SEI arrays are left out.
                if (32...34).contains(type) {
                    for k in (0..<size).reversed() { sets.append(UInt8(truncatingIfNeeded: n >> (8 * k))) }
                    sets += e[(i + 2)..<(i + 2 + n)]
                }
                i += 2 + n
            }
        }
        return (size, sets)
    }

    /// From an avcC record: the NAL length size and its SPS and PPS framed with it; (nil, []) for start codes (no
    /// avcC: the packets carry their parameter sets).
    static func framing(avcC e: [UInt8]) -> (Int?, [UInt8]) {
        guard let record = AVCConfiguration(record: e) else { return (nil, []) }
        return (record.lengthSize, record.framedParameterSets)
    }
}

extension Packet {
    /// Sets the decode time (the stream's time base), the stream the packet belongs to and, when given, how long it
    /// is shown.
    public func setTimes(decode: Int64, stream: Int, duration: Int64? = nil) {
        pointer.pointee.dts = decode
        pointer.pointee.stream_index = Int32(stream)
        if let duration { pointer.pointee.duration = max(1, duration) }
    }

    /// The payload's bytes (a copy).
    public var data: [UInt8] {
        guard let d = pointer.pointee.data, pointer.pointee.size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: d, count: Int(pointer.pointee.size)))
    }

    /// Replaces the payload with `bytes`, keeping `source`'s fields (times, flags; `source` may be this packet).
    func setData(_ bytes: [UInt8], like source: Packet) throws {
        guard let fresh = av_packet_alloc() else { throw FFmpegError(operation: "smart cut", message: "out of memory") }
        var owned: UnsafeMutablePointer<AVPacket>? = fresh
        defer { av_packet_free(&owned) }
        try check(av_new_packet(fresh, Int32(bytes.count)), "allocate packet")
        bytes.withUnsafeBufferPointer { fresh.pointee.data.update(from: $0.baseAddress!, count: bytes.count) }
        try check(av_packet_copy_props(fresh, source.pointer), "copy packet fields")
        fresh.pointee.stream_index = source.pointer.pointee.stream_index
        av_packet_unref(pointer)
        av_packet_move_ref(pointer, fresh)
    }
}
