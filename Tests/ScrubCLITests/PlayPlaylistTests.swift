import Foundation
import Testing

extension PlayTmuxTests {
    /// A folder plays in natural order (clip2 before clip10), one entry after another; a file that cannot be played
    /// is skipped with a notice and the rest play; `<` goes back (over the broken one); quitting prints the skipped
    /// file's line and exits 1.
    @Test func aFolderPlaysInNaturalOrderSkippingABrokenFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-playlist-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for n in [1, 2, 10] {
            let made = try Scrub.execute(
                "ffmpeg",
                [
                    "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1.5",
                    "-c:v", "libx264", "-g", "25", "\(dir)/clip\(n).mp4",
                ])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let noise = Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        try #require(FileManager.default.createFile(atPath: "\(dir)/clip3.mp4", contents: noise))
        try #require(FileManager.default.createFile(atPath: "\(dir)/notes.txt", contents: Data("not media".utf8)))
        let base = "scrubtest7\(getpid())"
        defer { stop(base) }
        let name = start(base, "'\(dir)' --graphics none", cols: 200)
        var s = waitFor(name) { $0.contains("1/4 clip1.mp4") }
        #expect(s.contains("1/4 clip1.mp4"), "the first entry, named with its place: \(s)")
        s = waitFor(name) { $0.contains("2/4 clip2.mp4") }
        #expect(s.contains("2/4 clip2.mp4"), "its end starts the next (clip2 before clip10): \(s)")
        s = waitFor(name) { $0.contains("4/4 clip10.mp4") }
        #expect(s.contains("4/4 clip10.mp4"), "\(s)")
        #expect(s.contains("skipped 3/4 clip3.mp4"), "the broken file is skipped with a notice: \(s)")
        s = waitFor(name) { $0.contains("paused") && Tmux.shownSeconds($0) == 1.5 }
        #expect(s.contains("paused"), "the last entry pauses at its end: \(s)")
        Tmux.run(["send-keys", "-t", name, "<"])
        s = waitFor(name) { $0.contains("2/4 clip2.mp4") }
        #expect(s.contains("2/4 clip2.mp4"), "< goes back over the broken file: \(s)")
        Tmux.run(["send-keys", "-t", name, "q"])
        s = waitFor(name) { $0.contains("EXITED:") }
        #expect(s.contains("EXITED:1"), "a skipped file makes the exit status 1: \(s)")
        #expect(s.contains("scrubkit: \(dir)/clip3.mp4: "), "its line, after the screen is restored: \(s)")
    }

    /// A playlist whose every entry is broken ends with a line for each and status 1, even when it loops.
    @Test func aPlaylistOfOnlyBrokenFilesEnds() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-broken-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for n in 1...2 {
            let junk = Data(repeating: 0x42, count: 2000)
            try #require(FileManager.default.createFile(atPath: "\(dir)/bad\(n).mkv", contents: junk))
        }
        let base = "scrubtest8\(getpid())"
        defer { stop(base) }
        // --loop-playlist too: it must still end, not go round the broken files for ever.
        let name = start(base, "'\(dir)/bad1.mkv' '\(dir)/bad2.mkv' --loop-playlist --graphics none", cols: 200)
        let s = waitFor(name) { $0.contains("EXITED:") }
        #expect(s.contains("EXITED:1") && s.contains("bad1.mkv: ") && s.contains("bad2.mkv: "), "\(s)")
    }
}

extension PlayTmuxTests {
    /// `<` from the second entry when the first cannot be played: it is skipped again and the second plays on (the
    /// player does not end).
    @Test func goingBackOverABrokenFirstEntryComesBack() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-back-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #require(
            FileManager.default.createFile(
                atPath: "\(dir)/a-broken.mp4",
                contents: Data(repeating: 7, count: 3000)))
        let made = try Scrub.execute(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=6", "-c:v", "libx264",
                "\(dir)/b-good.mp4",
            ])
        try #require(made.status == 0, "\(made.stderr)")
        let base = "scrubtest12\(getpid())"
        defer { stop(base) }
        let name = start(base, "'\(dir)/a-broken.mp4' '\(dir)/b-good.mp4' --graphics none", cols: 200)
        var s = waitFor(name) { $0.contains("2/2 b-good.mp4") }
        #expect(s.contains("2/2 b-good.mp4"), "the broken first entry skipped: \(s)")
        Tmux.run(["send-keys", "-t", name, "<"])
        usleep(1_500_000)
        s = screen(name)
        #expect(s.contains("2/2 b-good.mp4") && !s.contains("EXITED"), "back on the second, still playing: \(s)")
        Tmux.run(["send-keys", "-t", name, "q"])
        #expect(waitFor(name) { $0.contains("EXITED:") }.contains("EXITED:1"), "one entry was skipped")
    }
}
