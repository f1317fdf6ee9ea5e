@testable import ScrubKit
import Foundation
import ScrubTerminal
import Testing

/// `browse`'s grid as plain values: the layout at many window sizes, the selection and what is fetched next.
@Suite struct BrowseLayoutTests {
    /// At every window size and cell size, tiles (with the frame round them) stay inside the grid's rows and the
    /// window's columns, at least one tile shows, and every cell of a picture hit-tests back to its own slot.
    @Test func tilesFitEveryWindowAndHitTestBack() {
        let cells = [
            CellGeometry(width: 8, height: 16, wholeCells: false),
            CellGeometry(width: 10, height: 20, wholeCells: false),
            CellGeometry(width: 5, height: 10, wholeCells: false), CellGeometry(width: 1, height: 2, wholeCells: true),
        ]
        for cell in cells {
            for columns in stride(from: 8, through: 320, by: 13) {
                for rows in stride(from: 5, through: 120, by: 7) {
                    let l = BrowseLayout(columns: columns, rows: rows, cell: cell)
                    #expect(l.tilesAcross >= 1 && l.tilesDown >= 1 && l.tileWidth >= 6 && l.pictureRows >= 1)
                    let last = l.origin(ofSlot: l.tilesPerScreen - 1)
                    // The right frame column and the bottom frame row of the last tile.
                    #expect(last.column + l.tileWidth < max(8, columns), "\(columns)×\(rows) \(cell): \(l)")
                    if rows >= 8 {
                        #expect(last.row + l.pictureRows + 1 < l.infoRow, "\(columns)×\(rows) \(cell): \(l)")
                    }
                    for slot in [0, l.tilesPerScreen / 2, l.tilesPerScreen - 1] {
                        let o = l.origin(ofSlot: slot)
                        let hit = l.slot(atColumn: o.column + l.tileWidth - 1, row: o.row)
                        #expect(hit?.slot == slot && hit?.onPicture == true && hit?.fraction == 1)
                        #expect(
                            l.slot(atColumn: o.column, row: o.row + l.pictureRows)?.onPicture == false, "the name line")
                        #expect(l.slot(atColumn: o.column + l.tileWidth, row: o.row) == nil, "the gap between tiles")
                    }
                }
            }
        }
    }

    /// Wider tiles in pixels mean fewer across; 16:9 pictures take about 9/16 of a tile's pixel width in rows.
    @Test func tileSizeFollowsThePixels() {
        let cell = CellGeometry(width: 10, height: 20, wholeCells: false)
        let small = BrowseLayout(columns: 200, rows: 60, cell: cell, tilePixels: 120)
        let large = BrowseLayout(columns: 200, rows: 60, cell: cell, tilePixels: 400)
        #expect(small.tilesAcross > large.tilesAcross)
        let pixelsDown = Double(large.pictureRows * cell.height), wanted = Double(large.tileWidth * cell.width) * 9 / 16
        #expect(Swift.abs(pixelsDown - wanted) <= Double(cell.height), "\(large)")
    }
}

@Suite struct BrowseSelectionTests {
    let layout = BrowseLayout(columns: 100, rows: 40, cell: CellGeometry(width: 10, height: 20, wholeCells: false))

    /// Moves stop at the ends and scroll by whole rows just enough to keep the selection on screen.
    @Test func movesKeepTheSelectionOnScreen() {
        var s = BrowseSelection(count: 1000)
        for step in [1, 5, -3, layout.tilesAcross, layout.tilesPerScreen, 400, -layout.tilesPerScreen, 2000, -5000] {
            s.move(by: step, in: layout)
            #expect(s.visible(layout).contains(s.index), "\(step): \(s)")
            #expect((0..<1000).contains(s.index))
        }
        s.move(by: 5000, in: layout)
        #expect(s.index == 999 && s.visible(layout).upperBound == 1000)
        #expect(
            s.visible(layout).count > layout.tilesPerScreen - layout.tilesAcross, "no empty rows below the last tile")
        s.update(count: 3, layout: layout)
        #expect(s.index == 2 && s.topRow == 0 && s.visible(layout) == 0..<3)
        s.update(count: 0, layout: layout)
        #expect(s.index == 0 && s.visible(layout).isEmpty && s.wanted(layout).isEmpty)
    }

    /// The screen's tiles first, nearest the selection first, then the next screen, then the one before; each once.
    @Test func wantedStartsAtTheSelectionThenTheNextScreen() {
        var s = BrowseSelection(count: 1000)
        s.select(layout.tilesPerScreen * 3 + 2, in: layout)
        let wanted = s.wanted(layout), shown = s.visible(layout)
        #expect(wanted.first == s.index)
        #expect(Set(wanted.prefix(shown.count)) == Set(shown))
        #expect(
            Array(wanted.dropFirst(shown.count).prefix(layout.tilesPerScreen))
                == Array(shown.upperBound..<shown.upperBound + layout.tilesPerScreen))
        #expect(wanted.count == 3 * layout.tilesPerScreen && Set(wanted).count == wanted.count)
    }
}

@Suite struct BrowseListingTests {
    /// Folders first, then playable files in natural order; hidden entries and other files left out; the filter
    /// ignores case; the orders sort by date, size and known length.
    @Test func listsOrdersAndFilters() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-listing-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir + "/zeta", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/.hidden", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, size, age) in [
            ("clip10.mp4", 300, 10.0), ("Clip2.mkv", 100, 30.0), ("song.mp3", 200, 20.0), ("notes.txt", 50, 0.0),
            (".secret.mp4", 10, 0.0),
        ] {
            _ = FileManager.default.createFile(atPath: "\(dir)/\(name)", contents: Data(count: size))
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -age * 3600)], ofItemAtPath: "\(dir)/\(name)")
        }
        _ = FileManager.default.createFile(atPath: "\(dir)/zeta/b10.mkv", contents: Data(count: 10))
        _ = FileManager.default.createFile(atPath: "\(dir)/zeta/b9.webm", contents: Data(count: 10))
        _ = FileManager.default.createFile(atPath: "\(dir)/zeta/a.txt", contents: Data(count: 10))
        let listing = try BrowseListing(folder: dir)
        #expect(
            listing.all.first?.pictureSource == "\(dir)/zeta/b9.webm", "a folder's picture: its first playable file")
        #expect(listing.all.last?.pictureSource == listing.all.last?.path)
        #expect(listing.entries(order: .name).map(\.name) == ["zeta", "Clip2.mkv", "clip10.mp4", "song.mp3"])
        #expect(listing.entries(order: .date).map(\.name) == ["zeta", "clip10.mp4", "song.mp3", "Clip2.mkv"])
        #expect(listing.entries(order: .size).map(\.name) == ["zeta", "clip10.mp4", "song.mp3", "Clip2.mkv"])
        let lengths = ["\(dir)/song.mp3": 200.0, "\(dir)/Clip2.mkv": 5.0]
        #expect(
            listing.entries(order: .duration, duration: { lengths[$0] }).map(\.name) == [
                "zeta", "song.mp3", "Clip2.mkv", "clip10.mp4",
            ])
        #expect(listing.entries(order: .name, filter: "CLIP").map(\.name) == ["Clip2.mkv", "clip10.mp4"])
        let flat = try BrowseListing(folder: dir, recursive: true).all
        #expect(flat.allSatisfy { !$0.isFolder } && flat.contains { $0.name == "zeta/b9.webm" })
        #expect(throws: MediaError.self) { try BrowseListing(folder: dir + "/missing") }
        #expect(BrowseOrder.name.next == .date && BrowseOrder.duration.next == .name)
    }
}
