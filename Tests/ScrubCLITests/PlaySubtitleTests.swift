import Foundation
import Testing

extension PlayTmuxTests {
    /// A clip with a SubRip stream (eng, default) and an ASS stream (fre, forced), and a subtitle file beside it.
    func subtitleClip(in dir: String) throws -> String {
        try "1\n00:00:00,500 --> 00:00:01,500\nHello <i>world</i>\n\n2\n00:00:02,000 --> 00:00:03,000\nSecond\n"
            .write(toFile: "\(dir)/a.srt", atomically: true, encoding: .utf8)
        try """
        [Script Info]
        ScriptType: v4.00+

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, \
        Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, \
        MarginR, MarginV, Encoding
        Style: Default,Arial,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,0

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
        Dialogue: 0,0:00:00.50,0:00:01.50,Default,,0,0,0,,{\\i1}Bonjour{\\i0} le\\Nmonde
        Dialogue: 0,0:00:00.50,0:00:02.50,Default,,0,0,0,,{\\pos(10,10)}SIGN

        """.write(toFile: "\(dir)/b.ass", atomically: true, encoding: .utf8)
        let made = try Scrub.execute(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=4", "-i", "\(dir)/a.srt",
                "-i", "\(dir)/b.ass", "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-g", "25", "-c:s:0",
                "srt",
                "-c:s:1", "ass", "-metadata:s:s:0", "language=eng", "-metadata:s:s:0", "title=English",
                "-metadata:s:s:1", "language=fre", "-disposition:s:0", "default", "-disposition:s:1", "forced",
                "\(dir)/clip.mkv",
            ])
        #expect(made.status == 0, "\(made.stderr)")
        try "1\n00:00:00,000 --> 00:00:04,000\nFrom the side\n".write(
            toFile: "\(dir)/clip.en.srt", atomically: true, encoding: .utf8)
        return "\(dir)/clip.mkv"
    }

    /// The subtitle file beside the video is shown first; j cycles to off and to the streams, Z shifts them, v hides
    /// them; the status line names the track.
    @Test func subtitlesShowAtTheirTimesAndFollowTheKeys() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-subs-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try subtitleClip(in: dir)
        let base = "scrubtest9\(getpid())"
        defer { stop(base) }
        let name = start(base, "'\(clip)' --graphics blocks", cols: 160, rows: 30)
        var s = waitFor(name) { $0.contains("From the side") }
        #expect(
            s.contains("From the side") && s.contains("sub 3/3 clip.en.srt"), "the file beside the video first: \(s)")
        Tmux.run(["send-keys", "-t", name, " "])
        _ = waitFor(name) { $0.contains("paused") }
        Tmux.run(["send-keys", "-t", name, "j"])
        // (The status line can say so a refresh before the rows are laid out again without subtitles.)
        s = waitFor(name) { $0.contains("sub off") && !$0.contains("From the side") }
        #expect(s.contains("sub off") && !s.contains("From the side"), "j after the last track: off: \(s)")
        Tmux.run(["send-keys", "-t", name, "j"])
        Tmux.run(["send-keys", "-t", name, "2"])   // 0.8 s
        s = settled(name, at: 0.8) { $0.contains("Hello world") }
        #expect(
            s.contains("Hello world") && s.contains("sub 1/3 eng \"English\" (default)"),
            "the SubRip stream at 0.8 s: \(s)")
        #expect(!s.contains("<i>"), "its tags are not shown")
        // Z five times: 0.5 s later, so the cue of 0.5–1.5 s shows from 1.0 s: not at 0.8 s.
        for _ in 0..<5 { Tmux.run(["send-keys", "-t", name, "Z"]) }
        s = waitFor(name) { !$0.contains("Hello world") && $0.contains("+0.5 s") }
        #expect(!s.contains("Hello world") && s.contains("+0.5 s"), "delayed: \(s)")
        Tmux.run(["send-keys", "-t", name, "3"])   // 1.2 s: shown again
        s = waitFor(name) { $0.contains("Hello world") }
        #expect(s.contains("Hello world"), "\(s)")
        Tmux.run(["send-keys", "-t", name, "v"])
        s = waitFor(name) { !$0.contains("Hello world") && $0.contains("(hidden)") }
        #expect(!s.contains("Hello world") && s.contains("(hidden)"), "v hides them: \(s)")
        Tmux.run(["send-keys", "-t", name, "q"])
        #expect(waitFor(name) { $0.contains("EXITED:") }.contains("EXITED:0"))
    }

    /// `--sid 2`: the ASS stream, reduced to its text (line break kept, the positioned sign left out), in every
    /// renderer's rows — here with no pictures at all.
    @Test func sidChoosesTheASSStreamShownAsText() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-sid-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try subtitleClip(in: dir)
        let base = "scrubtest10\(getpid())"
        defer { stop(base) }
        let name = start(base, "'\(clip)' --graphics none --sid 2", cols: 160, rows: 30)
        _ = waitFor(name) { Tmux.shownSeconds($0) != nil }
        Tmux.run(["send-keys", "-t", name, " "])
        _ = waitFor(name) { $0.contains("paused") }
        Tmux.run(["send-keys", "-t", name, "2"])
        let s = settled(name, at: 0.8) { $0.contains("monde") }
        let rows = s.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(rows.contains("Bonjour le") && rows.contains("monde"), "two rows, as \\N breaks it: \(s)")
        #expect(!s.contains("SIGN"), "the positioned sign is left out")
        #expect(s.contains("sub 2/3 fre (forced)"), "\(s)")
        Tmux.run(["send-keys", "-t", name, "q"])
        #expect(waitFor(name) { $0.contains("EXITED:") }.contains("EXITED:0"))
    }
}

extension PlayTmuxTests {
    /// `S` saves the frame with the subtitles burned in: the same picture as `s` but for the text at the bottom.
    @Test func screenshotWithSubtitlesBurnsTheTextIn() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-shotsubs-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try subtitleClip(in: dir)
        let shots = dir + "/shots"
        let base = "scrubtest11\(getpid())"
        defer { stop(base) }
        let name = start(base, "'\(clip)' --graphics none --screenshot-dir '\(shots)'", cols: 160, rows: 30)
        _ = waitFor(name) { $0.contains("From the side") }
        Tmux.run(["send-keys", "-t", name, " "])
        _ = waitFor(name) { $0.contains("paused") }
        Tmux.run(["send-keys", "-t", name, "2"])
        _ = settled(name, at: 0.8)
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        Tmux.run(["send-keys", "-t", name, "s"])
        _ = waitFor(name, timeout: 15) { $0.contains("/clip-00h00m00.800s.png") }
        Tmux.run(["send-keys", "-t", name, "S"])
        let s = waitFor(name, timeout: 30) {
            $0.contains("/clip-00h00m00.800s-2.png") || $0.contains("screenshot failed")
        }
        #expect(s.contains("clip-00h00m00.800s-2.png"), "\(s)")
        let plain = try CutTests.rgb("\(shots)/clip-00h00m00.800s.png"),
            burned = try CutTests.rgb("\(shots)/clip-00h00m00.800s-2.png")
        let (plainCount, burnedCount) = (plain.count, burned.count)
        try #require(plainCount == 160 * 120 * 3 && burnedCount == plainCount)
        let changedRows = Set((0..<plain.count).filter { plain[$0] != burned[$0] }.map { $0 / (160 * 3) })
        #expect(!changedRows.isEmpty, "the text is burned in")
        #expect(changedRows.allSatisfy { $0 >= 60 }, "only at the bottom: rows \(changedRows.sorted())")
        Tmux.run(["send-keys", "-t", name, "q"])
        #expect(waitFor(name) { $0.contains("EXITED:") }.contains("EXITED:0"))
    }
}

extension PlayTmuxTests {
    /// `play --bench` shows the subtitles play would show first and measures their cost per picture.
    @Test func benchMeasuresSubtitles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-benchsubs-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try subtitleClip(in: dir)
        let r = try Scrub.run(["play", "--bench", clip, "--seconds", "2", "--seeks", "0", "--hovers", "0"])
        #expect(r.status == 0, "\(r.stderr)")
        let line =
            r.stdout.split(separator: "\n").first { $0.hasPrefix("subtitles  clip.en.srt: ") }.map(String.init) ?? ""
        let counts = line.firstMatch(of: /: (\d+) of (\d+) pictures with a subtitle; per picture p50 [0-9.]+ ms/)
        #expect(counts != nil && Int(counts!.1)! > 10 && Int(counts!.1)! <= Int(counts!.2)!, "\(r.stdout)")
    }
}
