import MediaTime

/// Subtitles (mpv's `sid` and `sub-delay`; AVFoundation's legible media selection): which track is shown, shifted by
/// how much, and what it shows now. The cues come from the pipeline's subtitle chain for the track.
extension Player {
    /// The subtitle tracks: the file's subtitle streams, then subtitle files (found beside it, or given). Empty until
    /// the media is ready.
    public var subtitleTracks: [SubtitleTrack] { pipeline.subtitleTracks }

    /// The track shown, an index into ``subtitleTracks``; nil (the default): none.
    public var subtitleTrack: Int? {
        get { withCore { $0.subtitleTrack } }
        set { withCore { $0.subtitleTrack = newValue } }
    }

    /// How much later than their times the subtitles show (negative: earlier), mpv's `--sub-delay`.
    public var subtitleDelay: MediaTime {
        get { withCore { $0.subtitleDelay } }
        set { withCore { $0.subtitleDelay = newValue.isNumeric ? newValue : .zero } }
    }

    /// What the shown track shows at `time` on the media's timeline (the delay applied), and why it shows nothing
    /// when it cannot be read; no cues without a track.
    public func subtitles(at time: MediaTime) -> (cues: [SubtitleCue], problem: MediaError?) {
        let (track, delay) = withCore { ($0.subtitleTrack, $0.subtitleDelay) }
        guard let track, time.isNumeric else { return ([], nil) }
        return pipeline.subtitles(track: track, at: time - delay)
    }
}
