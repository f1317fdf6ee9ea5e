import Foundation
import Testing

extension PlayTmuxTests {
    /// `l` marks A, then B (A and B on the bar; playback loops between them), `c` cuts the section into --cut-dir
    /// without re-encoding and the status line says so; `l` again clears the loop.
    @Test func abLoopKeepsPlaybackBetweenItsMarksAndCutWritesTheSection() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-abcut-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let base = "scrubtest5\(getpid())"
        defer { stop(base) }
        let name = start(base, "'\(sample)' --graphics none --cut-dir '\(dir)'", cols: 160)
        _ = waitFor(name) { Tmux.shownSeconds($0) != nil }
        Tmux.run(["send-keys", "-t", name, " "])
        _ = waitFor(name) { $0.contains("paused") }
        // A at 20 % (1.6 s), B at 50 % (4.0 s): digits land exactly.
        Tmux.run(["send-keys", "-t", name, "2"])
        _ = settled(name, at: 1.6)
        Tmux.run(["send-keys", "-t", name, "l"])
        var s = waitFor(name) { $0.contains("A 0:01.6") }
        #expect(s.contains("A 0:01.6"), "A is marked: \(s)")
        Tmux.run(["send-keys", "-t", name, "5"])
        _ = settled(name, at: 4.0)
        Tmux.run(["send-keys", "-t", name, "l"])
        s = waitFor(name) { $0.contains("A-B 0:01.6–0:04.0") }
        #expect(s.contains("A-B 0:01.6–0:04.0"), "the loop is set: \(s)")
        // Playing: it stays between A and B (it is at B, so it goes back to A at once), for 3 s — more than a round.
        Tmux.run(["send-keys", "-t", name, " "])
        var seen: [Double] = []
        let end = Date().addingTimeInterval(3)
        while Date() < end {
            if let t = Tmux.shownSeconds(screen(name)) { seen.append(t) }
            usleep(100_000)
        }
        #expect(seen.count > 10 && seen.allSatisfy { $0 >= 1.5 && $0 <= 4.1 }, "between A and B: \(seen)")
        #expect(Set(seen.map { Int($0) }).count >= 2, "and moving: \(seen)")
        // (Paused at B, the knob covered it: now both letters show, A first.)
        Tmux.run(["send-keys", "-t", name, "1"])
        s = waitFor(name) { Tmux.shownSeconds($0) == 0.8 }
        let bar = s.split(separator: "\n").first { $0.contains("●") }.map(String.init) ?? ""
        #expect(
            bar.contains("A") && bar.contains("B") && bar.firstIndex(of: "A")! < bar.firstIndex(of: "B")!,
            "A and B on the bar: \(bar)")
        // c: the section, copied from the keyframe at or before A (0 s: keyframes every 2 s), named by its times.
        Tmux.run(["send-keys", "-t", name, "c"])
        s = waitFor(name, timeout: 15) { $0.contains("cut written") || $0.contains("cut failed") }
        #expect(
            s.contains("cut written: h264_gop2s-cut-00h00m01.600s-00h00m04.000s.mp4 (from the keyframe at 0:00.0)"),
            "\(s)")
        let cut = dir + "/h264_gop2s-cut-00h00m01.600s-00h00m04.000s.mp4"
        let probe = try Scrub.execute(
            "ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", cut])
        #expect(
            abs((Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 4.0) < 0.1,
            "0–4 s: \(probe.stdout) \(probe.stderr)")
        // A second c never overwrites: NAME-2.
        Tmux.run(["send-keys", "-t", name, "c"])
        s = waitFor(name, timeout: 15) { $0.contains("00h00m04.000s-2.mp4") }
        #expect(
            FileManager.default.fileExists(atPath: dir + "/h264_gop2s-cut-00h00m01.600s-00h00m04.000s-2.mp4"), "\(s)")
        // l again: cleared, it plays on past B.
        Tmux.run(["send-keys", "-t", name, "l"])
        s = waitFor(name) { (Tmux.shownSeconds($0) ?? 0) > 4.3 }
        #expect(!s.contains("A-B") && (Tmux.shownSeconds(s) ?? 0) > 4.3, "cleared: \(s)")
        Tmux.run(["send-keys", "-t", name, "q"])
        #expect(waitFor(name) { $0.contains("EXITED:") }.contains("EXITED:0"))
    }
}
