import Foundation
import Testing

extension PlayTmuxTests {
    /// `s` saves the frame at the playhead at the video's own size into --screenshot-dir, named by its time, with the
    /// pixels `thumb --exact --max-size 0` gives for that time; a second `s` never overwrites (NAME-2).
    @Test func screenshotKeepsTheFrameAsThumbExactDoes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-shot-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let base = "scrubtest6\(getpid())"
        defer { stop(base) }
        let name = start(base, "'\(sample)' --graphics none --screenshot-dir '\(dir)'", cols: 160)
        _ = waitFor(name) { Tmux.shownSeconds($0) != nil }
        Tmux.run(["send-keys", "-t", name, " "])
        _ = waitFor(name) { $0.contains("paused") }
        // 30 % of 8 s: 2.4 s, a frame between keyframes (every 2 s).
        Tmux.run(["send-keys", "-t", name, "3"])
        _ = settled(name, at: 2.4)
        Tmux.run(["send-keys", "-t", name, "s"])
        var s = waitFor(name, timeout: 15) { $0.contains("screenshot: ") || $0.contains("screenshot failed") }
        let file = "h264_gop2s-00h00m02.400s.png"
        #expect(s.contains("screenshot: \(dir)/\(file)"), "\(s)")
        let reference = dir + "/reference.png"
        let thumb = try Scrub.run(["thumb", sample, "--at", "2.4", "--exact", "--max-size", "0", "-o", reference])
        #expect(thumb.status == 0, "\(thumb.stderr)")
        let shot = FileManager.default.contents(atPath: dir + "/" + file)
        #expect(
            shot != nil && shot == FileManager.default.contents(atPath: reference), "the same pixels as thumb --exact")
        let probe = try Scrub.execute(
            "ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", dir + "/" + file])
        let video = try Scrub.execute(
            "ffprobe",
            ["-v", "error", "-select_streams", "v", "-show_entries", "stream=width,height", "-of", "csv=p=0", sample])
        #expect(
            probe.stdout == video.stdout && !probe.stdout.isEmpty,
            "the video's own size: \(probe.stdout) vs \(video.stdout)")
        Tmux.run(["send-keys", "-t", name, "s"])
        s = waitFor(name, timeout: 15) { $0.contains("02.400s-2.png") }
        #expect(FileManager.default.fileExists(atPath: dir + "/h264_gop2s-00h00m02.400s-2.png"), "\(s)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }.isEmpty,
            "no temporary file left")
        Tmux.run(["send-keys", "-t", name, "q"])
        #expect(waitFor(name) { $0.contains("EXITED:") }.contains("EXITED:0"))
    }

    /// A file whose picture starts late (an MPEG-TS at 6.4 s): the screenshot is the picture on screen — the one at
    /// 6.4 + 0.9 s of its presentation timeline — named by the time from the start, 0.9 s. (It was taken at 0.9 s of
    /// the presentation timeline: before the first picture, so the first.)
    @Test func aScreenshotOfAFileStartingLateIsThePictureOnScreen() throws {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("scrubkit-shot-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = Scrub.packageRoot.appendingPathComponent("samples/ts_late_start.ts").path
        let base = "scrubtest7\(getpid())"
        defer { stop(base) }
        let name = start(base, "'\(clip)' --graphics none --screenshot-dir '\(dir)'", cols: 160)
        _ = waitFor(name) { Tmux.shownSeconds($0) != nil }
        Tmux.run(["send-keys", "-t", name, " "])
        _ = waitFor(name) { $0.contains("paused") }
        Tmux.run(["send-keys", "-t", name, "3"])   // 30 % of 3 s, from the start at 6.4 s
        _ = settled(name, at: 0.9)
        Tmux.run(["send-keys", "-t", name, "s"])
        let s = waitFor(name, timeout: 15) { $0.contains("screenshot: ") || $0.contains("screenshot failed") }
        let file = dir + "/ts_late_start-00h00m00.900s.png"
        #expect(s.contains("screenshot: \(file)"), "\(s)")
        let reference = dir + "/reference.png"
        let thumb = try Scrub.run(["thumb", clip, "--at", "7.3", "--exact", "--max-size", "0", "-o", reference])
        #expect(thumb.status == 0, "\(thumb.stderr)")
        let shot = FileManager.default.contents(atPath: file)
        #expect(shot != nil && shot == FileManager.default.contents(atPath: reference),
                "thumb --exact's picture at 7.3 s")
        Tmux.run(["send-keys", "-t", name, "q"])
        #expect(waitFor(name) { $0.contains("EXITED:") }.contains("EXITED:0"))
    }
}
