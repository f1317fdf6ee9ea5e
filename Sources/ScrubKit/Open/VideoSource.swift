import FFmpegBridge
import Foundation
import MediaTime

/// An opened file ready for frame extraction: the demuxer, the chosen video stream and its timeline.
/// Not thread-safe: owned by one session on one task.
final class VideoSource {
    let path: String
    let demuxer: Demuxer
    /// What the front door learned of the file.
    let facts: MediaFacts
    let stream: StreamFacts
    /// A still picture, or the cover picture of a file without video: no timeline.
    let isStill: Bool
    /// First presentation time of the stream (ffprobe's timeline; 10 s for a file whose first frame is at 10 s).
    let start: MediaTime
    /// Length of the timeline; invalid when unknown.
    let duration: MediaTime
    /// MPEG-PS (DVD VOBs, broadcast recordings): no index, and FFmpeg's seek is a search by timestamp that lands on any
    /// packet before the time, not a keyframe. (MPEG-TS's search looks for keyframes: it lands right.)
    var searchesByTimestamp: Bool { facts.container == "mpeg" }

    /// Opens `path` at the front door (``MediaOpener/open(_:_:head:)``, lean probing) and picks its video stream:
    /// see ``init(_:pixelLimit:allowsCoverArt:)``. `head`: the file's first bytes when the caller already read them.
    /// `onePicture`: a URL from which one picture is wanted, whose MP4/MOV header, when it describes the video, is all
    /// that is read before the picture's own bytes (``MediaOpener/Probing/headerWhereEnough(pixelLimit:)``).
    convenience init(
        path: String, pixelLimit: Int, allowsCoverArt: Bool = false, head: [UInt8]? = nil, onePicture: Bool = false
    ) throws {
        let probing: MediaOpener.Probing =
            onePicture && Demuxer.isURL(path)
            ? .headerWhereEnough(pixelLimit: pixelLimit) : .lean(pixelLimit: pixelLimit)
        try self.init(
            MediaOpener.open(path, probing, head: head), pixelLimit: pixelLimit, allowsCoverArt: allowsCoverArt)
    }

    /// A second source on a file already opened at the front door, for another decoder (the second half of a
    /// parallel run) or a fresh start (a decoder refused shrink-on-load: image2 cannot rewind). FFmpeg opens the file
    /// again; its `facts` are not gathered again — so an MP4/MOV is opened from its header alone (its probe would
    /// only decode its first pictures again: ~70 ms of a core for 1080p H.264).
    convenience init(reopening path: String, facts: MediaFacts, pixelLimit: Int, allowsCoverArt: Bool) throws {
        let probing: MediaOpener.Probing =
            Demuxer.isMP4Family(facts.container) ? .headerOnly(pixelLimit: pixelLimit) : .lean(pixelLimit: pixelLimit)
        let demuxer = try MediaOpener.demux(path, probing)
        try self.init(
            OpenedMedia(path: path, demuxer: demuxer, facts: facts), pixelLimit: pixelLimit,
            allowsCoverArt: allowsCoverArt)
    }

    /// The video stream of a file opened at the front door, refusing unsupported codecs and pictures above
    /// `pixelLimit` before anything sized by them is allocated. With `allowsCoverArt`, a file without video but with
    /// a cover picture (MP3 ID3, FLAC, M4A) is treated as a still of that picture.
    init(_ opened: OpenedMedia, pixelLimit: Int, allowsCoverArt: Bool = false) throws {
        let path = opened.path, facts = opened.facts
        if let text = facts.textError(path: path) { throw text }
        var chosen = facts.video
        var isCoverArt = false
        if chosen == nil, allowsCoverArt, let cover = facts.coverPicture {
            chosen = cover
            isCoverArt = true
        }
        guard let v = chosen else {
            let what =
                facts.audioStreams.isEmpty
                ? "no video stream" : "audio only: no video stream or cover picture to take a picture from"
            throw MediaError(.noVideo, path: path, what)
        }
        if let problem = MediaFile.checkDecodable(v, path: path, pixelLimit: pixelLimit) { throw problem }
        self.path = path
        self.demuxer = opened.demuxer
        self.facts = facts
        self.stream = v
        self.isStill = isCoverArt || facts.isStill
        self.start = isStill ? .zero : facts.start
        self.duration = !isStill && facts.durationKind == .known ? facts.duration : .invalid
    }

    /// The duration, or for a stream that does not state one (raw H.264) its packets counted at the nominal rate
    /// (``MediaFile/countedDuration(_:)``, once): what percentages and `--count` plans are taken of.
    lazy var lengthForPlanning: MediaTime = duration.isNumeric || isStill ? duration : MediaFile.countedDuration(self)

    /// The time on the presentation timeline that `expression` names (``MediaFacts/presentationTime(of:length:)``):
    /// a fraction is of [start, start + duration]; an absolute time is a presentation time as ffprobe reports it.
    func resolve(_ expression: TimeExpression) throws -> MediaTime {
        if isStill { return .zero }   // a still has no timeline: any time means the picture
        // (The length is counted only for a fraction: counting reads every packet header of a raw stream.)
        let length: MediaTime
        if case .fraction = expression { length = lengthForPlanning } else { length = .zero }
        guard let t = facts.presentationTime(of: expression, length: length) else {
            throw MediaError(.invalidRequest, path: path,
                             "cannot place \(expression) on a timeline of unknown duration (use an absolute time)")
        }
        return t
    }
}
