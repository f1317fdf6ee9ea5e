import Foundation
import ScrubKit

/// Enter on a file: the player takes the screen with the grid's files as its playlist (`<`/`>` move through them in
/// the grid's order); when it quits, the grid comes back with the file last played selected.
extension BrowseApp {
    func play(_ entry: BrowseEntry) {
        let files = entries.filter { !$0.isFolder }.map(\.path)
        guard let start = files.firstIndex(of: entry.path) else { return }
        stopMotion()
        endScrub()
        // The keyboard and the screen are handed over: the player reads keys and draws until it quits.
        keyboard.stop()
        terminal.write(renderer.clearTiles())
        let app = PlayerApp(playlist: Playlist(entries: files, start: start), options: options.player)
        var played = entry.path
        do {
            _ = try app.run()
            played = app.path
            failures += app.failures
        } catch {
            notice = ("\(Redaction.display(entry.path)): \(error)", options.clock.now() + 6)
        }
        terminal.setUpAgain()
        startKeyboard()
        resized.store(true, ordering: .relaxed)
        if let i = entries.firstIndex(where: { $0.path == played }) { selection.select(i, in: layout) }
        if let last = app.failures.last { notice = (last, options.clock.now() + 6) }
    }
}
