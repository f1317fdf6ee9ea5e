import Foundation
import MediaTime
import ScrubKit

/// Screen geometry for `scrubkit play`: the picture fills the space above a two-line status area, keeping the
/// display aspect ratio (with subtitles shown, their rows between the two); the bar spans the width under it.
public struct PlayerLayout: Sendable, Equatable {
    /// Terminal width in cells.
    public var columns: Int
    /// Terminal height in cells.
    public var rows: Int
    /// Whether a row above the bar shows the sound's loudness (media with sound).
    public var hasLoudnessStrip = false
    /// Rows kept under the picture for subtitles (0: none shown).
    public var subtitleRows = 0
    /// Cells for the picture (rows above the subtitles and the status area).
    public var pictureRows: Int { max(0, rows - 2 - (hasLoudnessStrip ? 1 : 0) - subtitleRows) }
    /// The first subtitle row (0-based), right under the picture.
    public var subtitleRow: Int { pictureRows }
    /// Row of the loudness strip (0-based), just above the bar.
    public var loudnessRow: Int { max(0, rows - 3) }
    /// Row of the slider bar (0-based) and of the status line.
    public var barRow: Int { max(0, rows - 2) }
    /// Row of the status line (0-based).
    public var statusRow: Int { max(0, rows - 1) }
    /// The slider track, with room for the time labels either side.
    public var bar: SliderBar { SliderBar(origin: 1, width: max(2, columns - 2)) }

    /// The layout of a `columns × rows` terminal, with a loudness strip when `hasLoudnessStrip`, and rows for
    /// subtitles when `subtitles` (3 in a tall terminal, 2, or 1 in a very short one).
    public init(columns: Int, rows: Int, hasLoudnessStrip: Bool = false, subtitles: Bool = false) {
        self.columns = max(10, columns)
        self.rows = max(3, rows)
        self.hasLoudnessStrip = hasLoudnessStrip && self.rows >= 6
        subtitleRows = !subtitles ? 0 : self.rows >= 30 ? 3 : self.rows >= 10 ? 2 : self.rows >= 6 ? 1 : 0
    }
}

/// The loudness strip: one row of block heights over the bar's columns, from buckets of the whole timeline.
public struct LoudnessStrip: Sendable {
    /// Peak level (0…1) per bucket over the timeline, nil where not measured yet.
    public private(set) var peaks: [Double?]
    /// How many buckets are measured (a change means something new to draw).
    public private(set) var measured = 0

    /// A strip of `count` buckets, none measured yet.
    public init(count: Int) { peaks = [Double?](repeating: nil, count: max(1, count)) }

    /// A strip of these buckets.
    public init(peaks: [Double?]) {
        self.peaks = peaks.isEmpty ? [nil] : peaks
        measured = peaks.lazy.filter { $0 != nil }.count
    }

    /// Sets bucket `index`'s peak.
    public mutating func set(_ index: Int, peak: Double) {
        guard peaks.indices.contains(index) else { return }
        if peaks[index] == nil { measured += 1 }
        peaks[index] = peak
    }

    /// Eighth-blocks by peak in decibels (−48 dBFS and below: empty, 0 dBFS: full); a space where nothing is
    /// measured.
    static let levels: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// The strip over `bar`: each column shows the loudest bucket it covers.
    public func render(bar: SliderBar, color: Bool) -> String {
        let out = String(columnLevels(bar: bar, eighths: 8).map { LoudnessStrip.levels[$0] })
        return color ? "\u{1B}[38;2;110;160;210m" + out + "\u{1B}[0m" : out
    }

    /// The loudness as the picture of a file that has only sound: `rows` rows from row `top` (0-based), each column
    /// of `bar` a bar of eighth blocks growing from the bottom, the part before `played` (a fraction of the
    /// timeline) brighter (without colour, drawn with a lighter block).
    public func renderTall(bar: SliderBar, top: Int, rows: Int, played: Double, color: Bool) -> String {
        guard rows > 0 else { return "" }
        let heights = columnLevels(bar: bar, eighths: rows * 8)
        let playedColumns = Int((max(0, min(1, played)) * Double(bar.width)).rounded(.down))
        var out = ""
        for r in 0..<rows {
            let floor = (rows - 1 - r) * 8   // eighths below this row
            out += "\u{1B}[\(top + r + 1);\(bar.origin + 1)H"
            var brightness = -1
            for (c, h) in heights.enumerated() {
                let isPlayed = c < playedColumns
                if color, brightness != (isPlayed ? 1 : 0) {
                    brightness = isPlayed ? 1 : 0
                    out += isPlayed ? "\u{1B}[38;2;150;200;250m" : "\u{1B}[38;2;70;100;130m"
                }
                let cell = LoudnessStrip.levels[min(8, max(0, h - floor))]
                out.append(!color && isPlayed && cell == "█" ? "▓" : cell)
            }
        }
        return color ? out + "\u{1B}[0m" : out
    }

    /// Each column's height in `eighths` (of the full height) from the loudest bucket it covers: −48 dBFS and below
    /// is 1 (measured, quiet), 0 dBFS is all of them; 0 where nothing is measured yet.
    func columnLevels(bar: SliderBar, eighths: Int) -> [Int] {
        (0..<bar.width).map { c in
            let lo = c * peaks.count / bar.width, hi = max(lo + 1, (c + 1) * peaks.count / bar.width)
            guard let peak = peaks[lo..<min(hi, peaks.count)].compactMap({ $0 }).max() else { return 0 }
            let db = peak > 0 ? 20 * log10(peak) : -100
            return min(eighths, max(1, Int(((db + 48) / 48 * Double(eighths)).rounded())))
        }
    }
}

/// Everything `scrubkit play` draws, as one string per refresh (synchronized output where supported).
public struct PlayerFrameComposer {
    /// How pictures are drawn.
    public let renderer: FrameRenderer
    /// Whether colours are allowed (not `NO_COLOR`).
    public let color: Bool

    /// A composer drawing with `renderer`, in colour when `color`.
    public init(renderer: FrameRenderer, color: Bool) {
        self.renderer = renderer
        self.color = color
    }

    /// The picture's pixel size and its top-left cell for a display `aspect`.
    public func pictureGeometry(
        layout: PlayerLayout, cellPixels: (w: Int, h: Int), aspect: Double
    ) -> (width: Int, height: Int, column: Int, row: Int) {
        let (w, h) = renderer.pixelSize(
            columns: layout.columns, rows: layout.pictureRows, cellPixels: cellPixels, aspect: aspect)
        guard w > 0, h > 0 else { return (0, 0, 0, 0) }
        let cell = renderer.cellGeometry(cellPixels)
        let (cellsWide, cellsHigh) = ((w + cell.width - 1) / cell.width, (h + cell.height - 1) / cell.height)
        return (w, h, max(0, (layout.columns - cellsWide) / 2), max(0, (layout.pictureRows - cellsHigh) / 2))
    }

    /// The picture at exactly the geometry's size: a frame decoded for another size (queued before a resize, or
    /// rounded differently) is scaled to it — never dropped.
    public func fitted(_ image: RGBImage, to g: (width: Int, height: Int, column: Int, row: Int)) -> RGBImage? {
        guard g.width > 0, g.height > 0, image.width > 0, image.height > 0 else { return nil }
        if image.width == g.width && image.height == g.height { return image }
        return try? image.resized(width: g.width, height: g.height)
    }

    /// Escape sequences painting `image` into the picture area (see ``fitted(_:to:)``); "" when there is no area.
    /// The one path every caller draws through (`scrubkit play` and its benchmark).
    public func paint(
        _ image: RGBImage, geometry g: (width: Int, height: Int, column: Int, row: Int), cellPixels: (w: Int, h: Int)
    ) -> String {
        guard let picture = fitted(image, to: g) else { return "" }
        return renderer.draw(picture, column: g.column, row: g.row, cellPixels: cellPixels)
    }

    /// The bar (knob at `fraction`) and the status line.
    public func status(layout: PlayerLayout, line: StatusLine, fraction: Double, ticks: [Double] = [],
                       marks: [(fraction: Double, letter: Character)] = []) -> String {
        var out = "\u{1B}[\(layout.barRow + 1);1H\u{1B}[2K "
        out += layout.bar.render(fraction: fraction, color: color, ticks: ticks, marks: marks)
        out += "\u{1B}[\(layout.statusRow + 1);1H\u{1B}[2K" + line.render(width: layout.columns - 1)
        return out
    }
}
