import Foundation
import ScrubKit
import SixelBridge
import Locking
import Synchronization

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
    /// only (text glyphs: half blocks show 1×2 whatever the font; pixel protocols show the cell's pixels, in part too).
    func cellGeometry(_ cellPixels: (w: Int, h: Int)) -> CellGeometry
    /// Whether pictures are written outside the synchronized-update brackets (pacing: kitty holds what comes inside
    /// one in a bounded buffer, which a large picture overflowed — no picture shown, "too much data in pending mode").
    var writesPicturesUnsynchronized: Bool { get }
    /// Removes what drawing left outside the terminal (kitty's picture files); when the player ends.
    func removeLeftovers()
}

/// How pictures map onto a renderer's cells.
public struct CellGeometry: Sendable, Equatable {
    /// Pixels per cell across.
    public var width: Int
    /// Pixels per cell down.
    public var height: Int
    /// Pictures take whole cells only.
    public var wholeCells: Bool
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

    /// Pixel protocols (kitty, iTerm2, sixel) draw at the terminal's own resolution: the cells' pixels.
    public func pixelSize(columns: Int, rows: Int, cellPixels: (w: Int, h: Int), aspect: Double) -> (width: Int, height: Int) {
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
    public func cellGeometry(_ cellPixels: (w: Int, h: Int)) -> CellGeometry { CellGeometry(width: 1, height: 2, wholeCells: true) }

    /// One pixel per column and two per row (each half cell about square), an even height.
    public func pixelSize(columns: Int, rows: Int, cellPixels: (w: Int, h: Int), aspect: Double) -> (width: Int, height: Int) {
        // A cell is about twice as tall as wide, so each half is about square.
        let (w, h) = Self.fit(columns, rows * 2, aspect: aspect)
        return (w, h + (h & 1))
    }

    /// Cursor moves and colour changes drawing `image` two pixel rows per cell row (colours repeated only when they change).
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

/// kitty graphics protocol, one image id replaced each frame. Pixels go as RGB (f=24) through a file when the terminal
/// reads this machine's files (``fileDirectory``: kitty on the same machine, found by asking it), else in the escape
/// sequence itself, zlib-compressed, in 4096-byte base64 chunks (over SSH).
public struct KittyRenderer: FrameRenderer {
    /// `kitty`.
    public var kind: GraphicsKind { .kitty }
    /// Where picture files go for kitty to read (and delete: their names carry `tty-graphics-protocol`, in a
    /// temporary directory); nil: pixels in the escape sequences.
    public let fileDirectory: String?
    /// A kitty renderer sending pixels in the escape sequences, or through files in `fileDirectory`.
    public init(fileDirectory: String? = nil) { self.fileDirectory = fileDirectory }

    /// The start of every picture file's name: kitty deletes a file it read only when the name contains
    /// `tty-graphics-protocol`; the process id lets ``removeLeftovers()`` find this process's.
    static var filePrefix: String { "tty-graphics-protocol-scrubkit-\(getpid())-" }
    private static let fileCount = Atomic<Int>(0)
    /// The last picture's file and when it was written, until kitty has read (deleted) it.
    private static let unread = Locked<(path: String, at: Double)?>(nil)

    /// The image as RGB placed at the cell, replacing the previous picture under the same id (nothing deleted first:
    /// no blank between pictures). Through a file: ~100 bytes to the terminal instead of megabytes (at 160×48 cells
    /// raw RGB is ~5 MB of base64 a frame, zlib-compressed still a third to a tenth of that); "" (the picture dropped)
    /// while kitty has not read the last one.
    public func draw(_ image: RGBImage, column: Int, row: Int, cellPixels: (w: Int, h: Int)) -> String {
        // z=-1: under the text, so a label written over the picture (the hover preview's time) shows.
        place(image, column: column, row: row, id: 1, z: -1)
    }

    /// The overlay is a second image (id 2) on a layer above the text and the main picture: replacing the main
    /// picture leaves it in place.
    public func drawOverlay(_ image: RGBImage, column: Int, row: Int, cellPixels: (w: Int, h: Int)) -> String {
        place(image, column: column, row: row, id: 2, z: 1)
    }

    /// Deletes the overlay image.
    public func clearOverlay() -> String { "\u{1B}_Ga=d,d=i,i=2,q=2\u{1B}\\" }

    /// kitty keeps the overlay on its own layer.
    public var overlayPersists: Bool { true }
    /// Outside the synchronized update (kitty's pending-mode buffer is bounded).
    public var writesPicturesUnsynchronized: Bool { true }

    private func place(_ image: RGBImage, column: Int, row: Int, id: Int, z: Int) -> String {
        let at = "\u{1B}[\(row + 1);\(column + 1)H"
        let head = "a=T,f=24,s=\(image.width),v=\(image.height),i=\(id),p=1,z=\(z),q=2,C=1"
        if let dir = fileDirectory {
            // Paced by kitty itself: while the last picture's file is still there kitty has not read it, and this
            // picture is dropped (else files would pile up in memory faster than kitty shows them). One kitty never
            // deletes is given up on after half a second.
            if id == 1, let last = Self.unread.withLock({ $0 }) {
                var st = stat()
                if stat(last.path, &st) == 0 {
                    if Date().timeIntervalSince1970 - last.at < 0.5 { return "" }
                    unlink(last.path)
                }
            }
            // A file kitty reads and deletes (written whole, then renamed: never read half-written).
            let n = Self.fileCount.add(1, ordering: .relaxed).newValue
            let path = "\(dir)/\(Self.filePrefix)\(n).rgb"
            if (try? FileIO.replace(path, with: image.pixels, temporary: path + ".part", mode: 0o600, durability: .none)) != nil {
                if id == 1 { Self.unread.withLock { $0 = (path, Date().timeIntervalSince1970) } }
                Self.directoriesUsed.withLock { _ = $0.insert(dir) }
                return at + "\u{1B}_G\(head),t=t;\(Data(path.utf8).base64EncodedString())\u{1B}\\"
            }
        }
        let packed = image.deflated().flatMap { $0.count < image.pixels.count ? $0 : nil }   // (noise does not shrink)
        let data = Data(packed ?? image.pixels).base64EncodedString()
        let compression = packed == nil ? "" : ",o=z"
        var out = at
        var i = data.startIndex
        var first = true
        while i < data.endIndex {
            let j = data.index(i, offsetBy: 4096, limitedBy: data.endIndex) ?? data.endIndex
            let more = j < data.endIndex ? 1 : 0
            out += "\u{1B}_G\(first ? head + compression + ",m=\(more)" : "m=\(more)");\(data[i..<j])\u{1B}\\"
            first = false
            i = j
        }
        return out
    }

    /// Removes picture files of this process kitty has not read (written just before quitting).
    public func removeLeftovers() {
        guard let dir = fileDirectory else { return }
        Self.removeLeftovers(in: dir)
    }

    /// Removes this process's unread picture files from every directory pictures went to (on a signal, before exit).
    public static func removeAllLeftovers() {
        for dir in directoriesUsed.withLock({ $0 }) { removeLeftovers(in: dir) }
    }

    private static func removeLeftovers(in dir: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
        for name in names where name.hasPrefix(filePrefix) { unlink("\(dir)/\(name)") }
    }
    private static let directoriesUsed = Locked<Set<String>>([])

    /// Deletes the placed images (the picture and the overlay).
    public func clear() -> String { "\u{1B}_Ga=d,d=i,i=1,q=2\u{1B}\\" + clearOverlay() }
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
        return "\u{1B}[\(row + 1);\(column + 1)H\u{1B}]1337;File=inline=1;size=\(png.count);width=\(cols);height=\(rows);preserveAspectRatio=1:\(b64)\u{07}"
    }
}

/// Draws nothing: bar and times only.
public struct NoGraphicsRenderer: FrameRenderer {
    /// `none`.
    public var kind: GraphicsKind { .none }
    /// A renderer that draws nothing.
    public init() {}
    /// Nothing to decode: (0, 0).
    public func pixelSize(columns: Int, rows: Int, cellPixels: (w: Int, h: Int), aspect: Double) -> (width: Int, height: Int) { (0, 0) }
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
    /// A sixel renderer keeping pictures within the terminal's limits.
    public init(maxWidth: Int? = nil, maxHeight: Int? = nil) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
    }
    /// The cells' pixels, kept within the sixel size limit.
    public func pixelSize(columns: Int, rows: Int, cellPixels: (w: Int, h: Int), aspect: Double) -> (width: Int, height: Int) {
        let areaW = min(columns * cellPixels.w, maxWidth ?? .max), areaH = min(rows * cellPixels.h, maxHeight ?? .max)
        let (w, h) = Self.fit(areaW, areaH, aspect: aspect)
        return (w, h - h % 6)   // whole sixel bands, so the picture never spills into the bar
    }
    /// The image encoded by libsixel (fast palette), placed at the cell.
    public func draw(_ image: RGBImage, column: Int, row: Int, cellPixels: (w: Int, h: Int)) -> String {
        guard let six = SixelEncoder.encode(pixels: image.pixels, width: image.width, height: image.height) else { return "" }
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
