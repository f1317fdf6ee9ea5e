import Foundation
import MediaTime
import ScrubKit

/// Where the hover preview goes and how it is drawn: a small picture of the time under the pointer, just above the
/// bar (or the loudness strip), centred on the pointer's column and kept on screen, with that time on a label row
/// above it. Without pictures (no video, `--graphics none`, a very short terminal) the label alone.
public struct HoverPreviewBox: Sendable, Equatable {
    /// Left cell (0-based) of the box.
    public var column: Int
    /// Width of the box in cells.
    public var columns: Int
    /// Row of the time label (0-based).
    public var labelRow: Int
    /// First row of the picture (0-based); the picture takes ``pictureRows`` rows.
    public var pictureRow: Int
    /// Rows of the picture (0: label only).
    public var pictureRows: Int
    /// The picture's size in pixels (what to decode to); (0, 0) for label only.
    public var pixelWidth: Int
    /// See ``pixelWidth``.
    public var pixelHeight: Int

    /// The box for a pointer at `pointerColumn` in `layout`, drawn by `renderer` (nil, or one that draws no pictures:
    /// label only) with cells of `cellPixels`, for a video of display `aspect` (nil: no picture, label only).
    public init(
        layout: PlayerLayout, renderer: FrameRenderer?, cellPixels: (w: Int, h: Int), aspect: Double?,
        pointerColumn: Int
    ) {
        let bottom = (layout.hasLoudnessStrip ? layout.loudnessRow : layout.barRow) - 1  // last row the box may use
        // About a quarter of the width (16–48 cells): big enough to recognise a scene in half blocks.
        var cells = min(48, max(16, layout.columns / 4))
        var pixels = (0, 0), rows = 0
        if let aspect, aspect > 0, aspect.isFinite, let renderer, renderer.drawsPictures {
            let cell = renderer.cellGeometry(cellPixels)
            let (cw, ch) = (cell.width, cell.height)
            let maxRows = bottom - 1   // leave the label row and keep off the top row
            var w = cells * cw, h = Int((Double(w) / aspect).rounded())
            if (h + ch - 1) / ch > maxRows {   // a tall video in a short terminal: fit the height
                h = max(0, maxRows) * ch
                w = Int((Double(h) * aspect).rounded())
            }
            if cell.wholeCells { h -= h % ch }   // (half blocks: whole cells of two pixel rows)
            if w >= 4 && h >= 2 && maxRows >= 2 {
                pixels = (w, h)
                rows = (h + ch - 1) / ch
                cells = (w + cw - 1) / cw
            }
        }
        columns = min(max(cells, 12), layout.columns)   // (12: room for the longest label, " 1:23:45.6 ")
        column = min(max(0, pointerColumn - columns / 2), max(0, layout.columns - columns))
        pictureRows = rows
        pictureRow = bottom - rows + 1
        labelRow = max(0, pictureRow - 1)
        (pixelWidth, pixelHeight) = pixels
    }

    /// Whether `column` lies within the box.
    public func pointerInside(_ column: Int) -> Bool { column >= self.column && column < self.column + columns }

    /// The label: the time, in reverse video (plain brackets without colour), centred over the box.
    public func label(_ time: MediaTime, color: Bool) -> String {
        let text = " " + time.formatted(fractionDigits: 1) + " "
        let at = column + max(0, (columns - text.count) / 2)
        return "\u{1B}[\(labelRow + 1);\(at + 1)H" + (color ? "\u{1B}[7m\(text)\u{1B}[27m" : "[\(text)]")
    }

    /// Spaces over the whole box (label and picture rows), in the default colours.
    public func erase() -> String {
        let blank = String(repeating: " ", count: columns)
        return (labelRow...max(labelRow, pictureRow + pictureRows - 1)).map {
            "\u{1B}[\($0 + 1);\(column + 1)H\u{1B}[0m" + blank
        }.joined()
    }
}

/// What the hover preview shows and what the screen holds of it, refresh after refresh: `scrubkit play` tells it where
/// the pointer is, then each refresh asks ``plan(box:answer:renderer:)`` what to erase before the main
/// picture and ``draw(painted:renderer:cellPixels:color:)`` what to draw after it.
public struct HoverPreview {
    /// The pointer over the bar: its column and the time there; nil when it is elsewhere.
    public var pointer: (column: Int, time: MediaTime)? = nil
    /// What is on screen: the box, the picture's answer serial (-1: none yet) and the time labelled.
    private var shown: (box: HoverPreviewBox, serial: Int, time: MediaTime)? = nil
    /// This refresh's plan, between the two calls.
    private var planned: (box: HoverPreviewBox, answer: HoverThumbnails.Answer?, changed: Bool, persists: Bool)? = nil

    /// Nothing pointed at, nothing shown.
    public init() {}

    /// The screen was cleared (a resize): nothing of the preview is on it any more.
    public mutating func screenCleared() { shown = nil }

    /// Before the main picture: `erase` (the overlay and the cells of a box that moved or went) and whether the main
    /// picture must be drawn again (it was under a box that moved or went, and `renderer` overwrites cells). `box` is
    /// where the preview goes now (for the pointer), `answer` the newest picture.
    public mutating func plan(
        box: HoverPreviewBox, answer: HoverThumbnails.Answer?, renderer: FrameRenderer
    ) -> (erase: String, needsPicture: Bool) {
        let overlayPersists = renderer.overlayPersists
        guard let pointer else {
            planned = nil
            guard let old = shown else { return ("", false) }
            shown = nil
            return (renderer.clearOverlay() + old.box.erase(), !overlayPersists && old.box.pictureRows > 0)
        }
        let moved = shown.map { $0.box != box } ?? false
        let changed = shown.map { moved || $0.serial != (answer?.serial ?? -1) || $0.time != pointer.time } ?? true
        planned = (box, answer, changed, overlayPersists)
        return (moved ? shown!.box.erase() : "", moved && !overlayPersists)
    }

    /// After the main picture (`painted`: one was drawn this refresh, over the preview's cells unless the overlay
    /// persists): the preview's picture and its label, when something changed or was drawn over.
    public mutating func draw(
        painted: Bool, renderer: FrameRenderer, cellPixels: (w: Int, h: Int), color: Bool
    ) -> (picture: String, label: String) {
        guard let p = planned, let pointer else { return ("", "") }
        planned = nil
        guard p.changed || (painted && !p.persists) else { return ("", "") }
        shown = (p.box, p.answer?.serial ?? -1, pointer.time)
        var picture = ""
        if let answer = p.answer, p.box.pictureRows > 0 {
            picture = renderer.drawOverlay(
                answer.thumbnail.image, column: p.box.column, row: p.box.pictureRow, cellPixels: cellPixels)
        }
        return (picture, p.box.label(pointer.time, color: color))
    }
}
