import FFmpegBridge
import Foundation
import MediaTime

/// Policies shared by inspection, thumbnails and playback: which stream, which duration to trust, what is a still.
enum MediaFile {
    /// The length of a stream that does not state one (no duration, no timestamps: raw H.264/HEVC): its packets
    /// counted, times the nominal frame duration. Reads packet headers only (no decoding), of files up to 1 GiB;
    /// invalid when that is not possible.
    static func countedDuration(_ source: VideoSource) -> MediaTime {
        let v = source.stream
        let rate = v.averageFrameRate.num > 0 ? v.averageFrameRate : v.frameRate
        guard rate.num > 0, rate.den > 0, let size = source.demuxer.fileSize, size <= 1 << 30 else { return .invalid }
        defer { source.demuxer.rewind() }
        guard
            let scan = try? source.demuxer.scanPackets(streamIndex: v.index, maxPackets: 5_000_000, maxKeyframes: .max),
            scan.packetCount > 0
        else { return .invalid }
        return MediaTime(value: Int64(rate.den) * Int64(scan.packetCount), timescale: rate.num)
    }

    /// Demuxers that hold one picture.
    static func isStillContainer(_ formatName: String) -> Bool {
        formatName == "image2" || (formatName.hasSuffix("_pipe") && formatName != "gif_pipe")
    }

    /// The real video stream: never a cover picture; FFmpeg's pick (multi-frame, default) when it is a real
    /// stream, else the decodable one with the most frames and pixels.
    static func chooseVideoStream(_ streams: [StreamFacts], preferred: Int?) -> StreamFacts? {
        let candidates = streams.filter { $0.kind == .video && !$0.isAttachedPicture }
        if let p = preferred, let s = candidates.first(where: { $0.index == p }), s.width > 0 || !s.hasDecoder {
            return s
        }
        return candidates.max { a, b in
            (a.hasDecoder ? 1 : 0, a.frameCount ?? 0, a.width * a.height) < (
                b.hasDecoder ? 1 : 0, b.frameCount ?? 0, b.width * b.height
            )
        }
    }

    /// An error when the stream cannot be decoded at all (no decoder, bad size, over the pixel limit).
    static func checkDecodable(_ v: StreamFacts, path: String, pixelLimit: Int) -> MediaError? {
        if !v.hasDecoder {
            let what = v.codecName == "none" ? (v.codecTag.map { "'\($0)'" } ?? "of unknown type") : "'\(v.codecName)'"
            return MediaError(.unsupported, path: path, "unsupported video codec \(what): this FFmpeg cannot decode it")
        }
        if v.width > 0, v.height > 0, v.width * v.height > pixelLimit {
            return MediaError.overPixelLimit(path, width: v.width, height: v.height, limit: pixelLimit)
        }
        return nil
    }

    /// The duration to trust: the container's, then the streams', then the last packet's end time. Each candidate
    /// must look plausible (positive, and not implying an absurdly low bit rate — fragmented MP4 can claim days).
    static func duration(
        demuxer: Demuxer, streams: [StreamFacts], video: StreamFacts?, isStill: Bool
    ) -> (MediaTime, MediaInfo.DurationKind) {
        if isStill { return (.invalid, .unknown) }
        // A live stream has no end yet: never read toward it.
        if demuxer.isLive { return (.indefinite, .indefinite) }
        let size = demuxer.fileSize
        func plausible(_ d: MediaTime) -> Bool {
            guard d.isNumeric, d > .zero else { return false }
            guard let size else { return true }
            let bitsPerSecond = Double(size) * 8 / d.seconds
            return bitsPerSecond >= (video != nil ? 1000 : 100)
        }
        var candidates = [demuxer.duration]
        if let v = video { candidates.append(v.duration) }
        candidates += streams.filter { $0.kind == .audio }.map(\.duration)
        if let d = candidates.first(where: plausible) { return (d, .known) }
        guard let index = video?.index ?? streams.first(where: { $0.kind == .audio })?.index else {
            return (.invalid, .unknown)
        }
        defer { demuxer.rewind() }
        if let end = try? demuxer.lastPacketEndTime(streamIndex: index), end.isNumeric {
            let start = streams.first { $0.index == index }?.startTime ?? .zero
            let d = start.isNumeric ? end - start : end
            if d.isNumeric, d > .zero { return (d, .known) }
        }
        return (.invalid, .unknown)
    }
}
