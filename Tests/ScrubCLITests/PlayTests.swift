import Foundation
import Testing

/// Drives `scrubkit play` in a real terminal (tmux) and reads the screen back.
enum Tmux {
    static let path: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static var available: Bool { path != nil }
    /// A server of our own, so a test never touches the user's tmux and can always be torn down.
    static let socket = "scrubtest\(getpid())"

    /// A session that keeps this process's server up while the tests run (it ends when this process does, and the
    /// server with it). Without it, a test killing the server's last session made the server exit, and a session
    /// another test started at that moment went with it: a blank screen, a flaky test.
    private static let keepalive: Void = {
        let pid = getpid()
        let watch = "sh -c 'while kill -0 \(pid) 2>/dev/null; do sleep 1; done'"
        _ = command(["new-session", "-d", "-s", "keepalive", watch], socket: socket)
    }()

    /// Runs a tmux command (on the server of `socket`: this process's own unless told) and returns what it printed.
    ///
    /// Not `Foundation.Process`: `new-session` leaves a daemon behind, and a daemon that inherits a descriptor
    /// Foundation waits on (its exit-watch socket, or the pipes of another test's process spawned at the same
    /// moment) keeps that wait from ever ending — that hung CI. Here the child gets only /dev/null and a capture
    /// file (`closefrom(3)` in the child), and we reap it with `waitpid` ourselves.
    @discardableResult
    static func run(_ args: [String], socket: String = Tmux.socket) -> String {
        if socket == Tmux.socket { _ = keepalive }
        return command(args, socket: socket)
    }

    private static func command(_ args: [String], socket: String) -> String {
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tmux-\(getpid())-\(UUID().uuidString)"
        ).path
        defer { unlink(capture) }
        guard let pid = spawn([path!, "-L", socket, "-f", "/dev/null"] + args, stdout: capture) else { return "" }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (try? String(contentsOfFile: capture, encoding: .utf8)) ?? ""
    }

    /// Starts `argv` in the background (stdin /dev/null, stdout to `stdout`, stderr to `stderr`, nothing else
    /// inherited); the caller kills and reaps it.
    static func spawn(_ argv: [String], stdout: String, stderr: String = "/dev/null") -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        closeFrom3(&actions)
        // Signals as a login gives them: none blocked, none ignored. The test runs on a Dispatch worker thread, which
        // blocks nearly every signal, and a mask is inherited through exec: the tmux server, its shells and the
        // player would all run with SIGTTOU and SIGTSTP blocked, where job control cannot stop anything.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let args = argv.map { strdup($0) }
        defer { args.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, argv[0], &actions, &attributes, args + [nil], environ) == 0 else { return nil }
        return pid
    }

    /// glibc ≥ 2.34 has `posix_spawn_file_actions_addclosefrom_np`, but Swift's Glibc module does not export it.
    private static func closeFrom3(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }

    /// Seconds shown in the status line ("m:ss.s / …"), nil when absent.
    static func shownSeconds(_ screen: String) -> Double? {
        guard
            let line = screen.split(separator: "\n").first(where: {
                $0.contains(" / ") && ($0.contains("playing") || $0.contains("paused"))
            }),
            let m = line.firstMatch(of: /(\d+):(\d{2})(\.\d)?/)
        else { return nil }
        return Double(m.1)! * 60 + Double(m.2)! + (m.3.flatMap { Double($0) } ?? 0)
    }
}

@Suite(.enabled(if: Tmux.available, "needs tmux"), .serialized, .timeLimit(.minutes(2)))
struct PlayTmuxTests {
    let sample = Scrub.packageRoot.appendingPathComponent("samples/h264_gop2s.mp4").path

    /// Starts `scrubkit play ARGS` (or another `command`, with `env` set) in a new session named BASE-N and returns
    /// that name. The new session exists before the earlier ones of the same base are killed: killing the server's only
    /// session makes it exit, and a session started at that moment raced the exiting server (a flaky test).
    @discardableResult
    func start(
        _ base: String, _ args: String, cols: Int = 100, rows: Int = 30, command: String = "play", env: String = ""
    ) -> String {
        let name = "\(base)-\(UUID().uuidString.prefix(8))"
        // The previous test may just have killed the server's last session: a server on its way out refuses new
        // sessions. Retry until the session is really there.
        for _ in 0..<30 {
            Tmux.run([
                "new-session", "-d", "-s", name, "-x", String(cols), "-y", String(rows),
                "TERM=xterm-256color COLORTERM=truecolor PULSE_SERVER=unix:/nonexistent-scrubkit-test/pulse.sock "
                    + "\(env) '\(Scrub.binary)' \(command) \(args); echo EXITED:$?; sleep 20",
            ])
            if Tmux.run(["list-sessions", "-F", "#{session_name}"]).split(separator: "\n").contains(Substring(name)) {
                break
            }
            usleep(100_000)
        }
        for old in Tmux.run(["list-sessions", "-F", "#{session_name}"]).split(separator: "\n")
        where old.hasPrefix(base + "-") && old != name {
            Tmux.run(["kill-session", "-t", String(old)])
        }
        return name
    }
    /// Kills every session of `base`.
    func stop(_ base: String) {
        for old in Tmux.run(["list-sessions", "-F", "#{session_name}"]).split(separator: "\n")
        where old.hasPrefix(base + "-") {
            Tmux.run(["kill-session", "-t", String(old)])
        }
    }
    func screen(_ name: String) -> String { Tmux.run(["capture-pane", "-p", "-t", name]) }
    func waitFor(_ name: String, timeout: Double = 10, _ cond: (String) -> Bool) -> String {
        let end = Date().addingTimeInterval(timeout)
        var s = screen(name)
        while !cond(s) && Date() < end { usleep(100_000); s = screen(name) }
        return s
    }

    /// The screen once the time shown is `seconds` and stays there: a digit's jump shows its target at once, then the
    /// keyframe the loose seek landed on, then the exact place ``Player.settleDelay`` after the key (a test acting on
    /// the first showing raced the rest: `s` saved the keyframe's picture).
    func settled(_ name: String, at seconds: Double, also condition: (String) -> Bool = { _ in true }) -> String {
        _ = waitFor(name) { Tmux.shownSeconds($0) == seconds && condition($0) }
        usleep(400_000)
        return waitFor(name) { Tmux.shownSeconds($0) == seconds && condition($0) }
    }

    @Test func barTimesKeysResizeAndQuit() {
        let base = "scrubtest\(getpid())"
        defer { stop(base) }
        let name = start(base, "'\(sample)' --graphics blocks")
        var s = waitFor(name) { Tmux.shownSeconds($0) != nil }
        #expect(s.contains("●"), "the knob of the bar is drawn")
        #expect(s.contains("/ 0:08.0"), "the duration is shown")
        // Pause, then jump with keys: 5 → 50 % (4 s), → +5 s clamps near the end, Home → 0.
        Tmux.run(["send-keys", "-t", name, " "])
        s = waitFor(name) { $0.contains("paused") }
        #expect(s.contains("paused"))
        Tmux.run(["send-keys", "-t", name, "5"])
        s = waitFor(name) { (Tmux.shownSeconds($0) ?? -1) >= 3.5 && (Tmux.shownSeconds($0) ?? 99) <= 4.5 }
        #expect(abs((Tmux.shownSeconds(s) ?? -1) - 4) <= 0.5, "key 5 → 50 %: \(Tmux.shownSeconds(s) ?? -1)")
        // An absolute jump lands exactly, not on the keyframe before (3 → 30 % = 2.4 s; keyframes every 2 s).
        Tmux.run(["send-keys", "-t", name, "3"])
        s = waitFor(name) { abs((Tmux.shownSeconds($0) ?? -1) - 2.4) < 0.01 }
        #expect(
            abs((Tmux.shownSeconds(s) ?? -1) - 2.4) < 0.01, "key 3 → 2.4 s exactly: \(Tmux.shownSeconds(s) ?? -1)")
        Tmux.run(["send-keys", "-t", name, "Home"])
        s = waitFor(name) { Tmux.shownSeconds($0) == 0 }
        #expect(Tmux.shownSeconds(s) == 0)
        Tmux.run(["send-keys", "-t", name, "Right"])
        s = waitFor(name) { (Tmux.shownSeconds($0) ?? 0) >= 3.9 }
        #expect(
            (Tmux.shownSeconds(s) ?? 0) >= 3.9 && (Tmux.shownSeconds(s) ?? 99) <= 5.1,
            "→ moves about 5 s (to a keyframe)")
        // Mouse: a click in the middle of the bar (SGR report, 1-based: row 29 of 30, column 51) seeks to ~50 %.
        Tmux.run(["send-keys", "-t", name, "Home"])
        _ = waitFor(name) { Tmux.shownSeconds($0) == 0 }
        Tmux.run(["send-keys", "-t", name, "-l", "\u{1B}[<0;51;29M\u{1B}[<0;51;29m"])
        s = waitFor(name) { (Tmux.shownSeconds($0) ?? 0) >= 3.5 }
        #expect(
            abs((Tmux.shownSeconds(s) ?? -1) - 4) <= 0.5,
            "click on the bar's middle → about 4 s: \(Tmux.shownSeconds(s) ?? -1)")
        // Resize: the bar follows the new width.
        Tmux.run(["resize-window", "-t", name, "-x", "60", "-y", "20"])
        s = waitFor(name) { scr in scr.split(separator: "\n").contains { $0.contains("●") && $0.count <= 60 } }
        let barLine = s.split(separator: "\n").first { $0.contains("●") }
        #expect(barLine != nil && barLine!.trimmingCharacters(in: .whitespaces).count <= 59)
        // q quits with status 0 and leaves the normal screen.
        Tmux.run(["send-keys", "-t", name, "q"])
        s = waitFor(name) { $0.contains("EXITED:") }
        #expect(s.contains("EXITED:0"))
        #expect(!s.contains("●"), "the alternate screen is gone")
    }

    @Test func playAdvancesAndBadFileRestoresTheTerminal() {
        let base = "scrubtest2\(getpid())"
        defer { stop(base) }
        var name = start(base, "'\(sample)' --graphics none")
        let a = Tmux.shownSeconds(waitFor(name) { Tmux.shownSeconds($0) != nil }) ?? -1
        usleep(1_500_000)
        let b = Tmux.shownSeconds(screen(name)) ?? -1
        #expect(b > a, "time advances while playing (\(a) → \(b))")
        // No sound server here (PULSE_SERVER points nowhere): the picture plays and the status line says why.
        #expect(screen(name).contains("no sound"), "the status line says there is no sound")
        Tmux.run(["send-keys", "-t", name, "C-c"])   // in raw mode Ctrl-C is a key: quit
        let s = waitFor(name) { $0.contains("EXITED:") }
        #expect(s.contains("EXITED:0"), "Ctrl-C quits")

        // A real SIGINT (kill): the terminal is restored, status 130.
        name = start(base, "'\(sample)' --graphics blocks")
        _ = waitFor(name, timeout: 10) { Tmux.shownSeconds($0) != nil }
        var signalled = false
        for _ in 0..<5 where !signalled {   // a loaded machine may still be starting the process: retry briefly
            let k = Process()
            k.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
            k.arguments = ["-INT", "-f", "scrubkit play '?\(sample)'? --graphics blocks"]
            try? k.run(); k.waitUntilExit()
            signalled = k.terminationStatus == 0
            if !signalled { usleep(300_000) }
        }
        #expect(signalled, "pkill found the player")
        let killed = waitFor(name, timeout: 15) { $0.contains("EXITED:") }
        #expect(killed.contains("EXITED:130"))
        #expect(!killed.contains("●"), "normal screen restored after SIGINT")

        name = start(base, "/nonexistent/clip.mp4")
        let bad = waitFor(name) { $0.contains("EXITED:") }
        #expect(bad.contains("EXITED:1"))
        #expect(bad.contains("/nonexistent/clip.mp4: no such file"))
    }
}

extension PlayTmuxTests {
    /// A raw H.264 stream has no duration: ←/→ still seek, by time, and the bar spans what has been seen.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "needs ffmpeg"))
    func unknownDurationScrubsByTime() throws {
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("raw-\(getpid()).h264").path
        defer { unlink(raw) }
        let ff = Process()
        ff.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ff.arguments = [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25", "-t", "12", "-c:v", "libx264", "-g",
            "25", "-f", "h264", raw,
        ]
        ff.standardInput = FileHandle.nullDevice
        try ff.run(); ff.waitUntilExit()
        let base = "scrubtest3\(getpid())"
        defer { stop(base) }
        let name = start(base, "'\(raw)' --graphics none")
        _ = waitFor(name) { Tmux.shownSeconds($0) != nil }
        Tmux.run(["send-keys", "-t", name, " "])
        var s = waitFor(name) { $0.contains("paused") }
        let before = Tmux.shownSeconds(s) ?? -1
        #expect(s.contains("--:--"), "the duration is shown as unknown")
        Tmux.run(["send-keys", "-t", name, "Right"])
        s = waitFor(name) { (Tmux.shownSeconds($0) ?? 0) >= before + 4 }
        #expect(
            (Tmux.shownSeconds(s) ?? 0) >= before + 4,
            "→ seeks 5 s by time: \(before) → \(Tmux.shownSeconds(s) ?? -1)")
        Tmux.run(["send-keys", "-t", name, "Left"])
        s = waitFor(name) { (Tmux.shownSeconds($0) ?? 99) <= before + 1 }
        #expect((Tmux.shownSeconds(s) ?? 99) <= before + 1, "← seeks back")
        Tmux.run(["send-keys", "-t", name, "q"])
        #expect(waitFor(name) { $0.contains("EXITED:") }.contains("EXITED:0"))
    }
}

@Suite struct PlayCLITests {
    @Test func notATerminalIsAClearError() throws {
        let sample = Scrub.packageRoot.appendingPathComponent("samples/h264_gop2s.mp4").path
        let r = try Scrub.run(["play", sample])
        #expect(r.status == 1)
        #expect(r.stderr.contains("needs a terminal"))
        #expect(!r.stdout.contains("\u{1B}[?1049h"), "never switched screens")
        let bad = try Scrub.run(["play", sample, "--graphics", "hologram"])
        #expect(bad.status == 64)
    }

    @Test func benchModeReportsFramesAndSeekLatency() throws {
        let sample = Scrub.packageRoot.appendingPathComponent("samples/h264_gop2s.mp4").path
        let log = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-paints-\(UUID().uuidString).txt"
        ).path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let r = try Scrub.run([
            "play", "--bench", sample, "--seconds", "2", "--size", "80x24", "--paint-log", log, "--hovers", "10",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("frames shown"))
        #expect(r.stdout.contains("seek→paint keyframe"))
        #expect(r.stdout.contains("seek→paint exact"))
        // Hover previews: a move for each of the bar's 78 columns, then 10 jumps, every one answered (a move never
        // answered would count the 5 s waited).
        let sweep = r.stdout.split(separator: "\n").first { $0.contains("move→hover preview, sweep (78 moves)") }
        let hoverJumps = r.stdout.split(separator: "\n").first { $0.contains("move→hover preview, jumps (10 moves)") }
        for line in [sweep, hoverJumps] {
            let max = line.flatMap { $0.firstMatch(of: /max (\d+) ms/) }.flatMap { Double($0.1) }
            #expect(max != nil && max! < 5000, "every move answered: \(String(describing: line))")
        }
        // The paint log: monotonic time and media time per picture; in order, with the 2 s seek at two thirds.
        let rows = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: " ").compactMap { Double($0) }
        }
        try #require(rows.count >= 20 && rows.allSatisfy { $0.count == 2 }, "\(rows.count) rows")
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $0[0] <= $1[0] }, "monotonic times in order")
        let jumps = zip(rows, rows.dropFirst()).map { $1[1] - $0[1] }
        #expect(
            jumps.filter { $0 > 1.5 }.count == 1 && jumps.allSatisfy { $0 > 0 },
            "one seek ahead, otherwise frames in order: \(jumps)")
    }
}

extension PlayTmuxTests {
    /// Hover previews: a pointer moving over the bar (any-event mouse reports, no button) shows the picture at the time
    /// under it with that time, above the bar, without seeking; moving along moves it; leaving the bar puts back
    /// exactly what was there.
    @Test func hoverPreviewFollowsThePointerAndLeavesNoTrace() {
        let base = "scrubtest4\(getpid())"
        defer { stop(base) }
        let name = start(base, "'\(sample)' --graphics blocks")
        _ = waitFor(name) { Tmux.shownSeconds($0) != nil }
        Tmux.run(["send-keys", "-t", name, " "])
        var s = waitFor(name) { $0.contains("paused") }
        let pausedAt = Tmux.shownSeconds(s)
        // Let the paused picture settle, then take the screen with its colours.
        usleep(300_000)
        // (The status line's last row changes by itself: "no sound (why)" shortens after 5 s.)
        func coloured() -> String {
            Tmux.run(["capture-pane", "-p", "-e", "-t", name]).split(separator: "\n", omittingEmptySubsequences: false)
                .dropLast(2).joined(separator: "\n")
        }
        func waitForColoured(_ cond: (String) -> Bool) -> String {
            let end = Date().addingTimeInterval(10)
            var c = coloured()
            while !cond(c) && Date() < end { usleep(100_000); c = coloured() }
            return c
        }
        func rowsDiffering(_ a: String, _ b: String) -> Int {
            let x = a.split(separator: "\n", omittingEmptySubsequences: false),
                y = b.split(separator: "\n", omittingEmptySubsequences: false)
            return zip(x, y).filter { $0 != $1 }.count + abs(x.count - y.count)
        }
        let before = coloured()
        // Column 51 of 100 (1-based) is the middle of the bar (row 29 of 30): 4.0 s of 8.
        Tmux.run(["send-keys", "-t", name, "-l", "\u{1B}[<35;51;29M"])
        s = waitFor(name) { $0.split(separator: "\n").dropLast(2).contains { $0.contains(" 0:04.0 ") } }
        #expect(
            s.split(separator: "\n").dropLast(2).contains { $0.contains(" 0:04.0 ") },
            "the time under the pointer is shown above the bar")
        let hovering = waitForColoured { rowsDiffering(before, $0) >= 5 }
        #expect(rowsDiffering(before, hovering) >= 5, "a picture of several rows is drawn over the video")
        #expect(Tmux.shownSeconds(screen(name)) == pausedAt, "hovering neither seeks nor plays")
        #expect(screen(name).contains("paused"))
        // Along the bar: at column 76 (74 of 97 cells into the bar: 6.1 s) the label says so, and only there.
        Tmux.run(["send-keys", "-t", name, "-l", "\u{1B}[<35;76;29M"])
        s = waitFor(name) { $0.contains(" 0:06.1 ") && !$0.contains(" 0:04.0 ") }
        #expect(s.contains(" 0:06.1 ") && !s.contains(" 0:04.0 "), "the label follows the pointer")
        let labelLine = s.split(separator: "\n").first { $0.contains(" 0:06.1 ") }
        let labelAt = labelLine.flatMap { line in
            line.firstRange(of: " 0:06.1 ").map { line.distance(from: line.startIndex, to: $0.lowerBound) }
        }
        #expect(
            labelAt.map { (65...80).contains($0) } == true,
            "the box is under the pointer (label at column \(String(describing: labelAt)))")
        // Off the bar: everything as before the hover, to the byte and colour.
        Tmux.run(["send-keys", "-t", name, "-l", "\u{1B}[<35;51;10M"])
        let after = waitForColoured { $0 == before }
        #expect(after == before, "leaving the bar restores the screen (\(rowsDiffering(before, after)) rows differ)")
        Tmux.run(["send-keys", "-t", name, "q"])
        #expect(waitFor(name) { $0.contains("EXITED:") }.contains("EXITED:0"))
    }
}
