import Foundation
import Testing

extension PlayTmuxTests {
    /// A folder with three clips (lengths 1.5 s, 3 s, 12 s), a subfolder and a broken file, laid out with a private
    /// cache folder.
    func browseFolder(_ tag: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-browse-\(tag)-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir + "/inside", withIntermediateDirectories: true)
        for (name, seconds) in [("alpha.mp4", "1.5"), ("bravo.mkv", "3"), ("charlie.mp4", "12")] {
            let made = try Scrub.execute(
                "ffmpeg",
                [
                    "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25:duration=\(seconds)",
                    "-c:v", "libx264", "-g", "25", "\(dir)/\(name)",
                ])
            try #require(made.status == 0, "\(made.stderr)")
        }
        try FileManager.default.copyItem(atPath: "\(dir)/alpha.mp4", toPath: "\(dir)/inside/delta.mp4")
        _ = FileManager.default.createFile(
            atPath: "\(dir)/broken.mp4", contents: Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }))
        _ = FileManager.default.createFile(atPath: "\(dir)/notes.txt", contents: Data("not media".utf8))
        return dir
    }

    /// The grid: tiles named with their lengths (folders first, notes.txt left out), the broken file's tile saying why,
    /// arrows moving the selection (the info line follows it), `/` filtering as typed, Enter going into a folder and
    /// Backspace back out of it onto that folder.
    @Test func browseShowsTilesMovesFiltersAndGoesIntoFolders() throws {
        let dir = try browseFolder("grid")
        defer {
            try? FileManager.default.removeItem(atPath: dir);
            try? FileManager.default.removeItem(atPath: dir + "-cache")
        }
        let base = "scrubtest20\(getpid())"
        defer { stop(base) }
        let name = start(
            base, "'\(dir)' --graphics blocks --no-audio", cols: 120, rows: 40, command: "browse",
            env: "XDG_CACHE_HOME='\(dir)-cache'")
        var s = waitFor(name) {
            $0.contains("charlie.mp4") && $0.contains("0:12") && $0.contains("0:03") && $0.contains("not a recognised")
                && !$0.contains("▸ folder")
        }
        #expect(!s.contains("▸ folder"), "the folder's tile shows its first file's picture: \(s)")
        #expect(
            s.contains("inside") && s.contains("alpha.mp4") && s.contains("bravo.mkv") && s.contains("0:01"),
            "tiles with lengths: \(s)")
        #expect(s.contains("not a recognised"), "the broken file's tile says why: \(s)")
        #expect(!s.contains("notes.txt"), "only playable files: \(s)")
        #expect(s.contains("4 files, 1 folder"), "the header counts them: \(s)")
        #expect(s.contains("\(dir)/inside/"), "the folder comes first and is selected: \(s)")
        Tmux.run(["send-keys", "-t", name, "Right"])
        s = waitFor(name) { $0.contains("\(dir)/alpha.mp4 · 0:01") }
        #expect(
            s.contains("\(dir)/alpha.mp4 · 0:01") && s.contains("h264 160×90"),
            "the info line follows the selection: \(s)")
        Tmux.run(["send-keys", "-t", name, "/", "c", "h"])
        s = waitFor(name) { $0.contains("filter: ch") && !$0.contains("bravo.mkv") }
        #expect(
            s.contains("charlie.mp4") && !s.contains("bravo.mkv") && !s.contains("alpha.mp4"),
            "the filter narrows as typed: \(s)")
        Tmux.run(["send-keys", "-t", name, "Escape"])
        s = waitFor(name) { $0.contains("bravo.mkv") }
        #expect(s.contains("bravo.mkv") && s.contains("alpha.mp4"), "Esc clears it: \(s)")
        Tmux.run(["send-keys", "-t", name, "Home", "Enter"])
        s = waitFor(name) { $0.contains("delta.mp4") }
        #expect(s.contains("delta.mp4") && !s.contains("charlie.mp4"), "Enter goes into the folder: \(s)")
        Tmux.run(["send-keys", "-t", name, "BSpace"])
        s = waitFor(name) { $0.contains("charlie.mp4") && $0.contains("inside/") }
        #expect(s.contains("\(dir)/inside/"), "Backspace comes back with the folder selected: \(s)")
        Tmux.run(["send-keys", "-t", name, "q"])
        s = waitFor(name) { $0.contains("EXITED:") }
        #expect(s.contains("EXITED:0"), "\(s)")
    }

    /// Enter plays the selected file with the grid's files as the playlist (its place shown, > moving to the next
    /// in the grid's order); q returns to the grid with the file last played selected.
    @Test func browseEnterPlaysTheFolderAndQReturns() throws {
        let dir = try browseFolder("play")
        defer {
            try? FileManager.default.removeItem(atPath: dir);
            try? FileManager.default.removeItem(atPath: dir + "-cache")
        }
        let base = "scrubtest21\(getpid())"
        defer { stop(base) }
        let name = start(
            base, "'\(dir)' --graphics blocks --no-audio", cols: 120, rows: 40, command: "browse",
            env: "XDG_CACHE_HOME='\(dir)-cache'")
        _ = waitFor(name) { $0.contains("0:12") }
        Tmux.run(["send-keys", "-t", name, "Right", "Right", "Enter"])   // bravo.mkv: the second file of four
        var s = waitFor(name) { $0.contains("2/4 bravo.mkv") }
        #expect(s.contains("2/4 bravo.mkv"), "the player, with the grid's files as its playlist: \(s)")
        Tmux.run(["send-keys", "-t", name, ">"])
        // (The status line names the skipped file for 6 s, then the one playing.)
        s = waitFor(name) { $0.contains("/ 0:12.0") }
        #expect(
            s.contains("skipped 3/4 broken.mp4") || s.contains("4/4 charlie.mp4"),
            "> goes on in the grid's order (over the broken file): \(s)")
        Tmux.run(["send-keys", "-t", name, "q"])
        s = waitFor(name) { $0.contains("\(dir)/charlie.mp4 · 0:12") }
        #expect(
            s.contains("\(dir)/charlie.mp4 · 0:12") && s.contains("bravo.mkv"),
            "back in the grid on the file last played: \(s)")
        Tmux.run(["send-keys", "-t", name, "Left", "Enter"])  // broken.mp4: skipped, on to charlie
        s = waitFor(name) { $0.contains("skipped 3/4 broken.mp4") }
        #expect(
            s.contains("skipped 3/4 broken.mp4") && s.contains("/ 0:12.0"), "the player skips the broken file: \(s)")
        Tmux.run(["send-keys", "-t", name, "q"])
        s = waitFor(name) { $0.contains("\(dir)/charlie.mp4 · 0:12") }
        Tmux.run(["send-keys", "-t", name, "q"])
        s = waitFor(name) { $0.contains("EXITED:") }
        #expect(
            s.contains("EXITED:1") && s.contains("broken.mp4: "),
            "a file the player skipped is reported after the grid: \(s)")
    }

    /// Moving the pointer across a tile scrubs through its video: the time under the name follows the pointer's x.
    @Test func browseHoverScrubsThroughATile() throws {
        let dir = try browseFolder("scrub")
        defer {
            try? FileManager.default.removeItem(atPath: dir);
            try? FileManager.default.removeItem(atPath: dir + "-cache")
        }
        let base = "scrubtest22\(getpid())"
        defer { stop(base) }
        let name = start(
            base, "'\(dir)' --graphics blocks --no-audio --no-previews", cols: 120, rows: 40, command: "browse",
            env: "XDG_CACHE_HOME='\(dir)-cache'")
        _ = waitFor(name) { $0.contains("0:12") }
        // charlie.mp4 (12 s) is the fifth tile: the second row's first (5 across at 120 columns? found from the
        // screen).
        let s0 = screen(name)
        let lines = s0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let row = try #require(lines.firstIndex { $0.contains("charlie.mp4") }, "\(s0)")
        let column = try #require(
            lines[row].range(of: "charlie.mp4").map {
                lines[row].distance(from: lines[row].startIndex, to: $0.lowerBound)
            })
        let width = try #require(
            lines[row].dropFirst(column).range(of: "0:12").map {
                lines[row].distance(from: lines[row].startIndex, to: $0.upperBound) - column
            })
        func hover(_ fraction: Double) {
            Tmux.run([
                "send-keys", "-t", name, "-l",
                "\u{1B}[<35;\(column + 1 + Int(Double(width - 1) * fraction));\(row - 1)M",
            ])
        }
        hover(0.05)
        var s = waitFor(name) { $0.contains("▸ 0:00") }
        #expect(s.contains("▸ 0:00"), "near the left edge: the start: \(s)")
        hover(0.55)
        s = waitFor(name) { $0.contains("▸ 0:06") }
        #expect(s.contains("▸ 0:06"), "past the middle: about half of 12 s: \(s)")
        hover(1.0)
        s = waitFor(name) { $0.contains("▸ 0:12") || $0.contains("▸ 0:11") }
        #expect(s.contains("▸ 0:12") || s.contains("▸ 0:11"), "the right edge: the end: \(s)")
        Tmux.run(["send-keys", "-t", name, "-l", "\u{1B}[<35;2;2M"])   // off the tiles: the length again
        s = waitFor(name) { !$0.contains("▸ 0:") }
        #expect(!s.contains("▸ 0:") && s.contains("0:12"), "\(s)")
        Tmux.run(["send-keys", "-t", name, "q"])
    }
}
