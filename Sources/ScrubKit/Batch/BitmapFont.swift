import FFmpegBridge

/// A 5×7 pixel font (digits, A–Z, a little punctuation) for timestamps and headers on contact sheets.
/// Lower-case letters draw as capitals; unknown characters as `?`.
enum BitmapFont {
    static let width = 5, height = 7

    static let glyphs: [Character: [UInt8]] = [
        "0": [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110],
        "1": [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],
        "2": [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111],
        "3": [0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110],
        "4": [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010],
        "5": [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110],
        "6": [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110],
        "7": [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000],
        "8": [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110],
        "9": [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100],
        "A": [0b01110, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001],
        "B": [0b11110, 0b10001, 0b10001, 0b11110, 0b10001, 0b10001, 0b11110],
        "C": [0b01110, 0b10001, 0b10000, 0b10000, 0b10000, 0b10001, 0b01110],
        "D": [0b11100, 0b10010, 0b10001, 0b10001, 0b10001, 0b10010, 0b11100],
        "E": [0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b11111],
        "F": [0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b10000],
        "G": [0b01110, 0b10001, 0b10000, 0b10111, 0b10001, 0b10001, 0b01111],
        "H": [0b10001, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001],
        "I": [0b01110, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],
        "J": [0b00111, 0b00010, 0b00010, 0b00010, 0b00010, 0b10010, 0b01100],
        "K": [0b10001, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010, 0b10001],
        "L": [0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b11111],
        "M": [0b10001, 0b11011, 0b10101, 0b10101, 0b10001, 0b10001, 0b10001],
        "N": [0b10001, 0b10001, 0b11001, 0b10101, 0b10011, 0b10001, 0b10001],
        "O": [0b01110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110],
        "P": [0b11110, 0b10001, 0b10001, 0b11110, 0b10000, 0b10000, 0b10000],
        "Q": [0b01110, 0b10001, 0b10001, 0b10001, 0b10101, 0b10010, 0b01101],
        "R": [0b11110, 0b10001, 0b10001, 0b11110, 0b10100, 0b10010, 0b10001],
        "S": [0b01111, 0b10000, 0b10000, 0b01110, 0b00001, 0b00001, 0b11110],
        "T": [0b11111, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100],
        "U": [0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110],
        "V": [0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01010, 0b00100],
        "W": [0b10001, 0b10001, 0b10001, 0b10101, 0b10101, 0b10101, 0b01010],
        "X": [0b10001, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0b10001],
        "Y": [0b10001, 0b10001, 0b10001, 0b01010, 0b00100, 0b00100, 0b00100],
        "Z": [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b11111],
        ":": [0b00000, 0b01100, 0b01100, 0b00000, 0b01100, 0b01100, 0b00000],
        ".": [0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b01100, 0b01100],
        ",": [0b00000, 0b00000, 0b00000, 0b00000, 0b01100, 0b00100, 0b01000],
        "-": [0b00000, 0b00000, 0b00000, 0b11111, 0b00000, 0b00000, 0b00000],
        "_": [0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b11111],
        "/": [0b00001, 0b00010, 0b00010, 0b00100, 0b01000, 0b01000, 0b10000],
        "(": [0b00010, 0b00100, 0b01000, 0b01000, 0b01000, 0b00100, 0b00010],
        ")": [0b01000, 0b00100, 0b00010, 0b00010, 0b00010, 0b00100, 0b01000],
        "×": [0b00000, 0b00000, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001],
        "=": [0b00000, 0b00000, 0b11111, 0b00000, 0b11111, 0b00000, 0b00000],
        "*": [0b00000, 0b10101, 0b01110, 0b11111, 0b01110, 0b10101, 0b00000],
        "+": [0b00000, 0b00100, 0b00100, 0b11111, 0b00100, 0b00100, 0b00000],
        "%": [0b11001, 0b11010, 0b00010, 0b00100, 0b01000, 0b01011, 0b10011],
        "·": [0b00000, 0b00000, 0b00000, 0b01100, 0b01100, 0b00000, 0b00000],
        " ": [0, 0, 0, 0, 0, 0, 0],
        "?": [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b00000, 0b00100],
    ]

    static func glyph(_ c: Character) -> [UInt8] {
        if let g = glyphs[c] { return g }
        if let u = c.uppercased().first, let g = glyphs[u] { return g }
        return glyphs["?"]!
    }

    /// Width in pixels of `text` at `scale` (1 px spacing between glyphs).
    static func measure(_ text: String, scale: Int) -> Int { max(0, text.count * (width + 1) * scale - scale) }

    /// Draws `text` with its top-left at (x, y), clipped to the image.
    static func draw(_ text: String, into image: inout RGBImage, x: Int, y: Int, scale: Int, color: (UInt8, UInt8, UInt8)) {
        var cx = x
        for c in text {
            let g = glyph(c)
            for row in 0..<height {
                for col in 0..<width where g[row] & (1 << (width - 1 - col)) != 0 {
                    for dy in 0..<scale { for dx in 0..<scale {
                        image.setPixel(x: cx + col * scale + dx, y: y + row * scale + dy, color)
                    } }
                }
            }
            cx += (width + 1) * scale
        }
    }
}

extension RGBImage {
    /// Sets one pixel; outside the image does nothing.
    mutating func setPixel(x: Int, y: Int, _ c: (UInt8, UInt8, UInt8)) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let i = (y * width + x) * 3
        pixels[i] = c.0; pixels[i + 1] = c.1; pixels[i + 2] = c.2
    }

    /// Fills a rectangle (clipped), blending toward `c` by `alpha` (0…255).
    mutating func fill(x: Int, y: Int, width w: Int, height h: Int, _ c: (UInt8, UInt8, UInt8), alpha: Int = 255) {
        let x0 = max(0, x), y0 = max(0, y), x1 = min(width, x + w), y1 = min(height, y + h)
        guard x0 < x1, y0 < y1 else { return }
        let a = max(0, min(255, alpha))
        let comps = [Int(c.0), Int(c.1), Int(c.2)]
        for yy in y0..<y1 {
            for xx in x0..<x1 {
                let i = (yy * width + xx) * 3
                for k in 0..<3 { pixels[i + k] = UInt8((Int(pixels[i + k]) * (255 - a) + comps[k] * a) / 255) }
            }
        }
    }

    /// Copies `other` with its top-left at (x, y), clipped.
    mutating func blit(_ other: RGBImage, x: Int, y: Int) {
        for row in 0..<other.height {
            let ty = y + row
            guard ty >= 0, ty < height else { continue }
            let sx0 = max(0, -x), sx1 = min(other.width, width - x)
            guard sx0 < sx1 else { continue }
            let src = (row * other.width + sx0) * 3, dst = (ty * width + x + sx0) * 3, n = (sx1 - sx0) * 3
            pixels.withUnsafeMutableBufferPointer { d in
                other.pixels.withUnsafeBufferPointer { s in
                    for k in 0..<n { d[dst + k] = s[src + k] }
                }
            }
        }
    }
}
