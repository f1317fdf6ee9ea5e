import Foundation
import ScrubKit

/// Drawing `scrubkit browse`'s screen: the header, the tiles on screen (each only when what it shows changed), the
/// frame round the selection and the info line.
extension BrowseApp {
    func draw() {
        guard let loader else { return }
        if let panel = infoPanel { return drawPanel(panel) }
        let visible = selection.visible(layout)
        let changes = loader.changes
        if changes != loaderChanges || wantedFor != visible {
            loaderChanges = changes
            wantedFor = visible
            loader.want(selection.wanted(layout).compactMap { entries[$0].pictureSource })
        }
        var out = header(loader)
        let motionFrame = movingFrame()
        for (slot, index) in visible.enumerated() {
            let entry = entries[index]
            let state = entry.pictureSource.flatMap { loader.state(for: $0) }   // (a folder: its cover's)
            var picture: RGBImage? = nil, key = "", caption: String? = nil
            if case .ready(_, let image)? = state { picture = image; key = "ready" }
            if case .failed? = state { key = "failed" }
            if let s = scrub, s.index == index, let answer = scrubPictures?.newest {
                picture = answer.thumbnail.image
                key = "scrub\(answer.serial)"
                caption = "▸ " + answer.requested.formatted(fractionDigits: 0)
            } else if index == selection.index, let (n, image) = motionFrame {
                picture = image
                key = "motion\(n)"
            }
            let signature = "\(entry.path)|\(key)|\(index == selection.index)|\(caption ?? "")"
            guard drawnSlots[slot] != signature else { continue }
            drawnSlots[slot] = signature
            out += tile(
                slot: slot, entry: entry, state: state, picture: picture, caption: caption,
                selected: index == selection.index)
        }
        if drawnFrame != selection.index - visible.lowerBound {
            if let old = drawnFrame { out += frame(slot: old, drawn: false) }
            drawnFrame = visible.contains(selection.index) ? selection.index - visible.lowerBound : nil
            if let slot = drawnFrame { out += frame(slot: slot, drawn: true) }
        }
        out += infoLine(loader)
        guard !out.isEmpty else { return }
        terminal.write(renderer.writesPicturesUnsynchronized ? out : "\u{1B}[?2026h" + out + "\u{1B}[?2026l")
    }

    /// The header: what is browsed, how many, the order and filter, and how many tiles are still coming.
    func header(_ loader: TileLoader) -> String {
        let folders = entries.filter(\.isFolder).count
        var text =
            " " + (folder.map { Redaction.display($0) } ?? "\(listing.all.count) files")
            + "  · " + BrowseApp.count(entries.count - folders, "file")
            + (folders > 0 ? ", " + BrowseApp.count(folders, "folder") : "") + " · order: \(order.rawValue)"
        if !filter.isEmpty || filtering { text += " · filter: \(filter)" }
        let pending = loader.pending
        if pending > 0 { text += " · making " + BrowseApp.count(pending, "tile") + "…" }
        guard text != drawnHeader else { return "" }
        drawnHeader = text
        return "\u{1B}[1;1H\u{1B}[0m\u{1B}[2K\u{1B}[1m" + BrowseApp.fitted(text, layout.columns) + "\u{1B}[0m"
    }

    /// One tile: its picture (or what stands for it) centred in the picture rows, and the name line under it.
    func tile(
        slot: Int, entry: BrowseEntry, state: TileLoader.State?, picture: RGBImage?, caption: String?, selected: Bool
    ) -> String {
        let (column, row) = layout.origin(ofSlot: slot)
        let blank = String(repeating: " ", count: layout.tileWidth)
        var out = "\u{1B}[0m"
        for r in 0...layout.pictureRows { out += "\u{1B}[\(row + r + 1);\(column + 1)H" + blank }
        if let picture, renderer.drawsPictures {
            let cell = renderer.cellGeometry(cellPixels)
            let fit = renderer.pixelSize(columns: layout.tileWidth, rows: layout.pictureRows, cellPixels: cellPixels,
                                         aspect: Double(picture.width) / Double(max(1, picture.height)))
            var image = picture
            if (picture.width > fit.width || picture.height > fit.height), fit.width > 0, fit.height > 0,
               let smaller = try? picture.resized(width: fit.width, height: fit.height) { image = smaller }
            let used = ((image.width + cell.width - 1) / cell.width, (image.height + cell.height - 1) / cell.height)
            out += renderer.drawTile(
                image, column: column + max(0, (layout.tileWidth - used.0) / 2),
                row: row + max(0, (layout.pictureRows - used.1) / 2), slot: slot, cellPixels: cellPixels)
        } else {
            let text: String
            switch state {
            case _ where entry.isFolder: text = "▸ folder"
            case .failed(let why)?: text = "⚠ " + why
            case .ready(let facts, _)?:
                text = facts.width == 0 ? "♪ " + facts.codec : "\(facts.codec) \(facts.width)×\(facts.height)"
            case nil: text = "…"
            }
            let lines = SubtitleText([text], width: layout.tileWidth, maxRows: layout.pictureRows).rows
            for (i, line) in lines.enumerated() {
                let r = row + (layout.pictureRows - lines.count) / 2 + i
                out +=
                    "\u{1B}[\(r + 1);\(column + 1 + max(0, (layout.tileWidth - line.count) / 2))H"
                    + (entry.isFolder ? "\u{1B}[1m" : "\u{1B}[2m") + line + "\u{1B}[0m"
            }
        }
        // The name line: the name, and the length (or the scrubbed time) at the right.
        var right = caption ?? ""
        if right.isEmpty, case .ready(let facts, _)? = state { right = facts.durationText ?? "" }
        if entry.isFolder { right = "/" }
        let nameWidth = max(1, layout.tileWidth - (right.isEmpty ? 0 : right.count + 1))
        var line = BrowseApp.fitted(entry.name, nameWidth)
        line += String(repeating: " ", count: max(0, layout.tileWidth - line.count - right.count)) + right
        out +=
            "\u{1B}[\(row + layout.pictureRows + 1);\(column + 1)H" + (selected ? "\u{1B}[7m" : "") + line + "\u{1B}[0m"
        return out
    }

    /// The frame round slot `slot` (in the gaps between tiles), or spaces where it was.
    func frame(slot: Int, drawn: Bool) -> String {
        let (column, row) = layout.origin(ofSlot: slot)
        let w = layout.tileWidth, h = layout.pictureRows + 1
        let line = String(repeating: drawn ? "─" : " ", count: w)
        let (top, bottom, side) =
            drawn ? ("┌" + line + "┐", "└" + line + "┘", "│") : (" " + line + " ", " " + line + " ", " ")
        var out = "\u{1B}[0m" + (drawn ? "\u{1B}[33m" : "") + "\u{1B}[\(row);\(column)H" + top
        for r in 0..<h {
            out += "\u{1B}[\(row + r + 1);\(column)H\(side)\u{1B}[\(row + r + 1);\(column + w + 1)H\(side)"
        }
        return out + "\u{1B}[\(row + h + 1);\(column)H" + bottom + "\u{1B}[0m"
    }

    /// The bottom line: the filter being typed, a passing notice, or the selection's path, length, size, codec and
    /// picture size.
    func infoLine(_ loader: TileLoader) -> String {
        var text: String
        if filtering {
            text = "/" + filter + "▏  (Enter keeps it, Esc clears it)"
        } else if let n = notice, options.clock.now() < n.until {
            text = n.text
        } else if entries.indices.contains(selection.index) {
            let e = entries[selection.index]
            text = Redaction.display(e.path)
            if e.isFolder { text += "/  (Enter opens it)" }
            else {
                switch loader.state(for: e.path) {
                case .failed(let why)?: text += " · " + why
                default:
                    if let f = loader.facts(for: e.path) {
                        text +=
                            (f.durationText.map { " · " + $0 } ?? "") + " · " + BrowseApp.bytes(e.size) + " · "
                            + f.codec
                            + (f.width > 0 ? " \(f.width)×\(f.height)" : "")
                    } else { text += " · " + BrowseApp.bytes(e.size) }
                }
            }
        } else {
            text =
                filter.isEmpty ? "nothing to show here (Backspace goes up, q quits)" : "no name contains \"\(filter)\""
        }
        guard text != drawnInfo else { return "" }
        drawnInfo = text
        return "\u{1B}[\(layout.infoRow + 1);1H\u{1B}[0m\u{1B}[2K" + BrowseApp.fitted(text, layout.columns)
    }

    /// `i`'s lines over the grid.
    func drawPanel(_ lines: [String]) {
        guard drawnHeader != "panel" else { return }
        drawnHeader = "panel"
        var out = renderer.clearTiles() + "\u{1B}[0m\u{1B}[2J"
        for (i, line) in lines.prefix(layout.rows - 1).enumerated() {
            out += "\u{1B}[\(i + 1);1H" + BrowseApp.fitted(line, layout.columns)
        }
        out += "\u{1B}[\(layout.rows);1H\u{1B}[2m(any key returns to the grid)\u{1B}[0m"
        terminal.write(out)
    }

    /// `text` cut to `width` characters (an ellipsis where cut), control characters left out (a file name cannot
    /// send escape codes).
    static func fitted(_ text: String, _ width: Int) -> String {
        let clean = SubtitleText.printable(text)
        guard clean.count > width else { return clean }
        return width <= 1 ? String(clean.prefix(width)) : String(clean.prefix(width - 1)) + "…"
    }

    /// "1 file", "2 files".
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)" + (n == 1 ? "" : "s") }

    /// "512 B", "3.4 KB", "12.3 MB", "1.2 GB".
    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var v = Double(n), u = 0
        while v >= 1000 && u < units.count - 1 { v /= 1000; u += 1 }
        return u == 0 ? "\(n) B" : String(format: "%.1f %@", v, units[u])
    }
}
