import FFmpegBridge
import MediaTime

/// What a player learns when its media loads.
public struct PlayerMediaInfo: Sendable {
    /// First presentation time.
    public var start: MediaTime
    /// Length; indefinite when unknown (live, or untrustworthy).
    public var duration: MediaTime
    /// Whether there is a picture to show.
    public var hasVideo: Bool
    /// Display size (SAR and rotation applied), zero without video.
    public var displayWidth: Int
    /// Display height, zero without video.
    public var displayHeight: Int
    /// Nominal frame duration, for frame stepping; invalid when unknown.
    public var frameDuration: MediaTime
    /// The container's chapters, in file order.
    public var chapters: [Chapter]
    /// Whether the media has sound (an audio stream), whether or not it can be played here.
    public var hasAudio: Bool

    /// Facts of loaded media.
    public init(start: MediaTime, duration: MediaTime, hasVideo: Bool, displayWidth: Int = 0, displayHeight: Int = 0,
                frameDuration: MediaTime = .invalid, chapters: [Chapter] = [], hasAudio: Bool = false) {
        self.start = start
        self.duration = duration
        self.hasVideo = hasVideo
        self.displayWidth = displayWidth
        self.displayHeight = displayHeight
        self.frameDuration = frameDuration
        self.chapters = chapters
        self.hasAudio = hasAudio
    }
}

/// One decoded picture ready to show.
public struct VideoFrame: Sendable {
    /// Its presentation time.
    public var time: MediaTime
    /// The picture, scaled to the output size.
    public var image: RGBImage
}

/// The media side of a player: loading, seeking and decoding ahead. The player owns the clock and the rules;
/// a pipeline only answers. Implementations call back on any thread.
public protocol PlayerPipeline: AnyObject, Sendable {
    /// Opens the media; calls `done` once.
    func load(_ done: @escaping @Sendable (Result<PlayerMediaInfo, MediaError>) -> Void)
    /// Positions at `time` within the tolerances and prepares frames from there; calls `done` with the time of the
    /// frame landed on, or nil when superseded by a newer seek. A newer call supersedes an older one.
    func seek(to time: MediaTime, toleranceBefore: MediaTime, toleranceAfter: MediaTime,
              _ done: @escaping @Sendable (MediaTime?) -> Void)
    /// The newest decoded frame at or before `time`, dropping older ones (counted as dropped); nil if none new.
    func takeFrame(atOrBefore time: MediaTime) -> VideoFrame?
    /// The pixel size frames should be decoded to (the display area); 0×0 = no frames needed.
    func setOutputSize(width: Int, height: Int)
    /// Frames shown and dropped so far.
    var frameStatistics: (shown: Int, dropped: Int) { get }
    /// How reading the media goes (a server waited for or gone, a file cut short or deleted).
    var readingStatus: ReadingStatus { get }
    /// Whether playback has run out of data: the picture has nothing left to show while reading waits on a server
    /// (or the server is gone). The player's timeline then holds, as mpv pauses for its cache.
    var isStarved: Bool { get }
    /// Stops decoding for good.
    func close()

    /// Sound: plays from `time` on at `rate` times normal speed, its pitch as `pitch` says (a new start: nothing
    /// queued before is heard), or is silent from now (nil: paused, seeking, a speed sound does not play at).
    func playSound(from time: MediaTime?, rate: Double, pitch: AudioTimePitchAlgorithm)
    /// Plays `seconds` of sound at `time`, faded in and out, then falls silent (audio scrubbing).
    func playSoundSnippet(at time: MediaTime, seconds: Double)
    /// The media time being heard at monotonic `now` while sound plays, the player's master clock; nil without sound.
    func soundClock(now: Double) -> MediaTime?
    /// Whether the sound's output came back after it went away (once): the player then starts sound where it is.
    func takeSoundRestartRequest() -> Bool
    /// Sets the volume (0…1) and mute of the sound.
    func setSound(volume: Double?, muted: Bool?)
    /// What the sound is doing (for a status line).
    var soundStatus: SoundStatus { get }
    /// Switches the sound to the next audio stream; its number (from 1), nil when there is no other.
    func nextSoundStream() -> Int?

    /// The subtitle tracks: the file's subtitle streams, then subtitle files (empty until loaded).
    var subtitleTracks: [SubtitleTrack] { get }
    /// The cues of track `track` (an index into ``subtitleTracks``) showing at `time` on the media's timeline, from
    /// what has been decoded so far; and why the track shows nothing, when it cannot be read.
    func subtitles(track: Int, at time: MediaTime) -> (cues: [SubtitleCue], problem: MediaError?)
}

extension PlayerPipeline {
    /// Nothing read: nothing to say.
    public var readingStatus: ReadingStatus { .fine }
    /// Nothing read: never out of data.
    public var isStarved: Bool { false }
    /// No sound.
    public func playSound(from time: MediaTime?, rate: Double, pitch: AudioTimePitchAlgorithm) {}
    /// No sound.
    public func playSoundSnippet(at time: MediaTime, seconds: Double) {}
    /// No sound: the player's own clock rules.
    public func soundClock(now: Double) -> MediaTime? { nil }
    /// No sound.
    public func takeSoundRestartRequest() -> Bool { false }
    /// No sound.
    public func setSound(volume: Double?, muted: Bool?) {}
    /// No sound.
    public var soundStatus: SoundStatus { .silent(nil) }
    /// No sound.
    public func nextSoundStream() -> Int? { nil }
    /// No subtitles.
    public var subtitleTracks: [SubtitleTrack] { [] }
    /// No subtitles.
    public func subtitles(track: Int, at time: MediaTime) -> (cues: [SubtitleCue], problem: MediaError?) { ([], nil) }
}
