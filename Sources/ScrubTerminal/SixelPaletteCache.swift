import Locking
import ScrubKit
import SixelBridge

/// The sixel palette kept from one picture of a video to the next while it still fits them, as mpv's sixel output
/// keeps its palette (a fixed one, there: xterm's 256 colours) — choosing a palette (a histogram and a median cut) is
/// most of libsixel's work per picture. A new one is chosen for the first picture, when the picture's coarse colours
/// have moved (a cut, a fade: a 4×4 grid of mean colours differs by more than ``threshold`` on average), when its
/// size changes, and at least every ``maximumUses`` pictures.
final class SixelPaletteCache: Sendable {
    private struct State {
        var palette: SixelPalette? = nil
        var signature: [Int] = []
        var size = (width: 0, height: 0)
        var uses = 0
    }
    private let state = Locked(State())
    /// Mean difference (0–255) of the grid's colours above which the palette is chosen again.
    static let threshold = 10
    /// Pictures drawn with one palette at most (2 s at 30 fps): slow changes build up.
    static let maximumUses = 60

    /// The palette to draw `image` with.
    func palette(for image: RGBImage) -> SixelPalette? {
        let signature = SixelPaletteCache.signature(image)
        return state.withLock { s -> SixelPalette? in
            let moved =
                s.signature.count != signature.count
                || zip(s.signature, signature).reduce(0) { $0 + abs($1.0 - $1.1) } > SixelPaletteCache.threshold
                    * signature.count
            if s.palette == nil || moved || s.size != (image.width, image.height)
                || s.uses >= SixelPaletteCache.maximumUses
            {
                s.palette = SixelPalette(pixels: image.pixels, width: image.width, height: image.height)
                (s.signature, s.size, s.uses) = (signature, (image.width, image.height), 0)
            }
            s.uses += 1
            return s.palette
        }
    }

    /// The mean colour of each cell of a 4×4 grid over the picture (every 4th pixel of every 4th row).
    static func signature(_ image: RGBImage) -> [Int] {
        var sums = [Int](repeating: 0, count: 48), counts = [Int](repeating: 0, count: 16)
        guard image.width > 0, image.height > 0 else { return sums }
        let p = image.pixels
        for y in stride(from: 0, to: image.height, by: 4) {
            let gy = y * 4 / image.height
            for x in stride(from: 0, to: image.width, by: 4) {
                let cell = gy * 4 + x * 4 / image.width, o = (y * image.width + x) * 3
                sums[cell * 3] += Int(p[o])
                sums[cell * 3 + 1] += Int(p[o + 1])
                sums[cell * 3 + 2] += Int(p[o + 2])
                counts[cell] += 1
            }
        }
        return (0..<48).map { sums[$0] / max(1, counts[$0 / 3]) }
    }
}
