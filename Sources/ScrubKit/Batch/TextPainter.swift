import FFmpegBridge
import TextBridge

/// An RGB colour.
public struct RGBColor: Sendable, Equatable {
    /// Red, 0–255.
    public var r: UInt8
    /// Green, 0–255.
    public var g: UInt8
    /// Blue, 0–255.
    public var b: UInt8
    /// The colour with these components.
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { (self.r, self.g, self.b) = (r, g, b) }

    /// `#rrggbb`, `rrggbb`, `#rgb`, or a name (black, white, gray/grey, darkgray, lightgray, navy).
    public init?(parsing text: String) {
        let names: [String: RGBColor] = [
            "black": RGBColor(0, 0, 0), "white": RGBColor(255, 255, 255), "gray": RGBColor(128, 128, 128),
            "grey": RGBColor(128, 128, 128), "darkgray": RGBColor(24, 24, 24), "darkgrey": RGBColor(24, 24, 24),
            "lightgray": RGBColor(211, 211, 211), "lightgrey": RGBColor(211, 211, 211), "navy": RGBColor(0, 0, 128),
        ]
        if let c = names[text.lowercased()] { self = c; return }
        var hex = Substring(text)
        if hex.hasPrefix("#") { hex = hex.dropFirst() }
        if hex.count == 3 { hex = Substring(hex.map { "\($0)\($0)" }.joined()) }
        guard hex.count == 6, let v = UInt32(hex, radix: 16) else { return nil }
        self.init(UInt8(v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v))
    }

    /// This colour moved `amount` (0…1) of the way toward `other`.
    func mixed(with other: RGBColor, _ amount: Double) -> RGBColor {
        func m(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) * (1 - amount) + Double(b) * amount).rounded()) }
        return RGBColor(m(r, other.r), m(g, other.g), m(b, other.b))
    }

    /// Relative luminance 0–255 (BT.709 weights).
    var luma: Double { 0.2126 * Double(r) + 0.7152 * Double(g) + 0.0722 * Double(b) }
}

/// Text drawn on pictures: FreeType glyphs (``TextRenderer``) blended into an ``RGBImage``.
/// One per task (it holds FreeType objects).
final class TextPainter {
    let renderer: TextRenderer

    /// The font named by `font` (file or fontconfig pattern; nil: the default sans-serif).
    /// Throws a ``MediaError`` saying what to install when there is no font.
    init(font: String?, path: String) throws {
        do { renderer = try TextRenderer(font: font) } catch {
            throw MediaError(.invalidRequest, path: path, "cannot draw text: \(error)")
        }
    }

    /// Width and height of `text` at `pixelSize`.
    func size(_ text: String, pixelSize: Int) -> (width: Int, height: Int) {
        let m = renderer.render(text, pixelSize: pixelSize)
        return (m.width, m.height)
    }

    /// `text` shortened with `…` until it fits in `maxWidth` pixels.
    func fitting(_ text: String, pixelSize: Int, maxWidth: Int) -> String {
        if size(text, pixelSize: pixelSize).width <= maxWidth { return text }
        var chars = Array(text)
        while !chars.isEmpty {
            chars.removeLast()
            let t = String(chars) + "…"
            if size(t, pixelSize: pixelSize).width <= maxWidth { return t }
        }
        return "…"
    }

    /// Draws `text` with its top-left corner at (`x`, `y`); returns the drawn size.
    @discardableResult
    func draw(
        _ text: String, pixelSize: Int, into image: inout RGBImage, x: Int, y: Int, color: RGBColor
    ) -> (width: Int, height: Int) {
        let m = renderer.render(text, pixelSize: pixelSize)
        image.blend(m, x: x, y: y, color: color)
        return (m.width, m.height)
    }
}

extension RGBImage {
    /// Paints `color` through a coverage mask placed at (`x`, `y`) (clipped to the picture).
    mutating func blend(_ mask: TextMask, x: Int, y: Int, color: RGBColor) {
        let c = [Int(color.r), Int(color.g), Int(color.b)]
        for row in 0..<mask.height {
            let py = y + row
            guard py >= 0, py < height else { continue }
            for col in 0..<mask.width {
                let a = Int(mask.alpha[row * mask.width + col])
                let px = x + col
                guard a > 0, px >= 0, px < width else { continue }
                let o = (py * width + px) * 3
                for k in 0..<3 { pixels[o + k] = UInt8((c[k] * a + Int(pixels[o + k]) * (255 - a) + 127) / 255) }
            }
        }
    }
}
