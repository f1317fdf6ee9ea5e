import FFmpegBridge
import Foundation
import MediaTime

/// What an opened file holds, learned once at the front door (``MediaOpener/open(_:_:head:)``) and asked by everyone
/// after: `info`, thumbnails and sheets (through ``VideoSource``), the player and the benchmark. Reading it decodes
/// nothing; the duration may read packet headers when the container does not state one (``MediaFile/duration``).
struct MediaFacts: Sendable {
    /// What kind of media the file is, as the callers route it.
    enum Kind: Equatable, Sendable {
        /// One picture (JPEG, PNG, a single-frame image container).
        case still
        /// A real video stream, with or without sound.
        case video
        /// Sound and no video stream (perhaps with a cover picture).
        case audioOnly
        /// Neither: no streams, or only subtitles, data, attachments.
        case nothing
    }

    /// FFmpeg's name of the container format (`mov,mp4,m4a,3gp,3g2,mj2`); `tty` for text.
    let container: String
    /// Every stream, in container order.
    let streams: [StreamFacts]
    /// The real video stream (never a cover picture: ``MediaFile/chooseVideoStream(_:preferred:)``), with a still's
    /// size from its header bytes when FFmpeg read none (image bombs report 0×0).
    let video: StreamFacts?
    /// The first decodable cover picture (ID3 APIC, MP4 covr, FLAC PICTURE), when there is one.
    let coverPicture: StreamFacts?
    /// A single-picture container: no timeline.
    let isStill: Bool
    /// The first presentation time of the timeline (the video stream's when there is one); zero for stills.
    let start: MediaTime
    /// The length of the timeline, meaningful when ``durationKind`` is `.known`.
    let duration: MediaTime
    /// Whether ``duration`` can be trusted, is indefinite (live) or unknown.
    let durationKind: MediaInfo.DurationKind
    /// The container's bit rate, or the one the size over a known duration implies (nil for stills).
    let bitRate: Int?
    /// The container's chapters, in file order.
    let chapters: [Chapter]

    /// The audio streams, in file order.
    var audioStreams: [StreamFacts] { streams.filter { $0.kind == .audio } }

    /// The subtitle streams, in file order.
    var subtitleStreams: [StreamFacts] { streams.filter { $0.kind == .subtitle } }

    /// The audio stream sound is played and measured from — the `number`th in file order (counted from 1, mpv's
    /// `--aid`), else the first this build can decode (else the first) — or why there is none, in a few words. The
    /// one choice: the player's sound and its loudness strip follow it.
    func audioStream(number: Int?) -> (stream: StreamFacts?, problem: String?) {
        let audio = audioStreams
        let chosen: StreamFacts?
        if let n = number {
            chosen = n >= 1 && n <= audio.count ? audio[n - 1] : nil
            if chosen == nil {
                return (nil, audio.isEmpty ? "no audio stream" : "no audio stream \(n) (the file has \(audio.count))")
            }
        } else {
            chosen = audio.first { $0.hasDecoder } ?? audio.first
        }
        guard let stream = chosen else { return (nil, "no audio stream") }
        guard stream.hasDecoder else { return (nil, "cannot decode the \(stream.codecName) sound") }
        return (stream, nil)
    }

    /// Which audio stream `stream` is, counted from 1 (0: not one of them).
    func audioStreamNumber(of stream: StreamFacts) -> Int {
        (audioStreams.firstIndex { $0.index == stream.index } ?? -1) + 1
    }

    /// What the file is, for routing.
    var kind: Kind {
        if isStill && video != nil { return .still }
        if video != nil { return .video }
        return audioStreams.isEmpty ? .nothing : .audioOnly
    }

    /// FFmpeg's catch-all for text ("ANSI art"): not media.
    var isText: Bool { container == "tty" }

    /// The error for a text file, nil for media.
    func textError(path: String) -> MediaError? {
        isText ? MediaError(.notMedia, path: path, "a text file, not media") : nil
    }

    /// Gathers the facts of an opened file. `headerSize`: the picture size the file's header bytes state, when any.
    init(demuxer: Demuxer, headerSize: (width: Int, height: Int)?) {
        container = demuxer.formatName
        streams = demuxer.streams
        isStill = MediaFile.isStillContainer(container)
        var video = MediaFile.chooseVideoStream(streams, preferred: demuxer.bestVideoStreamIndex)
        if var v = video, v.width == 0 || v.height == 0, let (w, h) = headerSize, w > 0, h > 0 {
            (v.width, v.height) = (w, h)
            video = v
        }
        self.video = video
        coverPicture = streams.first { $0.kind == .video && $0.isAttachedPicture && $0.hasDecoder }
        if isStill {
            start = .zero
        } else if let v = video, v.startTime.isNumeric {
            start = v.startTime
        } else {
            start = demuxer.startTime.isNumeric ? demuxer.startTime : .zero
        }
        // (Text is not read toward its end for a duration it does not have.)
        (duration, durationKind) = container == "tty" ? (.invalid, .unknown)
            : MediaFile.duration(demuxer: demuxer, streams: streams, video: video, isStill: isStill)
        bitRate =
            isStill ? nil : MediaInspector.bitRate(demuxer, duration: durationKind == .known ? duration : .invalid)
        chapters = demuxer.chapters.map { Chapter(start: $0.start, end: $0.end, title: $0.title) }
        demuxer.rewind()
    }

    /// The time on the presentation timeline that `expression` names — the one rule for every command that takes
    /// times (`thumb --at`, `cut --from/--to`): an absolute time is a presentation time as `ffprobe -show_frames`
    /// reports it; a fraction is of [``start``, ``start`` + `length`] (nil when `length` is not numeric). Clamped to
    /// ≥ ``start``.
    func presentationTime(of expression: TimeExpression, length: MediaTime) -> MediaTime? {
        let origin = start.isNumeric ? start : .zero
        switch expression {
        case .absolute(let t): return MediaTime.maximum(t, origin)
        case .fraction:
            guard length.isNumeric else { return nil }
            return MediaTime.maximum(expression.resolve(start: origin, duration: length), origin)
        }
    }

    /// Why the file holds nothing to show or play (no streams; no audio or video stream), nil when it does.
    func emptiness(path: String) -> MediaError? {
        if streams.isEmpty { return MediaError(.notMedia, path: path, "no audio or video streams found") }
        if kind == .nothing {
            let kinds = Set(streams.map(\.kind.rawValue)).sorted().joined(separator: ", ")
            return MediaError(.unsupported, path: path, "no audio or video streams found (only \(kinds))")
        }
        return nil
    }
}

/// A file FFmpeg opened at the front door, and its facts.
struct OpenedMedia {
    /// The path or URL as given.
    let path: String
    /// The demuxer, positioned at the start. Not thread-safe: one owner at a time.
    let demuxer: Demuxer
    /// What it holds.
    let facts: MediaFacts
}
