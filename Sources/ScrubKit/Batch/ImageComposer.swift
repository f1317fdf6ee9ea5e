import FFmpegBridge
import MediaTime

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

    /// A contact sheet: a header line, then `columns × rows` tiles with margins, each stamped with its time.
    public static func contactSheet(_ tiles: [(image: RGBImage, time: MediaTime)], columns: Int, header: String?) -> RGBImage {
        let w = tiles.map(\.image.width).max() ?? 1, h = tiles.map(\.image.height).max() ?? 1
        let cols = max(1, columns)
        let rows = max(1, (tiles.count + cols - 1) / cols)
        let margin = 10, gap = 6
        let scale = w >= 240 ? 2 : 1
        let headerHeight = header == nil ? 0 : BitmapFont.height * 2 + 12
        var sheet = RGBImage(width: margin * 2 + cols * w + (cols - 1) * gap,
                             height: margin * 2 + headerHeight + rows * h + (rows - 1) * gap)
        sheet.fill(x: 0, y: 0, width: sheet.width, height: sheet.height, (24, 24, 24))
        if let header {
            BitmapFont.draw(header, into: &sheet, x: margin, y: margin, scale: 2, color: (235, 235, 235))
        }
        for (i, tile) in tiles.enumerated() {
            let x = margin + (i % cols) * (w + gap)
            let y = margin + headerHeight + (i / cols) * (h + gap)
            sheet.blit(tile.image, x: x + (w - tile.image.width) / 2, y: y + (h - tile.image.height) / 2)
            let label = tile.time.formatted(fractionDigits: tile.time.seconds < 60 ? 2 : 0)
            let lw = BitmapFont.measure(label, scale: scale), lh = BitmapFont.height * scale
            let lx = x + w - lw - 4 * scale, ly = y + h - lh - 4 * scale
            sheet.fill(x: lx - 2 * scale, y: ly - 2 * scale, width: lw + 4 * scale, height: lh + 4 * scale, (0, 0, 0), alpha: 170)
            BitmapFont.draw(label, into: &sheet, x: lx, y: ly, scale: scale, color: (255, 255, 255))
        }
        return sheet
    }
}

/// WebVTT thumbnail tracks (the format video.js, Plyr and JW Player read for seek-bar previews).
public enum WebVTT {
    /// `HH:MM:SS.mmm`, as WebVTT requires (hours always present for simplicity).
    public static func timestamp(_ seconds: Double) -> String {
        let ms = Int64((max(0, seconds) * 1000).rounded())
        let h = ms / 3_600_000, m = (ms / 60_000) % 60, s = (ms / 1000) % 60, f = ms % 1000
        func pad(_ n: Int64, _ w: Int) -> String { let t = String(n); return String(repeating: "0", count: max(0, w - t.count)) + t }
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
