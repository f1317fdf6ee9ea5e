import FFmpegBridge
import MediaTime
import TextBridge

/// How a contact sheet looks.
public struct SheetStyle: Sendable {
    /// Tiles per row.
    public var columns = 4
    /// The sheet's width in pixels (tiles are made to fit it); nil: tiles at the size they were made.
    public var width: Int? = nil
    /// Pixels between tiles and around them.
    public var spacing = 8
    /// The sheet's background colour (default #181818).
    public var background = RGBColor(24, 24, 24)
    /// A font file or fontconfig pattern; nil: the default sans-serif (DejaVu Sans).
    public var font: String? = nil
    /// The default style: tiles at their size, 8 px apart, dark grey, DejaVu Sans.
    public init() {}

    /// Why text cannot be drawn with `font` (nil when it can): no such font, or no font installed.
    public static func fontProblem(_ font: String?) -> String? {
        do { _ = try TextPainter(font: font, path: font ?? FontLocator.defaultPattern); return nil } catch {
            return "\(error)"
        }
    }

    /// Text colour: light on dark backgrounds, dark on light ones.
    var foreground: RGBColor { background.luma < 128 ? RGBColor(236, 236, 236) : RGBColor(20, 20, 20) }

    /// The width of one tile when the sheet has a fixed width.
    public var tileWidth: Int? {
        width.map { max(16, ($0 - spacing * (columns + 1)) / max(1, columns)) }
    }
}

/// Grids of thumbnails: WebVTT sprites and contact sheets.
public enum ImageComposer {
    /// Tiles of one size packed in a grid, no margins (what `#xywh=` fragments point into).
    /// Returns the sprite and each tile's rectangle, in input order.
    public static func sprite(_ tiles: [RGBImage], columns: Int) -> (RGBImage, [(x: Int, y: Int, w: Int, h: Int)]) {
        let w = tiles.map(\.width).max() ?? 0, h = tiles.map(\.height).max() ?? 0
        let cols = max(1, min(columns, tiles.count))
        let rows = (tiles.count + cols - 1) / cols
        var sheet = RGBImage(width: max(1, w * cols), height: max(1, h * rows))
        var rects: [(x: Int, y: Int, w: Int, h: Int)] = []
        for (i, t) in tiles.enumerated() {
            let x = (i % cols) * w, y = (i / cols) * h
            sheet.blit(t, x: x, y: y)
            rects.append((x, y, t.width, t.height))
        }
        return (sheet, rects)
    }

    /// A contact sheet: a header (the title large, then detail lines), then the tiles in rows, each stamped with its
    /// label in its lower right corner. Text is anti-aliased (FreeType) and sized from the sheet's and the tiles'
    /// widths, so it stays legible on narrow (portrait) tiles. Throws when no font can be loaded.
    public static func contactSheet(_ tiles: [(image: RGBImage, label: String)], style: SheetStyle, title: String,
                                    details: [String], path: String) throws -> RGBImage {
        let painter = try TextPainter(font: style.font, path: path)
        let cols = max(1, min(style.columns, max(1, tiles.count)))
        let rows = max(1, (tiles.count + cols - 1) / cols)
        let gap = max(0, style.spacing)
        let cellW = style.tileWidth ?? (tiles.map(\.image.width).max() ?? 1)
        let cellH = tiles.map(\.image.height).max() ?? 1
        let sheetW = style.width ?? (gap * (cols + 1) + cols * cellW)
        // Type sizes from the sheet's width (header) and the tile's shorter side (labels: legible on portrait tiles).
        let titlePx = min(40, max(15, sheetW / 42)), detailPx = min(26, max(11, sheetW / 70))
        let labelPx = min(30, max(11, min(cellW, cellH) / 11))
        let textW = sheetW - 2 * gap
        let titleText = painter.fitting(title, pixelSize: titlePx, maxWidth: textW)
        let detailTexts = details.map { painter.fitting($0, pixelSize: detailPx, maxWidth: textW) }
        let titleH = painter.size(titleText, pixelSize: titlePx).height
        let detailH = painter.size("Ag", pixelSize: detailPx).height
        let headerH = gap + titleH + detailTexts.count * (detailH + detailPx / 4) + gap / 2
        var sheet = RGBImage(width: sheetW, height: headerH + rows * cellH + (rows + 1) * gap)
        let bg = style.background
        sheet.fill(x: 0, y: 0, width: sheet.width, height: sheet.height, (bg.r, bg.g, bg.b))
        var y = gap
        painter.draw(titleText, pixelSize: titlePx, into: &sheet, x: gap, y: y, color: style.foreground)
        y += titleH
        let dim = style.foreground.mixed(with: bg, 0.4)
        for line in detailTexts {
            y += detailPx / 4
            painter.draw(line, pixelSize: detailPx, into: &sheet, x: gap, y: y, color: dim)
            y += detailH
        }
        for (i, tile) in tiles.enumerated() {
            let x = gap + (i % cols) * (cellW + gap)
            let ty = headerH + gap + (i / cols) * (cellH + gap)
            let ix = x + (cellW - tile.image.width) / 2, iy = ty + (cellH - tile.image.height) / 2
            sheet.blit(tile.image, x: ix, y: iy)
            guard !tile.label.isEmpty else { continue }
            let (lw, lh) = painter.size(tile.label, pixelSize: labelPx)
            let pad = max(2, labelPx / 5)
            let lx = ix + tile.image.width - lw - 2 * pad, ly = iy + tile.image.height - lh - 2 * pad
            sheet.fill(x: lx - pad, y: ly - pad / 2, width: lw + 2 * pad, height: lh + pad, (0, 0, 0), alpha: 160)
            painter.draw(tile.label, pixelSize: labelPx, into: &sheet, x: lx, y: ly, color: RGBColor(255, 255, 255))
        }
        return sheet
    }
}

/// Time labels of one contact sheet, all in one format: `M:SS` or `H:MM:SS` (hours when any label needs them), with
/// the decimals the spacing of the tiles needs (none from 10 s apart, tenths from 1 s, else hundredths).
public enum SheetTimes {
    /// The labels of tiles at `seconds`, in the order given.
    public static func labels(_ seconds: [Double]) -> [String] {
        let sorted = seconds.sorted()
        let spacing = zip(sorted, sorted.dropFirst()).map { $1 - $0 }.filter { $0 > 0 }.min() ?? 10
        let digits = spacing >= 9.999 ? 0 : spacing >= 0.999 ? 1 : 2   // (tolerant of 1.72 − 0.72 < 1)
        let hours = (seconds.max() ?? 0) >= 3600 - 0.5
        return seconds.map { label($0, digits: digits, hours: hours) }
    }

    static func label(_ t: Double, digits: Int, hours: Bool) -> String {
        let scale = [1.0, 10.0, 100.0][digits]
        let units = Int64((max(0, t) * scale).rounded())
        let whole = units / Int64(scale), frac = units % Int64(scale)
        let h = whole / 3600, m = (whole / 60) % 60, s = whole % 60
        func pad(_ n: Int64, _ w: Int) -> String {
            let t = String(n); return String(repeating: "0", count: max(0, w - t.count)) + t
        }
        var out = hours ? "\(h):\(pad(m, 2)):\(pad(s, 2))" : "\(whole / 60):\(pad(s, 2))"
        if digits > 0 { out += "." + pad(frac, digits) }
        return out
    }
}

/// WebVTT thumbnail tracks (the format video.js, Plyr and JW Player read for seek-bar previews).
public enum WebVTT {
    /// `HH:MM:SS.mmm`, as WebVTT requires (hours always present for simplicity).
    public static func timestamp(_ seconds: Double) -> String {
        let ms = Int64((max(0, seconds) * 1000).rounded())
        let h = ms / 3_600_000, m = (ms / 60_000) % 60, s = (ms / 1000) % 60, f = ms % 1000
        func pad(_ n: Int64, _ w: Int) -> String {
            let t = String(n); return String(repeating: "0", count: max(0, w - t.count)) + t
        }
        return "\(pad(h, 2)):\(pad(m, 2)):\(pad(s, 2)).\(pad(f, 3))"
    }

    /// A track: one cue per (start, end, target) with strictly increasing, non-overlapping times.
    public static func track(_ cues: [(start: Double, end: Double, target: String)]) -> String {
        var out = "WEBVTT\n"
        for c in cues {
            out += "\n\(timestamp(c.start)) --> \(timestamp(c.end))\n\(c.target)\n"
        }
        return out
    }
}
