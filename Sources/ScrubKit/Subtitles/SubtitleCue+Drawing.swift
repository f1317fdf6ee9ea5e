import Foundation

extension RGBImage {
    /// The picture with `cues` drawn in, as a player shows them over the video: bitmap subtitles scaled from their
    /// canvas to the picture (alpha-blended), and, with `text`, text cues' lines at the bottom, centred, white with a
    /// dark outline, about a eighteenth of the picture's height tall (the terminal player writes text in rows of its
    /// own instead; `S` burns it in). Without a font, text is left out.
    public func drawing(_ cues: [SubtitleCue], text: Bool) -> RGBImage {
        var out = self
        for cue in cues {
            for picture in cue.pictures {
                out.blend(picture, canvasWidth: cue.canvasWidth, canvasHeight: cue.canvasHeight)
            }
        }
        let lines = text ? cues.flatMap(\.lines) : []
        if !lines.isEmpty, let painter = try? TextPainter(font: nil, path: "subtitles") {
            out.write(lines, with: painter)
        }
        return out
    }

    /// Blends a subtitle picture placed on a `canvasWidth × canvasHeight` canvas (the picture's own size when 0),
    /// scaled to this picture (nearest pixel).
    mutating func blend(_ p: SubtitlePicture, canvasWidth: Int, canvasHeight: Int) {
        let (cw, ch) = canvasWidth > 0 && canvasHeight > 0 ? (canvasWidth, canvasHeight) : (width, height)
        let sx = Double(width) / Double(cw), sy = Double(height) / Double(ch)
        let x0 = Int((Double(p.x) * sx).rounded()), y0 = Int((Double(p.y) * sy).rounded())
        let w = max(1, Int((Double(p.width) * sx).rounded())), h = max(1, Int((Double(p.height) * sy).rounded()))
        guard p.rgba.count >= p.width * p.height * 4 else { return }
        for y in max(0, y0)..<min(height, y0 + h) {
            let srcY = min(p.height - 1, (y - y0) * p.height / h)
            for x in max(0, x0)..<min(width, x0 + w) {
                let srcX = min(p.width - 1, (x - x0) * p.width / w)
                let s = (srcY * p.width + srcX) * 4
                let a = Int(p.rgba[s + 3])
                guard a > 0 else { continue }
                let o = (y * width + x) * 3
                for k in 0..<3 {
                    pixels[o + k] = UInt8((Int(p.rgba[s + k]) * a + Int(pixels[o + k]) * (255 - a) + 127) / 255)
                }
            }
        }
    }

    /// Writes `lines` at the bottom, centred, wrapped at spaces to 90 % of the width.
    mutating func write(_ lines: [String], with painter: TextPainter) {
        let size = max(10, height / 18)
        let maxWidth = width * 9 / 10
        var rows: [String] = []
        for line in lines {
            var row = ""
            for word in line.split(separator: " ").map(String.init) {
                let candidate = row.isEmpty ? word : row + " " + word
                if row.isEmpty || painter.size(candidate, pixelSize: size).width <= maxWidth {
                    row = candidate
                } else {
                    rows.append(row); row = word
                }
            }
            if !row.isEmpty { rows.append(painter.fitting(row, pixelSize: size, maxWidth: maxWidth)) }
        }
        let lineHeight = size * 5 / 4
        var y = height - height / 20 - rows.count * lineHeight
        let outline = max(1, size / 12)
        for row in rows {
            let x = (width - painter.size(row, pixelSize: size).width) / 2
            for dy in -outline...outline { for dx in -outline...outline where dx != 0 || dy != 0 {
                painter.draw(row, pixelSize: size, into: &self, x: x + dx, y: y + dy, color: RGBColor(0, 0, 0))
            } }
            painter.draw(row, pixelSize: size, into: &self, x: x, y: y, color: RGBColor(255, 255, 255))
            y += lineHeight
        }
    }
}
