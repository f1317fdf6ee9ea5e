import Foundation
import ScrubKit

/// The sound's loudness in `scrubkit play`: measured in the background over the whole file, drawn as a strip above the
/// bar, or over the whole picture area for a file with only sound.
extension PlayerApp {
    /// Measures the sound's loudness over the whole file in the background (its own decoder, audio only); the strip
    /// fills in as buckets arrive.
    func startLoudnessScan() {
        let strip = loudness, path = self.path
        loudnessScan = Task.detached(priority: .utility) {
            for await bucket in Loudness.buckets(of: path, count: PlayerApp.loudnessBuckets) {
                strip.withLock { $0.set(bucket.index, peak: bucket.peak) }
            }
        }
        layout.hasLoudnessStrip = layout.rows >= 6
    }

    /// The strip's row, when it changed since last drawn (new buckets, a resize).
    func loudnessRow() -> String {
        guard layout.hasLoudnessStrip else { return "" }
        let (strip, measured) = loudness.withLock { ($0, $0.measured) }
        guard measured != loudnessDrawn else { return "" }
        loudnessDrawn = measured
        return "\u{1B}[\(layout.loudnessRow + 1);\(layout.bar.origin + 1)H" + strip.render(bar: layout.bar, color: composer.color)
    }

    /// The big loudness picture of a file with only sound, when the measured buckets or the played part changed.
    func loudnessPicture(_ info: PlayerMediaInfo?, fraction: Double) -> String {
        guard let info, !info.hasVideo, loudnessScan != nil, layout.pictureRows >= 2 else { return "" }
        let (strip, measured) = loudness.withLock { ($0, $0.measured) }
        let played = Int((max(0, min(1, fraction)) * Double(layout.bar.width)).rounded(.down))
        guard tallDrawn.map({ $0.measured != measured || $0.played != played }) ?? true else { return "" }
        tallDrawn = (measured, played)
        // (A margin row above and below: the picture area's middle rows.)
        let rows = max(1, layout.pictureRows - 2)
        return strip.renderTall(bar: layout.bar, top: (layout.pictureRows - rows) / 2, rows: rows, played: fraction, color: composer.color)
    }
}
