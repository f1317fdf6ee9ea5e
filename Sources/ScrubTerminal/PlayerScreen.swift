import Foundation
import MediaTime
import ScrubKit

/// Screen geometry for `scrub play`: the picture fills the space above a two-line status area, keeping the
/// display aspect ratio; the bar spans the width under it.
public struct PlayerLayout: Sendable, Equatable {
    /// Terminal width in cells.
    public var columns: Int
    /// Terminal height in cells.
    public var rows: Int
    /// Cells for the picture (rows above the status area).
    public var pictureRows: Int { max(0, rows - 2) }
    /// Row of the slider bar (0-based) and of the status line.
    public var barRow: Int { max(0, rows - 2) }
    /// Row of the status line (0-based).
    public var statusRow: Int { max(0, rows - 1) }
    /// The slider track, with room for the time labels either side.
    public var bar: SliderBar { SliderBar(origin: 1, width: max(2, columns - 2)) }

    /// The layout of a `columns × rows` terminal.
    public init(columns: Int, rows: Int) {
        self.columns = max(10, columns)
        self.rows = max(3, rows)
    }
}

/// Everything `scrub play` draws, as one string per refresh (synchronized output where supported).
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
    public func pictureGeometry(layout: PlayerLayout, cellPixels: (w: Int, h: Int), aspect: Double) -> (width: Int, height: Int, column: Int, row: Int) {
        let (w, h) = renderer.pixelSize(columns: layout.columns, rows: layout.pictureRows, cellPixels: cellPixels, aspect: aspect)
        guard w > 0, h > 0 else { return (0, 0, 0, 0) }
        let cellsWide: Int, cellsHigh: Int
        switch renderer.kind {
        case .blocks, .blocks256: (cellsWide, cellsHigh) = (w, h / 2)
        default: (cellsWide, cellsHigh) = ((w + cellPixels.w - 1) / cellPixels.w, (h + cellPixels.h - 1) / cellPixels.h)
        }
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
    /// The one path every caller draws through (`scrub play` and its benchmark).
    public func paint(_ image: RGBImage, geometry g: (width: Int, height: Int, column: Int, row: Int), cellPixels: (w: Int, h: Int)) -> String {
        guard let picture = fitted(image, to: g) else { return "" }
        return renderer.draw(picture, column: g.column, row: g.row, cellPixels: cellPixels)
    }

    /// The bar (knob at `fraction`) and the status line.
    public func status(layout: PlayerLayout, line: StatusLine, fraction: Double, ticks: [Double] = []) -> String {
        var out = "\u{1B}[\(layout.barRow + 1);1H\u{1B}[2K "
        out += layout.bar.render(fraction: fraction, color: color, ticks: ticks)
        out += "\u{1B}[\(layout.statusRow + 1);1H\u{1B}[2K" + line.render(width: layout.columns - 1)
        return out
    }
}
