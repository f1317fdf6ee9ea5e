import Foundation
import MediaTime
import ScrubKit

extension PlayerApp {
    /// `s`: the frame on screen saved whole as PNG (``Screenshot``: the video's own size, the pixels of
    /// `thumb --exact`) into `--screenshot-dir` or the current folder, never over a file; `S` (`withSubtitles`) with
    /// the subtitles shown burned in. On a thread of its own, the status line saying where it went.
    func screenshot(_ info: PlayerMediaInfo?, withSubtitles: Bool = false) {
        let now = player.clock.now()
        // The picture on screen; without pictures (`--graphics none`), the frame at the playhead.
        guard info?.hasVideo == true, let shown = renderer.drawsPictures ? lastImageTime : player.currentTime else {
            notice.withLock { $0 = ("screenshot: no picture to keep", now + 4) }
            lastStatus = ""
            return
        }
        let time = MediaTime.maximum(.zero, shown - player.startTime)
        let cues = withSubtitles && showsSubtitles ? player.subtitles(at: shown).cues : []
        let (path, directory) = (path, options.screenshotDirectory)
        inBackground("scrubkit.shot", saying: "screenshot at \(time.formatted(fractionDigits: 3))…", for: 30) {
            do {
                // (The picture at the time shown, on the presentation timeline; named by the time from the start.)
                let written = try Screenshot.save(path, at: shown, label: time, directory: directory, subtitles: cues)
                return "screenshot: \(directory == nil ? (written as NSString).lastPathComponent : written)"
            } catch {
                return "screenshot failed: \(error)"
            }
        }
    }
}
