import Foundation
import MediaTime
import ScrubKit

/// Which subtitle track `scrubkit play` shows first (`--sid`).
public enum SubtitleChoice: Sendable, Equatable {
    /// A subtitle file beside the video, else a stream marked default, else one marked forced, else none.
    case automatic
    /// None (`--sid no`); `j` still turns them on.
    case none
    /// The Nth track, counted from 1 over the file's streams and then the subtitle files.
    case number(Int)
    /// The subtitle file at this path (the first `--sub-file`).
    case file(String)
}

/// Subtitles in `scrubkit play`, as mpv's keys: `v` shows/hides, `j`/`J` cycle the tracks (then off), `z`/`Z` shift
/// them by ∓0.1 s. The text goes in rows under the picture (``PlayerLayout/subtitleRows``), wrapped to the width.
extension PlayerApp {
    /// Whether rows are kept for subtitles: a track is chosen and shown.
    var showsSubtitles: Bool { subtitlesVisible && player.subtitleTrack != nil }

    /// After an entry opens: the track `--sid` names (else the preferred one) and the delay.
    func setUpSubtitles() {
        let tracks = player.subtitleTracks
        switch options.subtitles {
        case .automatic: player.subtitleTrack = SubtitleTrack.preferred(in: tracks)
        case .none: player.subtitleTrack = nil
        case .file(let path): player.subtitleTrack = tracks.firstIndex { $0.source == .file(path) }
        case .number(let n):
            player.subtitleTrack = n <= tracks.count ? n - 1 : nil
            if n > tracks.count {
                say("no subtitle track \(n) (\(tracks.count == 0 ? "the file has none" : "it has \(tracks.count)"))")
            }
        }
        player.subtitleDelay = MediaTime(seconds: subtitleDelay, preferredTimescale: 1000)
        resized.store(true, ordering: .relaxed)   // (rows for them, or none)
    }

    /// `v`: subtitles shown or hidden (the track stays chosen).
    func toggleSubtitles() {
        guard player.subtitleTrack != nil else {
            say(player.subtitleTracks.isEmpty ? "no subtitles" : "subtitles off (j chooses a track)"); return
        }
        subtitlesVisible.toggle()
        say(subtitlesVisible ? "subtitles shown" : "subtitles hidden")
        resized.store(true, ordering: .relaxed)
    }

    /// `j`/`J`: the next (previous) track, with "off" after the last.
    func cycleSubtitles(by step: Int) {
        let tracks = player.subtitleTracks
        guard !tracks.isEmpty else { say("no subtitles"); return }
        // Positions 0..<count are tracks, count is off.
        let now = player.subtitleTrack ?? tracks.count
        let next = ((now + step) % (tracks.count + 1) + tracks.count + 1) % (tracks.count + 1)
        player.subtitleTrack = next < tracks.count ? next : nil
        subtitlesVisible = true
        say(next < tracks.count ? "subtitles \(next + 1)/\(tracks.count) \(tracks[next].label)" : "subtitles off")
        resized.store(true, ordering: .relaxed)
    }

    /// `z`/`Z`: the subtitles shift by `seconds` (kept for the next entries).
    func shiftSubtitles(by seconds: Double) {
        subtitleDelay = ((subtitleDelay + seconds) * 10).rounded() / 10
        player.subtitleDelay = MediaTime(seconds: subtitleDelay, preferredTimescale: 1000)
        subtitleDrawn = nil
        say("subtitle delay " + PlayerApp.signedSeconds(subtitleDelay))
    }

    /// `+0.3 s`, `-1.2 s`, `0 s`.
    static func signedSeconds(_ s: Double) -> String { s == 0 ? "0 s" : String(format: "%+.1f s", s) }

    /// A passing notice on the status line.
    func say(_ text: String) {
        let until = player.clock.now() + 3
        notice.withLock { $0 = (text, until) }
        lastStatus = ""
    }

    /// The status line's words for the subtitles ("" without tracks) and the subtitle rows to write (when changed)
    /// for what the track shows now (`shown`).
    func subtitleParts(_ shown: (cues: [SubtitleCue], problem: MediaError?)) -> (status: String, rows: String) {
        let tracks = player.subtitleTracks
        guard !tracks.isEmpty else { return ("", "") }
        // Turned off or hidden: the rows still showing text are blanked at once (they go at the next layout).
        let blank = { () -> String in
            guard self.subtitleDrawn.map({ !$0.rows.isEmpty }) == true, self.layout.subtitleRows > 0 else { return "" }
            self.subtitleDrawn = SubtitleText([], width: 1, maxRows: 0)
            return SubtitleText([], width: 1, maxRows: 0).render(layout: self.layout, color: self.composer.color)
        }
        guard let track = player.subtitleTrack, tracks.indices.contains(track) else { return ("sub off", blank()) }
        var status =
            "sub \(track + 1)/\(tracks.count) \(tracks[track].label)"
            + (subtitleDelay != 0 ? " " + PlayerApp.signedSeconds(subtitleDelay) : "")
        if !subtitlesVisible {
            status += " (hidden)"
        } else if let problem = shown.problem {
            status += " (cannot be read: \(problem.reason))"
        }
        guard subtitlesVisible, layout.subtitleRows > 0 else { return (status, subtitlesVisible ? "" : blank()) }
        let text = SubtitleText(shown.cues.flatMap(\.lines), width: layout.columns - 2, maxRows: layout.subtitleRows)
        guard text != subtitleDrawn else { return (status, "") }
        subtitleDrawn = text
        return (status, text.render(layout: layout, color: composer.color))
    }
}
