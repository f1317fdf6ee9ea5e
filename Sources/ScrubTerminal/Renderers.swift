import Foundation
import ScrubKit
import SixelBridge

/// Terminal graphics kinds, as `--graphics` names them.
public enum GraphicsKind: String, Sendable, CaseIterable {
    case kitty, iterm, sixel, blocks, blocks256, none
}

/// Draws a picture into a rectangle of cells. One implementation per terminal graphics protocol (like mpv's vo_*).
public protocol FrameRenderer: Sendable {
    /// The graphics kind this renderer speaks (what `--graphics` calls it).
    var kind: GraphicsKind { get }
    /// The pixel size to decode to for a `columns × rows` cell area (keeping `aspect` = width / height).
    func pixelSize(columns: Int, rows: Int, cellPixels: (w: Int, h: Int), aspect: Double) -> (width: Int, height: Int)
    /// Escape sequences drawing `image` with its top-left cell at (column, row), 0-based.
    func draw(_ image: RGBImage, column: Int, row: Int, cellPixels: (w: Int, h: Int)) -> String
    /// Removes what `draw` left (for protocols with placed images); "" when cells are simply overwritten.
    func clear() -> String
    /// Escape sequences drawing a small picture over the main one (the hover preview).
    func drawOverlay(_ image: RGBImage, column: Int, row: Int, cellPixels: (w: Int, h: Int)) -> String
    /// Removes the overlay; "" when cells are simply overwritten (the caller redraws what was under it).
    func clearOverlay() -> String
    /// Whether the overlay stays on top when the main picture is drawn again (kitty's layers); otherwise the caller
    /// draws it again after each main picture.
    var overlayPersists: Bool { get }

    // Capabilities: what a front end asks of a renderer instead of asking which one it is.

    /// Whether it draws pictures at all (not `--graphics none`: then only the bar and the status line).
    var drawsPictures: Bool { get }
    /// The pixels one cell shows on a terminal whose cells are `cellPixels`, and whether pictures take whole cells
    /// only (text glyphs: half blocks show 1×2 whatever the font; pixel protocols show the cell's pixels, in part
    /// too).
    func cellGeometry(_ cellPixels: (w: Int, h: Int)) -> CellGeometry
    /// Whether pictures are written outside the synchronized-update brackets (pacing: kitty holds what comes inside
    /// one in a bounded buffer, which a large picture overflowed — no picture shown, "too much data in pending
    /// mode").
    var writesPicturesUnsynchronized: Bool { get }
    /// Removes what drawing left outside the terminal (kitty's picture files); when the player ends.
    func removeLeftovers()
    /// Escape sequences drawing one of several pictures side by side (`browse`'s tiles): `slot` tells them apart
    /// (kitty replaces the slot's earlier picture; other protocols overwrite cells).
    func drawTile(_ image: RGBImage, column: Int, row: Int, slot: Int, cellPixels: (w: Int, h: Int)) -> String
    /// Removes every tile drawn (before the grid is laid out again or a player takes the screen).
    func clearTiles() -> String
}

/// How pictures map onto a renderer's cells.
public struct CellGeometry: Sendable, Equatable {
    /// Pixels per cell across.
    public var width: Int
    /// Pixels per cell down.
    public var height: Int
    /// Pictures take whole cells only.
    public var wholeCells: Bool

    /// `width × height` pixels per cell, whole cells only or not.
    public init(width: Int, height: Int, wholeCells: Bool) {
        self.width = width
        self.height = height
        self.wholeCells = wholeCells
    }
}

extension FrameRenderer {
    /// The largest size with aspect ratio `aspect` that fits `w × h`.
    static func fit(_ w: Int, _ h: Int, aspect: Double) -> (Int, Int) {
        guard w > 0, h > 0, aspect > 0, aspect.isFinite else { return (max(0, w), max(0, h)) }
        if Double(w) / Double(h) > aspect { return (max(1, Int((Double(h) * aspect).rounded())), h) }
        return (w, max(1, Int((Double(w) / aspect).rounded())))
    }
    /// Nothing to remove: cells are simply overwritten.
    public func clear() -> String { "" }
    /// Drawn like the main picture, over it.
    public func drawOverlay(_ image: RGBImage, column: Int, row: Int, cellPixels: (w: Int, h: Int)) -> String {
        draw(image, column: column, row: row, cellPixels: cellPixels)
    }
    /// Nothing to remove: the caller redraws what was under it.
    public func clearOverlay() -> String { "" }
    /// Cells are overwritten by the next main picture.
    public var overlayPersists: Bool { false }
    /// Draws pictures.
    public var drawsPictures: Bool { true }
    /// A pixel protocol: the terminal's own cell pixels, a picture ending inside a cell.
    public func cellGeometry(_ cellPixels: (w: Int, h: Int)) -> CellGeometry {
        CellGeometry(width: max(1, cellPixels.w), height: max(1, cellPixels.h), wholeCells: false)
    }
    /// Inside the synchronized update, with the rest of the screen.
    public var writesPicturesUnsynchronized: Bool { false }
    /// Nothing left outside the terminal.
    public func removeLeftovers() {}
    /// Drawn like an overlay: each picture on its own (sixel: a palette of its own).
    public func drawTile(_ image: RGBImage, column: Int, row: Int, slot: Int, cellPixels: (w: Int, h: Int)) -> String {
        drawOverlay(image, column: column, row: row, cellPixels: cellPixels)
    }
    /// What ``clear()`` removes.
    public func clearTiles() -> String { clear() }

    /// Pixel protocols (kitty, iTerm2, sixel) draw at the terminal's own resolution: the cells' pixels.
    public func pixelSize(
        columns: Int, rows: Int, cellPixels: (w: Int, h: Int), aspect: Double
    ) -> (width: Int, height: Int) {
        Self.fit(columns * cellPixels.w, rows * cellPixels.h, aspect: aspect)
    }
}

/// Half blocks `▀`: two pixels per cell (foreground = top, background = bottom), 24-bit or 256 colours.
public struct HalfBlockRenderer: FrameRenderer {
    /// 24-bit colour (`blocks`); false for the 256-colour palette (`blocks256`).
    public let trueColor: Bool
    /// `blocks` or `blocks256`.
    public var kind: GraphicsKind { trueColor ? .blocks : .blocks256 }
    /// A half-block renderer in 24-bit (`trueColor`) or 256 colours.
    public init(trueColor: Bool) { self.trueColor = trueColor }

    /// One pixel across and two down per cell, whatever the font: whole cells.
    public func cellGeometry(_ cellPixels: (w: Int, h: Int)) -> CellGeometry {
        CellGeometry(width: 1, height: 2, wholeCells: true)
    }

    /// One pixel per column and two per row (each half cell about square), an even height.
    public func pixelSize(
        columns: Int, rows: Int, cellPixels: (w: Int, h: Int), aspect: Double
    ) -> (width: Int, height: Int) {
        // A cell is about twice as tall as wide, so each half is about square.
        let (w, h) = Self.fit(columns, rows * 2, aspect: aspect)
        return (w, h + (h & 1))
    }

    /// Cursor moves and colour changes drawing `image` two pixel rows per cell row (colours repeated only when they
    /// change).
    public func draw(_ image: RGBImage, column: Int, row: Int, cellPixels: (w: Int, h: Int)) -> String {
        var out = ""
        out.reserveCapacity(image.width * image.height * 12)
        var lastFG = -1, lastBG = -1
        let p = image.pixels
        for y in stride(from: 0, to: image.height - 1, by: 2) {
            out += "\u{1B}[\(row + y / 2 + 1);\(column + 1)H"
            lastFG = -1; lastBG = -1
            for x in 0..<image.width {
                let t = (y * image.width + x) * 3, b = ((y + 1) * image.width + x) * 3
                if trueColor {
                    let fg = Int(p[t]) << 16 | Int(p[t + 1]) << 8 | Int(p[t + 2])
                    let bg = Int(p[b]) << 16 | Int(p[b + 1]) << 8 | Int(p[b + 2])
                    if fg != lastFG { out += "\u{1B}[38;2;\(p[t]);\(p[t + 1]);\(p[t + 2])m"; lastFG = fg }
                    if bg != lastBG { out += "\u{1B}[48;2;\(p[b]);\(p[b + 1]);\(p[b + 2])m"; lastBG = bg }
                } else {
                    let fg = Self.xterm256(p[t], p[t + 1], p[t + 2]), bg = Self.xterm256(p[b], p[b + 1], p[b + 2])
                    if fg != lastFG { out += "\u{1B}[38;5;\(fg)m"; lastFG = fg }
                    if bg != lastBG { out += "\u{1B}[48;5;\(bg)m"; lastBG = bg }
                }
                out += "▀"
            }
            out += "\u{1B}[0m"
        }
        return out
    }

    /// Nearest xterm-256 colour: the 6×6×6 cube or the grey ramp, whichever is closer.
    static func xterm256(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        func level(_ v: UInt8) -> Int { v < 48 ? 0 : v < 115 ? 1 : (Int(v) - 35) / 40 }
        let steps = [0, 95, 135, 175, 215, 255]
        let (lr, lg, lb) = (level(r), level(g), level(b))
        let cube = 16 + 36 * lr + 6 * lg + lb
        let (cr, cg, cb) = (steps[lr], steps[lg], steps[lb])
        let avg = (Int(r) + Int(g) + Int(b)) / 3
        let grey = avg > 238 ? 23 : max(0, (avg - 3) / 10)
        let gv = 8 + 10 * grey
        // (Parameter names must not shadow the channels: `b` here once hid blue, greying out saturated greens.)
        func d(_ cr: Int, _ cg: Int, _ cb: Int) -> Int {
            (Int(r) - cr) * (Int(r) - cr) + (Int(g) - cg) * (Int(g) - cg) + (Int(b) - cb) * (Int(b) - cb)
        }
        return d(gv, gv, gv) < d(cr, cg, cb) ? 232 + grey : cube
    }
}

/// iTerm2 inline images (also WezTerm, Konsole, VS Code): a PNG in OSC 1337.
public struct ITermRenderer: FrameRenderer {
    /// `iterm`.
    public var kind: GraphicsKind { .iterm }
    /// An iTerm2 renderer.
    public init() {}
    /// The image as a PNG in an OSC 1337 sequence at the cell.
    public func draw(_ image: RGBImage, column: Int, row: Int, cellPixels: (w: Int, h: Int)) -> String {
        guard let png = try? image.encoded(as: .png) else { return "" }
        let b64 = Data(png).base64EncodedString()
        let cols = max(1, (image.width + cellPixels.w - 1) / cellPixels.w)
        let rows = max(1, (image.height + cellPixels.h - 1) / cellPixels.h)
        return "\u{1B}[\(row + 1);\(column + 1)H\u{1B}]1337;File=inline=1;size=\(png.count)"
            + ";width=\(cols);height=\(rows);preserveAspectRatio=1:\(b64)\u{07}"
    }
}

/// Draws nothing: bar and times only.
public struct NoGraphicsRenderer: FrameRenderer {
    /// `none`.
    public var kind: GraphicsKind { .none }
    /// A renderer that draws nothing.
    public init() {}
    /// Nothing to decode: (0, 0).
    public func pixelSize(
        columns: Int, rows: Int, cellPixels: (w: Int, h: Int), aspect: Double
    ) -> (width: Int, height: Int) { (0, 0) }
    /// Nothing: "".
    public func draw(_ image: RGBImage, column: Int, row: Int, cellPixels: (w: Int, h: Int)) -> String { "" }
    /// No pictures.
    public var drawsPictures: Bool { false }
}

/// Sixel (xterm -ti vt340, mlterm, foot, WezTerm, Windows Terminal…): encoded by libsixel.
/// Pictures are kept under the terminal's sixel size limit (XTSMGRAPHICS): a larger one is not shown at all.
public struct SixelRenderer: FrameRenderer {
    /// `sixel`.
    public var kind: GraphicsKind { .sixel }
    /// The terminal's sixel width limit in pixels (XTSMGRAPHICS), when it told.
    public let maxWidth: Int?
    /// The terminal's sixel height limit in pixels, when it told.
    public let maxHeight: Int?
    /// The palette kept from picture to picture while it fits.
    let palettes = SixelPaletteCache()
    /// A sixel renderer keeping pictures within the terminal's limits.
    public init(maxWidth: Int? = nil, maxHeight: Int? = nil) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
    }
    /// The cells' pixels, kept within the sixel size limit.
    public func pixelSize(
        columns: Int, rows: Int, cellPixels: (w: Int, h: Int), aspect: Double
    ) -> (width: Int, height: Int) {
        let areaW = min(columns * cellPixels.w, maxWidth ?? .max), areaH = min(rows * cellPixels.h, maxHeight ?? .max)
        let (w, h) = Self.fit(areaW, areaH, aspect: aspect)
        return (w, h - h % 6)   // whole sixel bands, so the picture never spills into the bar
    }
    /// The image encoded by libsixel with the palette kept while it fits (``SixelPaletteCache``), placed at the cell.
    public func draw(_ image: RGBImage, column: Int, row: Int, cellPixels: (w: Int, h: Int)) -> String {
        guard let palette = palettes.palette(for: image),
            let six = SixelEncoder.encode(
                pixels: image.pixels, width: image.width, height: image.height, palette: palette)
        else { return "" }
        return "\u{1B}[\(row + 1);\(column + 1)H" + six
    }
    /// A small picture over the main one (the hover preview), with a palette of its own.
    public func drawOverlay(_ image: RGBImage, column: Int, row: Int, cellPixels: (w: Int, h: Int)) -> String {
        guard let six = SixelEncoder.encode(pixels: image.pixels, width: image.width, height: image.height) else {
            return ""
        }
        return "\u{1B}[\(row + 1);\(column + 1)H" + six
    }
    /// Erases the display and scrolls the sixel pictures off it: only then does xterm free them (erasing alone does
    /// not, and every later write to the screen stays slow — enough to starve the keyboard of the next program).
    public func clear() -> String { "\u{1B}[H\u{1B}[2J\u{1B}[999S" }
}

extension GraphicsKind {
    /// The renderer for this kind.
    public var renderer: FrameRenderer {
        switch self {
        case .kitty: return KittyRenderer()
        case .iterm: return ITermRenderer()
        case .sixel: return SixelRenderer()
        case .blocks: return HalfBlockRenderer(trueColor: true)
        case .blocks256: return HalfBlockRenderer(trueColor: false)
        case .none: return NoGraphicsRenderer()
        }
    }
}
