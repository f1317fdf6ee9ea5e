import FFmpegBridge

/// Rectangles and pictures drawn into pictures (contact sheets, sprites, charts).
extension RGBImage {
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
