import Foundation
import ScrubKit

/// `scrubkit browse`'s keys and mouse: moving the selection, the filter, the order, folders, info, and scrubbing by
/// hover.
extension BrowseApp {
    func handle(_ e: InputEvent) {
        if infoPanel != nil {   // any key returns to the grid
            if case .mouse(_, _, _, _) = e { return }
            infoPanel = nil
            invalidate()
            return
        }
        if filtering { return typeFilter(e) }
        switch e {
        case .character("q"), .character("Q"), .escape, .interrupt: quit.store(true, ordering: .relaxed)
        case .left, .character("h"): move(by: -1)
        case .right, .character("l"): move(by: 1)
        case .up, .character("k"): move(by: -layout.tilesAcross)
        case .down, .character("j"): move(by: layout.tilesAcross)
        case .pageUp: move(by: -layout.tilesPerScreen)
        case .pageDown: move(by: layout.tilesPerScreen)
        case .home, .character("g"): move(by: -selection.count)
        case .end, .character("G"): move(by: selection.count)
        case .character("\r"), .character("\n"): open()
        case .character("\u{7F}"), .character("\u{08}"): goUp()
        case .character("/"): filtering = true; drawnInfo = ""; drawnHeader = ""
        case .character("o"), .character("O"):
            order = order.next
            refreshEntries(keeping: nil)
            notice = (
                "order: \(order.rawValue)"
                    + (order == .duration ? " (files whose length is not known yet go last)" : ""),
                options.clock.now() + 3
            )
        case .character("i"), .character("I"):
            guard entries.indices.contains(selection.index), !entries[selection.index].isFolder else { return }
            infoPanel = options.describe(entries[selection.index].path)
        case .suspend:
            stopMotion()
            terminal.suspend()
            resized.store(true, ordering: .relaxed)
        case .mouse(let button, let column, let row, let pressed):
            mouse(button: button, column: column, row: row, pressed: pressed)
        default: break
        }
    }

    /// The selection moved by `step` tiles (the frame and the scrolled rows follow).
    func move(by step: Int) {
        let before = (selection.index, selection.topRow)
        selection.move(by: step, in: layout)
        guard (selection.index, selection.topRow) != before else { return }
        if selection.topRow != before.1 { invalidate() }
        stopMotion()
        endScrub()
    }

    /// Typing the filter: characters narrow the grid as they come, Backspace takes one back, Enter keeps the
    /// filter, Esc clears it.
    func typeFilter(_ e: InputEvent) {
        switch e {
        case .character("\r"), .character("\n"): filtering = false
        case .escape, .interrupt: filtering = false; filter = ""
        case .character("\u{7F}"), .character("\u{08}"): if !filter.isEmpty { filter.removeLast() }
        case .character(let c) where !c.isNewline && (c.asciiValue.map { $0 >= 0x20 } ?? true): filter.append(c)
        default: return
        }
        drawnInfo = ""
        refreshEntries(keeping: nil)
    }

    /// Enter: a folder is gone into; a file plays, with the grid's files as the playlist.
    func open() {
        guard entries.indices.contains(selection.index) else { return }
        let entry = entries[selection.index]
        if entry.isFolder { return enter(folder: entry.path, selecting: nil) }
        play(entry)
    }

    /// Shows `path`'s files and folders; `selecting` names the tile to select (else the first).
    func enter(folder path: String, selecting name: String?) {
        do {
            let new = try BrowseListing(folder: path, recursive: options.recursive)
            if let current = folder, name == nil { trail.append((current, (path as NSString).lastPathComponent)) }
            (folder, listing, filter) = (path, new, "")
            refreshEntries(keeping: name.map { (path as NSString).appendingPathComponent($0) })
        } catch let e as MediaError {
            notice = (e.description, options.clock.now() + 5)
        } catch {
            notice = ("\(path): \(error)", options.clock.now() + 5)
        }
    }

    /// Backspace: the folder this one was entered from (or its parent), with the folder just left selected.
    func goUp() {
        guard let current = folder, !options.recursive else { return }
        if let last = trail.popLast() { return enter(folder: last.folder, selecting: last.name) }
        let absolute = URL(fileURLWithPath: current).standardizedFileURL.path
        let parent = (absolute as NSString).deletingLastPathComponent
        guard !parent.isEmpty, parent != absolute else { return }
        enter(folder: parent, selecting: (absolute as NSString).lastPathComponent)
    }

    func mouse(button: Int, column: Int, row: Int, pressed: Bool) {
        let hit = layout.slot(atColumn: column, row: row).flatMap {
            h -> (index: Int, fraction: Double, onPicture: Bool)? in
            let i = selection.visible(layout).lowerBound + h.slot
            return i < selection.visible(layout).upperBound ? (i, h.fraction, h.onPicture) : nil
        }
        if button & 64 != 0 && pressed {   // the wheel: a row at a time
            return move(by: button & 1 == 0 ? -layout.tilesAcross : layout.tilesAcross)
        }
        if button & 32 != 0 && button & 3 == 3 {   // the pointer moved, no button held: scrub the tile under it
            guard let hit, hit.onPicture, !entries[hit.index].isFolder else { return endScrub() }
            return scrub(index: hit.index, fraction: hit.fraction)
        }
        guard pressed, button == 0, let hit else { return }
        if hit.index == selection.index { return open() }   // a click on the selected tile opens it
        move(by: hit.index - selection.index)
    }
}
