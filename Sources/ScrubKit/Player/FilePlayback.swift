import FFmpegBridge
import Foundation
import Locking
import MediaTime

/// A played file, shaped like mpv's player core: one `PlayerReader` (the only open of the file for playing: every
/// packet read once) feeding peer chains — the picture's (`VideoChain`) and the sound's (`SoundChain`) — each on a
/// thread of its own, timed on the player's clock. Seeks go to the picture's chain (its seek moves the reader, which
/// empties every queue under one serial); the sound starts again from its queue when the player tells it to.
public final class FilePlayback: PlayerPipeline, Sendable {
    private struct State {
        var reader: PlayerReader? = nil
        var video: VideoChain? = nil
        var sound: SoundChain? = nil
        /// The facts the reader opened with (to start another audio stream's chain).
        var facts: MediaFacts? = nil
        var outputWidth = 0
        var outputHeight = 0
        var closed = false
        /// Subtitles: the tracks, each one's chain once asked for, and the timeline's start (subtitle files count
        /// from it, as players show time from it).
        var subtitleTracks: [SubtitleTrack] = []
        var subtitleChains: [Int: SubtitleChain] = [:]
        var start: MediaTime = .zero
        var displaySize = (width: 0, height: 0)
    }

    /// Default budget of the picture chain's preview cache: 48 MiB (about 60 pictures of 640×400).
    public static let defaultPreviewBudget = 48 << 20

    private let path: String
    private let previewBudget: Int
    private let soundOptions: SoundOptions?
    private let subtitleFiles: [String]
    private let clock: MediaClock
    private let state = Locked(State())

    /// A pipeline for `path` with a preview cache of `previewBudget` bytes, playing sound as `sound` says (nil:
    /// silent), timed on `clock` (the player's), offering `subtitleFiles` after the file's own subtitle streams and
    /// the subtitle files found beside it; nothing is opened until ``load(_:)``.
    public init(path: String, previewBudget: Int = FilePlayback.defaultPreviewBudget, sound: SoundOptions? = nil,
                subtitleFiles: [String] = [], clock: MediaClock = SystemClock()) {
        self.path = path
        self.previewBudget = previewBudget
        soundOptions = sound
        self.subtitleFiles = subtitleFiles
        self.clock = clock
    }

    /// Opens the media on the reader's thread; calls `done` once with its facts or the error.
    public func load(_ done: @escaping @Sendable (Result<PlayerMediaInfo, MediaError>) -> Void) {
        let reader = PlayerReader(path: path, clock: clock) { [self] reader, result in
            switch result {
            case .failure(let e): done(.failure(e))
            case .success(let opened):
                let info = start(opened, reader: reader)
                if case .success(let i) = info { setUpSubtitles(opened.facts, info: i) }
                if state.withLock({ $0.closed }) { close() }   // (closed while it opened: the new chains stop too)
                done(info)
            }
        }
        let closed = state.withLock { s -> Bool in
            s.reader = reader
            return s.closed
        }
        if closed { reader.close() }
    }

    /// Builds the chains on the opened file (on the reader's thread, before it reads).
    private func start(_ opened: PlayerReader.OpenedFacts, reader: PlayerReader) -> Result<PlayerMediaInfo, MediaError>
    {
        let facts = opened.facts
        state.withLock { s in
            s.reader = reader   // (also set by load, which may not have run yet)
            s.facts = facts
        }
        // Sound without a picture to show (no cover art either): the timeline alone, the sound positioning the reader.
        if (facts.kind == .audioOnly && facts.coverPicture == nil) || facts.kind == .nothing, !facts.isText {
            if let e = facts.emptiness(path: path) { return .failure(e) }
            if facts.kind == .audioOnly { startSound(facts, reader: reader, positionsReader: true) }
            return .success(
                PlayerMediaInfo(
                    start: facts.start, duration: facts.durationKind == .known ? facts.duration : .indefinite,
                    hasVideo: false, chapters: facts.chapters, hasAudio: !facts.audioStreams.isEmpty))
        }
        let source: VideoSource
        do {
            // (An audio file's cover picture is its picture, for the whole length of the sound.)
            source = try VideoSource(opened.opened, pixelLimit: MediaInspector.defaultPixelLimit, allowsCoverArt: true)
        } catch {
            return .failure(error as? MediaError ?? MediaError(.unreadable, path: path, "\(error)"))
        }
        guard let packets = reader.stream(source.stream.index) else {
            return .failure(MediaError(.unreadable, path: path, "the picture stream is not read"))
        }
        let video = VideoChain(source: source, packets: packets, previewBudget: previewBudget, clock: clock)
        let size = state.withLock { s -> (Int, Int) in
            s.video = video
            return (s.outputWidth, s.outputHeight)
        }
        video.setOutputSize(width: size.0, height: size.1)
        // (A cover picture does not move the reader: the sound positions it, as without a picture.)
        if !facts.isStill { startSound(facts, reader: reader, positionsReader: source.isStill) }
        let stream = source.stream
        let (dw, dh) = VideoInfo.displaySize(width: stream.width, height: stream.height, sar: stream.sampleAspectRatio,
                                             rotation: stream.orientation.rotation)
        let rate = stream.averageFrameRate.num > 0 ? stream.averageFrameRate : stream.frameRate
        let frameDuration =
            rate.num > 0 && rate.den > 0 ? MediaTime(value: Int64(rate.den), timescale: rate.num) : MediaTime.invalid
        // A still image is a picture with a zero-length timeline: shown, and "ended" at once. A cover picture is shown
        // for the length of the sound.
        let coverArt = source.isStill && facts.kind == .audioOnly
        let duration = coverArt ? (facts.durationKind == .known ? facts.duration : .indefinite)
            : source.isStill ? MediaTime.zero : (source.duration.isNumeric ? source.duration : .indefinite)
        return .success(
            PlayerMediaInfo(
                start: coverArt ? facts.start : source.start, duration: duration, hasVideo: true,
                displayWidth: dw, displayHeight: dh, frameDuration: frameDuration,
                chapters: facts.chapters, hasAudio: !facts.audioStreams.isEmpty))
    }

    /// Starts the sound chain on the chosen audio stream (when sound was asked for).
    private func startSound(
        _ facts: MediaFacts, reader: PlayerReader, positionsReader: Bool, options: SoundOptions? = nil
    ) {
        guard let options = options ?? soundOptions else { return }
        let sound = SoundChain(path: path, options: options, clock: clock)
        sound.start(facts: facts, reader: reader, positionsReader: positionsReader)
        state.withLock { $0.sound = sound }
    }

    // MARK: - Picture

    /// Positions at `time` within the tolerances (from the preview cache when it has the picture); a newer seek
    /// supersedes this one, whose `done` then gets nil. Without a picture it lands where asked at once.
    public func seek(to time: MediaTime, toleranceBefore: MediaTime, toleranceAfter: MediaTime,
                     _ done: @escaping @Sendable (MediaTime?) -> Void) {
        guard let video = state.withLock({ $0.video }) else { done(time); return }
        video.seek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter, done)
    }

    /// The newest decoded frame at or before `time`; older ones are dropped and counted.
    public func takeFrame(atOrBefore time: MediaTime) -> VideoFrame? {
        state.withLock { $0.video }?.takeFrame(atOrBefore: time)
    }

    /// The size frames are scaled to from now on (the display area); 0×0 stops decoding pictures.
    public func setOutputSize(width: Int, height: Int) {
        let video = state.withLock { s -> VideoChain? in
            (s.outputWidth, s.outputHeight) = (width, height)
            return s.video
        }
        video?.setOutputSize(width: width, height: height)
    }

    /// Frames handed out and frames dropped so far.
    public var frameStatistics: (shown: Int, dropped: Int) { state.withLock { $0.video }?.frameStatistics ?? (0, 0) }

    /// Seeks whose picture was decoded, and seeks served from the preview cache.
    public var previewStatistics: (decoded: Int, fromCache: Int) {
        state.withLock { $0.video }?.previewStatistics ?? (0, 0)
    }

    /// How reading the file goes: a server waited for or gone, the file cut short or deleted.
    public var readingStatus: ReadingStatus { state.withLock { $0.reader }?.readingStatus ?? .fine }

    /// Whether the picture has nothing left to show while reading waits on a server (or the server is gone).
    public var isStarved: Bool {
        let (reader, video) = state.withLock { ($0.reader, $0.video) }
        guard let reader, let video, !video.hasFramesQueued else { return false }
        switch reader.readingStatus {
        case .waiting, .serverGone: return true
        default: return false
        }
    }

    /// Packets and bytes read from the file so far (by the one reader), and the most bytes its queues held at once.
    public var readStatistics: (packets: Int, bytes: Int, peakQueuedBytes: Int) {
        guard let s = state.withLock({ $0.reader })?.statistics else { return (0, 0, 0) }
        return (s.packets, s.bytes, s.peakQueuedBytes)
    }

    /// Stops the chains and the reader for good (each thread frees its FFmpeg state on its way out).
    public func close() {
        let (reader, video, sound) = state.withLock { s in
            s.closed = true
            return (s.reader, s.video, s.sound)
        }
        video?.close()
        sound?.close()
        reader?.close()
        for chain in state.withLock({ s in
            defer { s.subtitleChains.removeAll() }; return Array(s.subtitleChains.values)
        }) { chain.close() }
    }

    // MARK: - Subtitles

    /// The tracks: the file's decodable subtitle streams, the subtitle files beside it, then those given.
    private func setUpSubtitles(_ facts: MediaFacts, info: PlayerMediaInfo) {
        let streams = facts.subtitleStreams.filter(\.hasDecoder).map {
            SubtitleTrack(source: .stream($0.index), info: SubtitleInfo(stream: $0))
        }
        let beside = SubtitleTrack.sidecars(for: path).map { SubtitleTrack.file($0, beside: path) }
        let given = subtitleFiles.map { SubtitleTrack.file($0, beside: path) }
        state.withLock { s in
            s.subtitleTracks = streams + beside + given
            s.start = info.start.isNumeric ? info.start : .zero
            s.displaySize = (info.displayWidth, info.displayHeight)
        }
    }

    /// The subtitle tracks: the file's streams, then subtitle files.
    public var subtitleTracks: [SubtitleTrack] { state.withLock { $0.subtitleTracks } }

    /// The cues of track `track` showing at `time` (its chain started on first asking).
    public func subtitles(track: Int, at time: MediaTime) -> (cues: [SubtitleCue], problem: MediaError?) {
        let found = state.withLock { s -> (SubtitleChain, MediaTime)? in
            guard s.subtitleTracks.indices.contains(track), !s.closed else { return nil }
            if let chain = s.subtitleChains[track] { return (chain, s.start) }
            let source: SubtitleChain.Source
            switch s.subtitleTracks[track].source {
            case .file(let file): source = .file(file)
            case .stream(let index):
                guard let stream = s.reader?.stream(index),
                    let facts = s.facts?.streams.first(where: { $0.index == index })
                else { return nil }
                // (A local Matroska or MP4 file reads one stream's packets alone cheaply: the container skips the
                // rest.)
                let container = s.facts?.container ?? ""
                let scans = !Demuxer.isURL(path) && (container.hasPrefix("matroska") || Demuxer.isMP4Family(container))
                source = .stream(stream, facts: facts, scan: scans ? path : nil)
            }
            let chain = SubtitleChain(source: source, fallbackCanvas: s.displaySize)
            s.subtitleChains[track] = chain
            return (chain, s.start)
        }
        guard let (chain, start) = found else { return ([], nil) }
        // (A subtitle file counts from the timeline's start, as a player shows time.)
        if case .file = subtitleTracks[track].source {
            let cues = chain.cues(at: time - start).map { c -> SubtitleCue in
                var c = c
                c.start = c.start + start
                if c.end.isNumeric { c.end = c.end + start }
                return c
            }
            return (cues, chain.problem)
        }
        return (chain.cues(at: time), chain.problem)
    }

    // MARK: - Sound

    private var sound: SoundChain? { state.withLock { $0.sound } }

    /// Plays sound from `time` at `rate` (pitch as `pitch` says), or silences it (nil).
    public func playSound(from time: MediaTime?, rate: Double, pitch: AudioTimePitchAlgorithm) {
        sound?.play(from: time, rate: rate, pitch: pitch)
    }

    /// Plays a scrubbing snippet of sound at `time`.
    public func playSoundSnippet(at time: MediaTime, seconds: Double) { sound?.playSnippet(at: time, seconds: seconds) }

    /// What is heard at `now` on the player's clock, while sound plays.
    public func soundClock(now: Double) -> MediaTime? { sound?.clock(now: now) }

    /// Whether the sound's output came back after it went away (once).
    public func takeSoundRestartRequest() -> Bool { sound?.takeRestartRequest() ?? false }

    /// Volume (0…1) and mute.
    public func setSound(volume: Double?, muted: Bool?) { sound?.set(volume: volume, muted: muted) }

    /// What the sound is doing; "sound off" when the pipeline was made without it.
    public var soundStatus: SoundStatus { sound?.status ?? .silent("sound off") }

    /// Plays the next audio stream (after the last: the first) from the same reader; its number (from 1), nil when
    /// there is no other.
    public func nextSoundStream() -> Int? {
        guard var options = soundOptions else { return nil }
        let (old, facts, reader, hasPicture) = state.withLock { ($0.sound, $0.facts, $0.reader, $0.video != nil) }
        guard let facts, let reader, facts.audioStreams.count > 1 else { return nil }
        let current = old?.status.streamNumber ?? 1
        options.streamNumber = current % facts.audioStreams.count + 1
        let volume = old?.status.volume ?? 1, muted = old?.status.isMuted ?? false
        old?.close()
        startSound(facts, reader: reader, positionsReader: !hasPicture, options: options)
        sound?.set(volume: volume, muted: muted)
        return options.streamNumber
    }
}
