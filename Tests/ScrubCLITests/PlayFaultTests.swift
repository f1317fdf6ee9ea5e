import Foundation
import Testing

/// Faults while playing, said on the status line, the player still answering its keys: the server going away (and
/// coming back on a seek), the file cut short or deleted under it, and a window resized without pause for 10 s.
@Suite(.enabled(if: Tmux.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"),
                 "needs tmux, ffmpeg"), .timeLimit(.minutes(3)))
struct PlayFaultTests {
    /// A 30-s 320×180 clip with sound (~4 MB: more than the player reads ahead in its first seconds).
    static let clip: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-faults-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        _ = try? Scrub.execute("ffmpeg", ["-v", "error", "-y", "-f", "lavfi",
                                          "-i", "testsrc2=size=320x180:rate=25:duration=30",
                                          "-f", "lavfi", "-i", "sine=f=440:duration=30", "-vf", "noise=alls=20:allf=t",
                                          "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-c:a", "aac",
                                          dir + "/clip.mp4"])
        return dir + "/clip.mp4"
    }()

    /// The status line ("" before one shows).
    static func status(_ screen: String) -> String {
        screen.split(separator: "\n").first { $0.contains("playing") || $0.contains("paused") }.map(String.init) ?? ""
    }

    /// tools/http-range-server on `folder` (on `port`, else any): its pid and port.
    static func serve(_ folder: String, port: Int = 0) throws -> (pid: pid_t, port: Int) {
        let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("port-\(UUID().uuidString)").path
        defer { unlink(portFile) }
        let tool = Scrub.packageRoot.appendingPathComponent("tools/http-range-server").path
        let pid = try #require(Tmux.spawn(["/usr/bin/python3", tool, folder, "--port", String(port)], stdout: portFile))
        var got: Int? = nil
        for _ in 0..<200 where got == nil {
            let text = try? String(contentsOfFile: portFile, encoding: .utf8)
            got = text.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if got == nil { usleep(20_000) }
        }
        return (pid, try #require(got, "the server printed its port"))
    }

    static func stop(_ pid: pid_t) {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }

    /// `scrubkit play` in a terminal of its own, playing (the status line shows a time of at least `from` s).
    static func playing(_ t: PrivateTerminal, _ args: String, from: Double = 1) throws -> pid_t {
        t.run("play --graphics blocks --no-audio " + args)
        let pid = try #require(t.pid(), "it started")
        let s = t.waitFor { (Tmux.shownSeconds($0) ?? -1) >= from }
        try #require((Tmux.shownSeconds(s) ?? -1) >= from, "playing: \(s)")
        return pid
    }

    /// `q` ends it at once with status 0.
    static func quits(_ t: PrivateTerminal, _ pid: pid_t) {
        t.keys("q")
        #expect(OutsideProcess.ends(pid, within: 1) != nil, "q ends it at once")
        #expect(PrivateTerminal.exitStatus(t.waitFor(timeout: 5) { PrivateTerminal.exitStatus($0) != nil }) == 0)
    }

    @Test func theServerGoingAwayIsSaidAndASeekGoesOnOnceItIsBack() throws {
        let folder = (Self.clip as NSString).deletingLastPathComponent
        var server = try Self.serve(folder)
        defer { Self.stop(server.pid) }
        let t = try PrivateTerminal(columns: 160)
        defer { t.close() }
        let pid = try Self.playing(t, "--timeout 3 http://127.0.0.1:\(server.port)/clip.mp4")
        Self.stop(server.pid)
        // Within the read timeout (3 s) and a little: said on the status line.
        let gone = t.waitFor(timeout: 8) { Self.status($0).contains("the server went away") }
        #expect(Self.status(gone).contains("the server went away"), "\(Self.status(gone))")
        // The keys still work.
        t.keys(" ")
        #expect(t.waitFor(timeout: 2) { Self.status($0).contains("paused") }.contains("paused"), "space pauses")
        // The server comes back: a seek reads again, and plays on from there.
        server = try Self.serve(folder, port: server.port)
        t.keys("5", " ")
        func goesOn(_ s: String) -> Bool {
            let line = Self.status(s)
            return !line.contains("went away") && line.contains("playing") && (Tmux.shownSeconds(s) ?? 0) >= 16
        }
        let back = t.waitFor(timeout: 10, goesOn)
        #expect(goesOn(back), "\(Self.status(back))")
        Self.quits(t, pid)
    }

    @Test(arguments: ["cut short", "deleted"])
    func aFileCutShortOrDeletedWhilePlayingPlaysWhatItCanAndSaysSo(fault: String) throws {
        let copy = FileManager.default.temporaryDirectory
            .appendingPathComponent("scrubkit-fault-\(UUID().uuidString.prefix(8)).mp4").path
        try FileManager.default.copyItem(atPath: Self.clip, toPath: copy)
        defer { unlink(copy) }
        let t = try PrivateTerminal(columns: 160)
        defer { t.close() }
        let pid = try Self.playing(t, "'\(copy)'")
        if fault == "deleted" {
            unlink(copy)
        } else {
            let size = try #require((try FileManager.default.attributesOfItem(atPath: copy))[.size] as? Int)
            #expect(truncate(copy, off_t(size / 4)) == 0)
        }
        let said = t.waitFor(timeout: 15) { Self.status($0).contains(fault == "deleted" ? "deleted" : "cut short") }
        let words = fault == "deleted" ? "the file was deleted" : "cut short"
        #expect(Self.status(said).contains(words), "\(Self.status(said))")
        // It plays on (what was read, or what is open).
        let at = Tmux.shownSeconds(said) ?? 0
        let later = t.waitFor(timeout: 3) { (Tmux.shownSeconds($0) ?? 0) > at + 1 }
        #expect((Tmux.shownSeconds(later) ?? 0) > at + 1, "the time goes on")
        Self.quits(t, pid)
    }

    /// The window resized every 50 ms for 10 s: the player keeps up (no crash, no hang), then plays and quits.
    @Test func aWindowResizedForTenSecondsKeepsPlaying() throws {
        let t = try PrivateTerminal(columns: 100, rows: 30)
        defer { t.close() }
        let pid = try Self.playing(t, "--loop '\(Self.clip)'")
        let end = Date().addingTimeInterval(10)
        var n = 0
        while Date() < end {
            n += 1
            t.resize(columns: 60 + (n * 37) % 100, rows: 15 + (n * 13) % 30)
            usleep(50_000)
        }
        t.resize(columns: 100, rows: 30)
        #expect(OutsideProcess.alive(pid), "still running after \(n) resizes")
        let first = Tmux.shownSeconds(t.waitFor(timeout: 5) { Tmux.shownSeconds($0) != nil }) ?? -1
        let later = t.waitFor(timeout: 5) { (Tmux.shownSeconds($0) ?? -1) > first + 0.5 }
        #expect((Tmux.shownSeconds(later) ?? -1) > first + 0.5, "plays on after the resizes: \(Self.status(later))")
        Self.quits(t, pid)
    }
}
