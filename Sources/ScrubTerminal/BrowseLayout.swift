import ScrubKit

/// The geometry of `scrubkit browse`'s grid, and which tiles it shows: a header row, tiles in rows under it, and an
/// info line at the bottom. Each tile is a picture of `pictureRows` rows over a name line; one blank column and row
/// between tiles hold the frame drawn round the selected one. Plain values: the selection and scrolling live in
/// ``BrowseSelection``.
public struct BrowseLayout: Sendable, Equatable {
    /// Terminal width in cells.
    public let columns: Int
    /// Terminal height in cells.
    public let rows: Int
    /// Tiles across.
    public let tilesAcross: Int
    /// Tile rows that fit on screen (at least 1).
    public let tilesDown: Int
    /// A tile's width in cells (its picture's and name line's).
    public let tileWidth: Int
    /// A tile's picture height in cells.
    public let pictureRows: Int
    /// Row of the header (0-based).
    public var headerRow: Int { 0 }
    /// Row of the selection's info line (0-based).
    public var infoRow: Int { rows - 1 }
    /// Tiles a screen shows.
    public var tilesPerScreen: Int { tilesAcross * tilesDown }
    /// Rows from one tile row to the next: picture, name line, gap.
    public var rowPitch: Int { pictureRows + 2 }

    /// The layout of a `columns × rows` terminal whose pictures show `cell` pixels per cell, with tiles about
    /// `tilePixels` pixels wide (whole-cell renderers: about `tileColumns` cells) for pictures of aspect `aspect`.
    public init(
        columns: Int, rows: Int, cell: CellGeometry, tilePixels: Int = 192, tileColumns: Int = 22,
        aspect: Double = 16.0 / 9.0
    ) {
        self.columns = max(8, columns)
        self.rows = max(5, rows)
        let wanted = cell.wholeCells ? tileColumns : max(8, (tilePixels + cell.width / 2) / max(1, cell.width))
        let width = max(6, min(wanted, self.columns - 2))
        tilesAcross = max(1, (self.columns - 1) / (width + 1))
        // The room left is shared out: tiles grow to fill the width.
        tileWidth = max(6, (self.columns - 1) / tilesAcross - 1)
        let pixelsDown = Double(tileWidth * cell.width) / max(0.1, aspect)
        let gridRows = self.rows - 3   // header, its gap, info line
        pictureRows = max(1, min(max(1, gridRows - 2), Int((pixelsDown / Double(max(1, cell.height))).rounded())))
        tilesDown = max(1, gridRows / (pictureRows + 2))
    }

    /// The box tile pictures are fitted to, for a renderer whose cells show `cell` pixels (kitty over SSH: half the
    /// screen's).
    public func pictureSize(cell: CellGeometry) -> MaximumSize {
        .box(width: tileWidth * cell.width, height: pictureRows * cell.height)
    }

    /// The bytes of tile pictures kept for pictures of `cell` pixels a cell: four screens' worth (the screen, the next,
    /// the one before, and one for moving back and forth), at least 8 MiB.
    public func pictureBudget(cell: CellGeometry) -> Int {
        max(8 << 20, tileWidth * cell.width * pictureRows * cell.height * 3 * tilesPerScreen * 4)
    }

    /// The cell where tile `slot` (0-based on screen, row by row) starts: its picture's top-left.
    public func origin(ofSlot slot: Int) -> (column: Int, row: Int) {
        (1 + slot % tilesAcross * (tileWidth + 1), 2 + slot / tilesAcross * rowPitch)
    }

    /// The slot under cell (`column`, `row`) and where across its picture the pointer is (0…1); nil off the tiles.
    public func slot(atColumn column: Int, row: Int) -> (slot: Int, fraction: Double, onPicture: Bool)? {
        guard column >= 1, row >= 2 else { return nil }
        let across = (column - 1) / (tileWidth + 1), down = (row - 2) / rowPitch
        let x = (column - 1) % (tileWidth + 1), y = (row - 2) % rowPitch
        guard across < tilesAcross, down < tilesDown, x < tileWidth, y <= pictureRows else { return nil }
        let fraction = tileWidth > 1 ? Double(x) / Double(tileWidth - 1) : 0
        return (down * tilesAcross + across, fraction, y < pictureRows)
    }
}

/// Which tile is selected and which tile row is at the top of the screen, over `count` tiles laid out by a
/// ``BrowseLayout``: moves keep the selection on screen, scrolling by whole rows.
public struct BrowseSelection: Sendable, Equatable {
    /// The selected tile (0 when there are none).
    public private(set) var index = 0
    /// The tile row shown at the top.
    public private(set) var topRow = 0
    /// Tiles in the grid.
    public private(set) var count: Int

    /// A selection over `count` tiles, the first selected.
    public init(count: Int) { self.count = max(0, count) }

    /// The tiles on screen in `layout`.
    public func visible(_ layout: BrowseLayout) -> Range<Int> {
        let start = min(count, topRow * layout.tilesAcross)
        return start..<min(count, start + layout.tilesPerScreen)
    }

    /// What to make next, most wanted first: the tiles on screen from the selection outwards, then the next screen,
    /// then the one before.
    public func wanted(_ layout: BrowseLayout) -> [Int] {
        let shown = visible(layout)
        let onScreen = shown.sorted { abs($0 - index) < abs($1 - index) }
        let next = shown.upperBound..<min(count, shown.upperBound + layout.tilesPerScreen)
        let before = max(0, shown.lowerBound - layout.tilesPerScreen)..<shown.lowerBound
        return onScreen + Array(next) + before.reversed()
    }

    /// Selects tile `index` (clamped), scrolling `layout` as little as needed to show it.
    public mutating func select(_ index: Int, in layout: BrowseLayout) {
        self.index = count == 0 ? 0 : min(max(0, index), count - 1)
        keepVisible(layout)
    }

    /// Moves by `step` tiles (±1 across, ±tilesAcross down), stopping at the ends.
    public mutating func move(by step: Int, in layout: BrowseLayout) { select(index + step, in: layout) }

    /// A new tile count (a filter, a new folder) or layout: the selection clamped and kept on screen.
    public mutating func update(count: Int, layout: BrowseLayout) {
        self.count = max(0, count)
        select(index, in: layout)
    }

    /// Scrolls so the selected tile's row is on screen (and no empty rows show below the last tile).
    mutating func keepVisible(_ layout: BrowseLayout) {
        let row = index / layout.tilesAcross
        let lastRow = max(0, (count - 1) / layout.tilesAcross)
        if row < topRow { topRow = row }
        if row >= topRow + layout.tilesDown { topRow = row - layout.tilesDown + 1 }
        topRow = max(0, min(topRow, lastRow - layout.tilesDown + 1))
    }
}
