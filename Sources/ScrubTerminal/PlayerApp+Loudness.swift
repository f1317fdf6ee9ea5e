import Foundation
import Locking
import ScrubKit

/// The sound's loudness in `scrubkit play`: measured in the background over the whole file (a local one) or as the
/// sound plays (a URL, where a scan would download it whole), drawn as a strip above the bar, or over the whole
/// picture area for a file with only sound. It follows the audio stream played (`#`).
extension PlayerApp {
    /// Shows the strip and starts measuring stream `streamNumber` (nil: the one played first): a local file is scanned
    /// in the background (its own decoder, audio only), the strip filling in as buckets arrive; a URL's strip is fed
    /// by the player's sound (``loudnessMeter``). Again after `#`: the strip starts over for the new stream.
    func startLoudness(streamNumber: Int?) {
        loudnessScan?.cancel()
        loudnessScan = nil
        loudness.withLock { $0 = LoudnessStrip(count: PlayerApp.loudnessBuckets) }
        (loudnessDrawn, tallDrawn) = (-1, nil)
        showsLoudness = true
        layout.hasLoudnessStrip = layout.rows >= 6
        guard Loudness.isScannedWhole(path) else { return }
        let strip = loudness, path = self.path
        loudnessScan = Task.detached(priority: .utility) {
            for await bucket in Loudness.buckets(of: path, count: PlayerApp.loudnessBuckets, streamNumber: streamNumber)
            {
                strip.withLock { $0.set(bucket.index, peak: bucket.peak) }
            }
        }
    }

    /// What measures a URL's loudness as its sound plays, into `strip` (nil for a local file: it is scanned).
    static func loudnessMeter(for path: String, strip: Locked<LoudnessStrip>) -> LoudnessMeter? {
        guard !Loudness.isScannedWhole(path) else { return nil }
        return LoudnessMeter(count: PlayerApp.loudnessBuckets) { bucket in
            strip.withLock { $0.set(bucket.index, peak: bucket.peak) }
        }
    }

    /// The strip's row, when it changed since last drawn (new buckets, a resize).
    func loudnessRow() -> String {
        guard layout.hasLoudnessStrip else { return "" }
        let (strip, measured) = loudness.withLock { ($0, $0.measured) }
        guard measured != loudnessDrawn else { return "" }
        loudnessDrawn = measured
        return "\u{1B}[\(layout.loudnessRow + 1);\(layout.bar.origin + 1)H"
            + strip.render(bar: layout.bar, color: composer.color)
    }

    /// The big loudness picture of a file with only sound, when the measured buckets or the played part changed.
    func loudnessPicture(_ info: PlayerMediaInfo?, fraction: Double) -> String {
        guard let info, !info.hasVideo, showsLoudness, layout.pictureRows >= 2 else { return "" }
        let (strip, measured) = loudness.withLock { ($0, $0.measured) }
        let played = Int((max(0, min(1, fraction)) * Double(layout.bar.width)).rounded(.down))
        guard tallDrawn.map({ $0.measured != measured || $0.played != played }) ?? true else { return "" }
        tallDrawn = (measured, played)
        // (A margin row above and below: the picture area's middle rows.)
        let rows = max(1, layout.pictureRows - 2)
        return strip.renderTall(
            bar: layout.bar, top: (layout.pictureRows - rows) / 2, rows: rows, played: fraction, color: composer.color)
    }
}
