import FFmpegBridge
import Foundation
import MediaTime

/// Reads a file's facts for `scrubkit info`: container, duration (with a trust chain), the right video stream,
/// display geometry, colour, audio streams, cover pictures; and checks that the video actually decodes.
public struct MediaInspector: Sendable {
    /// Pictures above this many pixels are refused before anything sized by them is allocated.
    public var pixelLimit: Int
    /// Decode the first video frame to prove the file is usable (cheap: shrink-on-load where possible).
    public var verifiesDecoding: Bool

    /// The default pixel limit: 150 megapixels (e.g. 15000 × 10000), about 225 MB of 4:2:0 pixels at most.
    public static let defaultPixelLimit = 150_000_000

    /// An inspector refusing pictures above `pixelLimit` pixels, decoding the first frame unless `verifiesDecoding` is
    /// false.
    public init(pixelLimit: Int = MediaInspector.defaultPixelLimit, verifiesDecoding: Bool = true) {
        self.pixelLimit = pixelLimit
        self.verifiesDecoding = verifiesDecoding
    }

    /// Inspects one file. Never throws: a failure is reported in `error` with whatever was learned before it.
    public func inspect(path: String) -> MediaInfo {
        var info = MediaInfo(path: path)
        if let problem = MediaOpener.checkReadable(path) { info.error = problem; return info }
        // Stills a registered decoder describes better than FFmpeg, as the thumbnailer reads them (HEIC, AVIF through
        // libheif: FFmpeg 5.1 cannot read HEIC, and misreads an AVIF whose primary item is not the first).
        let head = MediaOpener.head(path)
        if let head,
            let still = StillDecoders.inspect(
                path: path, head: head, pixelLimit: pixelLimit, verifiesDecoding: verifiesDecoding)
        {
            return still
        }
        let opened: OpenedMedia
        do { opened = try MediaOpener.open(path, .full(pixelLimit: pixelLimit), head: head) } catch {
            info.error = error as? MediaError ?? MediaError.opening(path, error)
            return info
        }
        let demuxer = opened.demuxer, facts = opened.facts
        info.container = facts.container
        if let text = facts.textError(path: path) {
            info.error = text
            return info
        }
        let streams = facts.streams
        info.attachedPictures = streams.filter { $0.kind == .video && $0.isAttachedPicture }.count
        info.audio = MediaInspector.audio(streams)
        info.subtitles = MediaInspector.subtitles(streams)
        info.isStill = facts.isStill
        let videoStream = facts.video
        if let v = videoStream {
            info.video = MediaInspector.describe(v)
            if !info.isStill, !demuxer.isLive, let kf = try? keyframeInterval(demuxer, v.index) {
                info.video?.keyframeInterval = kf
            }
        }
        (info.duration, info.durationKind) = (facts.duration, facts.durationKind)
        info.bitRate = facts.bitRate
        info.startTime = facts.start
        info.chapters = facts.chapters

        if let empty = facts.emptiness(path: path) {
            info.error = empty
        } else if let v = videoStream {
            if let problem = MediaFile.checkDecodable(v, path: path, pixelLimit: pixelLimit) {
                info.error = problem
            } else if verifiesDecoding {
                demuxer.rewind()
                var (problem, frameOrientation) = verifyDecoding(demuxer, v, path: path)
                // FFmpeg 5.1 cannot decode animated WebP; libwebp (what thumbnails use for WebP) can.
                if problem != nil, v.codecName == "webp", let webp = WebPPicture(path: path),
                    webp.decode(width: 1, height: 1) != nil
                {
                    problem = nil
                    frameOrientation = Orientation(exif: ExifOrientation.tiffOrientation(webp.exif) ?? 1)
                    if var video = info.video {
                        if webp.frameCount > 1 { video.frameCount = webp.frameCount }
                        if video.width == 0 || video.height == 0 {   // FFmpeg read no size from an animation
                            (video.width, video.height) = (webp.width, webp.height)
                            (video.displayWidth, video.displayHeight) = (webp.width, webp.height)
                            video.bitDepth = video.bitDepth ?? 8
                        }
                        info.video = video
                    }
                }
                info.error = problem
                // Stills carry EXIF orientation on the decoded frame, not on the stream.
                if info.isStill, let o = frameOrientation, o != .identity, var video = info.video {
                    video.rotation = o.rotation
                    video.mirrored = o.mirrored
                    (video.displayWidth, video.displayHeight) = VideoInfo.displaySize(
                        width: video.width, height: video.height, sar: video.sar, rotation: o.rotation)
                    info.video = video
                }
            }
        }
        if info.isStill {
            info.bitRate = nil
            info.video?.frameRate = nil
            info.video?.averageFrameRate = nil
        }
        return info
    }

    /// The subtitle streams as `info` reports them.
    static func subtitles(_ streams: [StreamFacts]) -> [SubtitleInfo] {
        streams.filter { $0.kind == .subtitle }.map(SubtitleInfo.init(stream:))
    }

    /// The audio streams as `info` reports them.
    static func audio(_ streams: [StreamFacts]) -> [AudioInfo] {
        streams.filter { $0.kind == .audio }.map {
            AudioInfo(codec: $0.codecName, sampleRate: $0.sampleRate, channels: $0.channels)
        }
    }

    /// The container's bit rate, or the one a known duration implies when the container's is missing or far below it
    /// (a container rate computed from a bogus duration).
    static func bitRate(_ demuxer: Demuxer, duration: MediaTime) -> Int? {
        var rate = demuxer.bitRate
        if duration.isNumeric, duration.seconds > 0, let size = demuxer.fileSize {
            let implied = Int(Double(size) * 8 / duration.seconds)
            if rate == nil || rate! < implied / 4 { rate = implied }
        }
        return rate
    }

    /// A video stream's facts as `info` reports them (no keyframe scan: that reads packets). A still has no frame
    /// rate (image2 says 25 fps).
    static func describe(_ v: StreamFacts, isStill: Bool = false) -> VideoInfo {
        let (dw, dh) = VideoInfo.displaySize(
            width: v.width, height: v.height, sar: v.sampleAspectRatio, rotation: v.orientation.rotation)
        func rate(_ r: (num: Int32, den: Int32)) -> Double? {
            r.num > 0 && r.den > 0 ? Double(r.num) / Double(r.den) : nil
        }
        let hdr: VideoInfo.HDR =
            v.colorTransfer == "smpte2084" ? .pq : (v.colorTransfer == "arib-std-b67" ? .hlg : .none)
        return VideoInfo(
            streamIndex: v.index, codec: v.codecName == "none" ? (v.codecTag ?? "unknown") : v.codecName,
            profile: v.profile, pixelFormat: v.pixelFormat,
            bitDepth: v.bitDepth, width: v.width, height: v.height, sar: v.sampleAspectRatio,
            rotation: v.orientation.rotation, mirrored: v.orientation.mirrored,
            displayWidth: dw, displayHeight: dh, frameRate: isStill ? nil : rate(v.frameRate),
            averageFrameRate: isStill ? nil : rate(v.averageFrameRate), frameCount: v.frameCount, keyframeInterval: nil,
            colorPrimaries: v.colorPrimaries, colorTransfer: v.colorTransfer, colorMatrix: v.colorMatrix,
            colorRange: v.colorRange, hdr: hdr)
    }

    /// Median spacing of the first few keyframes (packet flags only, no decoding); nil with fewer than two.
    private func keyframeInterval(_ demuxer: Demuxer, _ index: Int) throws -> Double? {
        defer { demuxer.rewind() }
        let scan = try demuxer.scanPackets(streamIndex: index, maxPackets: 3000, maxKeyframes: 5)
        let times = scan.keyframeTimes.sorted()
        guard times.count >= 2 else { return nil }
        let gaps = zip(times.dropFirst(), times).map { ($0 - $1).seconds }.sorted()
        return gaps[gaps.count / 2]
    }

    /// Decodes until the first video frame; an error when none comes, else the frame's own orientation (EXIF).
    /// Stills are decoded small (`lowres`) first; a decoder that refuses that (some JPEGs) is tried at full size.
    private func verifyDecoding(_ demuxer: Demuxer, _ v: StreamFacts, path: String) -> (MediaError?, Orientation?) {
        let lowres = min(Decoder.maxLowres(demuxer: demuxer, streamIndex: v.index), 3)
        var outcome = firstFrame(demuxer, v, path: path, lowres: lowres)
        if outcome.0 != nil && lowres > 0, let fresh = try? MediaOpener.demux(path, .again) {  // (image2 cannot rewind)
            outcome = firstFrame(fresh, v, path: path, lowres: 0)
        }
        return outcome
    }

    private func firstFrame(
        _ demuxer: Demuxer, _ v: StreamFacts, path: String, lowres: Int
    ) -> (MediaError?, Orientation?) {
        do {
            let decoding = try StreamDecoder(
                demuxer, stream: v, path: path, threading: .single, lowres: lowres, pixelLimit: pixelLimit,
                describe: { MediaInspector.decodingError($0, v, path: path) })
            guard let frame = try decoding.nextFrame(maxPackets: 600) else {
                return (
                    MediaError(
                        .decodeFailed, path: path,
                        "no video frame could be decoded (\(MediaError.formatName(v.codecName)) stream is empty, "
                            + "truncated or damaged)"
                    ), nil
                )
            }
            return (nil, frame.displayOrientation)
        } catch let e as MediaError {
            return (e, nil)
        } catch {
            return (MediaInspector.decodingError(error, v, path: path), nil)
        }
    }

    /// What a failure to decode `v`'s first frame says.
    private static func decodingError(_ error: Error, _ v: StreamFacts, path: String) -> MediaError {
        if let e = error as? FFmpegError { return MediaError.decoding(path, codec: v.codecName, e) }
        return MediaError(.decodeFailed, path: path, "\(error)")
    }
}
