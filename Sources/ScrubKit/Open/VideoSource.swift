import FFmpegBridge
import Foundation
import MediaTime

/// An opened file ready for frame extraction: the demuxer, the chosen video stream and its timeline.
/// Not thread-safe: owned by one session on one task.
final class VideoSource {
    let path: String
    let demuxer: Demuxer
    let stream: StreamFacts
    let isStill: Bool
    /// First presentation time of the stream (ffprobe's timeline; 10 s for a file whose first frame is at 10 s).
    let start: MediaTime
    /// Length of the timeline; invalid when unknown.
    let duration: MediaTime

    /// Opens `path` and picks its video stream, refusing unsupported codecs and pictures above `pixelLimit`
    /// before anything sized by them is allocated. With `allowsCoverArt`, a file without video but with a cover
    /// picture (MP3 ID3, FLAC, M4A) is treated as a still of that picture. `head`: the file's first bytes when the
    /// caller already read them (``MediaOpener/head(_:)``), so they are not read again.
    init(path: String, pixelLimit: Int, allowsCoverArt: Bool = false, head: [UInt8]? = nil) throws {
        if let problem = MediaOpener.checkReadable(path) { throw problem }
        // Image bombs refused from the header bytes; stills not probed (their size comes from those bytes).
        let headerSize = try MediaOpener.checkHeader(path, head: head ?? MediaOpener.head(path), pixelLimit: pixelLimit)
        let demuxer = try MediaOpener.demux(path, .lean(pixelLimit: pixelLimit))
        if demuxer.formatName == "tty" { throw MediaError(.notMedia, path: path, "a text file, not media") }
        let streams = demuxer.streams
        var chosen = MediaFile.chooseVideoStream(streams, preferred: demuxer.bestVideoStreamIndex)
        if var v = chosen, v.width == 0, let (w, h) = headerSize {   // an unprobed still
            v.width = w
            v.height = h
            chosen = v
        }
        var isCoverArt = false
        if chosen == nil, allowsCoverArt, let cover = streams.first(where: { $0.kind == .video && $0.isAttachedPicture && $0.hasDecoder }) {
            chosen = cover
            isCoverArt = true
        }
        guard let v = chosen else {
            let what = streams.contains { $0.kind == .audio } ? "audio only: no video stream or cover picture to take a picture from" : "no video stream"
            throw MediaError(.noVideo, path: path, what)
        }
        if let problem = MediaFile.checkDecodable(v, path: path, pixelLimit: pixelLimit) { throw problem }
        self.path = path
        self.demuxer = demuxer
        self.stream = v
        self.isStill = isCoverArt || MediaFile.isStillContainer(demuxer.formatName)
        let start = v.startTime.isNumeric ? v.startTime : (demuxer.startTime.isNumeric ? demuxer.startTime : .zero)
        self.start = isStill ? .zero : start
        let (d, kind) = MediaFile.duration(demuxer: demuxer, streams: streams, video: v, isStill: isStill)
        self.duration = kind == .known ? d : .invalid
        demuxer.rewind()
    }

    /// The duration, or for a stream that does not state one (raw H.264) its packets counted at the nominal rate
    /// (``MediaFile/countedDuration(_:)``, once): what percentages and `--count` plans are taken of.
    lazy var lengthForPlanning: MediaTime = duration.isNumeric || isStill ? duration : MediaFile.countedDuration(self)

    /// The time on the presentation timeline that `expression` names: a fraction is of [start, start + duration];
    /// an absolute time is a presentation time as ffprobe reports it. Clamped to ≥ start.
    func resolve(_ expression: TimeExpression) throws -> MediaTime {
        if isStill { return .zero }   // a still has no timeline: any time means the picture
        let t: MediaTime
        switch expression {
        case .absolute(let a): t = a
        case .fraction:
            let length = lengthForPlanning
            guard length.isNumeric else {
                throw MediaError(.invalidRequest, path: path, "cannot place \(expression) on a timeline of unknown duration (use an absolute time)")
            }
            t = expression.resolve(start: start, duration: length)
        }
        return MediaTime.maximum(t, start)
    }
}
