import CFFmpeg

/// Probing: FFmpeg's look at the first packets of every stream, for what a container's header does not say.
extension Demuxer {
    /// FFmpeg's probe of the streams (`avformat_find_stream_info`), as an open with `probes: true` does it, for a
    /// demuxer opened with `probes: false` whose header turned out not to say enough. Call before reading packets.
    /// Single-image formats are probed only with `probesStills`.
    public func probeStreams(maxPixels: Int, probesStills: Bool) throws {
        try probeStreams(maxPixels: maxPixels, probesStills: probesStills, armingDeadline: true)
    }

    /// The probe; `armingDeadline` false inside the open, whose own deadline covers it.
    func probeStreams(maxPixels: Int, probesStills: Bool, armingDeadline: Bool) throws {
        let name = formatName
        let isStillFormat = name == "image2" || (name.hasSuffix("_pipe") && name != "gif_pipe")
        guard probesStills || !isStillFormat else { return }
        if armingDeadline { armDeadline() }
        let found = probe(maxPixels: maxPixels)
        if found < 0 {
            if deadline != nil && (found == scrub_averror_exit() || found == -ETIMEDOUT) {
                throw TimedOut(seconds: Demuxer.networkTimeout, attempts: 1)
            }
            throw FFmpegError(found, "read stream info")
        }
    }

    /// FFmpeg's probe of every stream (`avformat_find_stream_info`), its decoders refusing pictures above
    /// `maxPixels` when positive; FFmpeg's status.
    private func probe(maxPixels: Int) -> Int32 {
        let count = Int(context.pointee.nb_streams)
        guard maxPixels > 0 && count > 0 else { return avformat_find_stream_info(context, nil) }
        var perStream = [OpaquePointer?](repeating: nil, count: count)
        for i in 0..<count { av_dict_set(&perStream[i], "max_pixels", String(min(maxPixels, Int(Int32.max))), 0) }
        defer { for i in 0..<count { av_dict_free(&perStream[i]) } }
        return perStream.withUnsafeMutableBufferPointer { avformat_find_stream_info(context, $0.baseAddress) }
    }
}
