import Foundation
import Testing

/// `scrubkit play` under a shell's job control, in a real terminal (tmux's pty): started in the background it plays
/// without the keyboard and takes it on `fg`; under `timeout` from a script (a process group of its own, not the
/// terminal's foreground) it plays until stopped; Ctrl-Z stops it like any job and `fg` brings it back. Before,
/// each of these left the process stopped by SIGTTOU (state T), nothing drawn.
@Suite(.enabled(if: Tmux.available, "needs tmux"), .serialized, .timeLimit(.minutes(2)))
struct PlayJobControlTests {
    let base = "scrubjobs\(getpid())"

    /// The sample under a name of its own, so that `pgrep -f` finds this test's player and nothing else.
    func uniqueSample() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-jobs-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let link = dir + "/clip-\(UUID().uuidString.prefix(8)).mp4"
        try FileManager.default.createSymbolicLink(
            atPath: link, withDestinationPath: Scrub.packageRoot.appendingPathComponent("samples/h264_gop2s.mp4").path)
        return link
    }

    /// A session running `command` (default: an interactive bash with job control, prompt `PROMPT$ `).
    func session(_ command: String? = nil) -> String {
        let name = "\(base)-\(UUID().uuidString.prefix(8))"
        let shell =
            "env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp TERM=xterm-256color PS1='PROMPT$ ' bash --norc "
                + "--noprofile -i"
        for _ in 0..<30 {
            Tmux.run(["new-session", "-d", "-s", name, "-x", "100", "-y", "30", command ?? shell])
            if Tmux.run(["list-sessions", "-F", "#{session_name}"]).split(separator: "\n").contains(Substring(name)) {
                break
            }
            usleep(100_000)
        }
        return name
    }

    func stopAll(_ clip: String) {
        for old in Tmux.run(["list-sessions", "-F", "#{session_name}"]).split(separator: "\n")
        where old.hasPrefix(base + "-") {
            Tmux.run(["kill-session", "-t", String(old)])
        }
        if let pid = playerPID(clip) { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(atPath: (clip as NSString).deletingLastPathComponent)
    }

    func screen(_ name: String) -> String { Tmux.run(["capture-pane", "-p", "-t", name]) }
    func waitFor(_ name: String, timeout: Double = 10, _ cond: (String) -> Bool) -> String {
        let end = Date().addingTimeInterval(timeout)
        var s = screen(name)
        while !cond(s) && Date() < end { usleep(100_000); s = screen(name) }
        return s
    }

    /// The player's own process: its command line starts with the binary. (Not just "play …clip": a tmux server
    /// started by a `new-session` whose command plays the clip carries that command line too, and `stopAll` killed
    /// it — every session of every suite with it, a flaky hover test in another suite.)
    func playerPID(_ clip: String) -> pid_t? {
        let pattern = "^" + NSRegularExpression.escapedPattern(for: Scrub.binary) + " play .*"
            + NSRegularExpression.escapedPattern(for: (clip as NSString).lastPathComponent)
        let r = try? Scrub.execute("pgrep", ["-f", pattern])
        return r?.stdout.split(separator: "\n").first.flatMap { pid_t($0) }
    }

    /// The process's state letter from /proc (R, S, T for stopped…), nil when it is gone.
    func state(_ pid: pid_t) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(close, offsetBy: 2)...].split(separator: " ").first.map(String.init)
    }

    /// The time shown has moved on by at least `by` seconds: the player keeps time.
    func advances(_ name: String, by: Double = 0.5) -> Bool {
        let first = Tmux.shownSeconds(waitFor(name) { Tmux.shownSeconds($0) != nil }) ?? -1
        guard first >= 0 else { return false }
        return (Tmux.shownSeconds(waitFor(name, timeout: 5) { (Tmux.shownSeconds($0) ?? -1) >= first + by }) ?? -1)
            >= first + by
    }

    @Test func startedInTheBackgroundItPlaysThenTakesTheKeyboardOnFg() throws {
        let clip = try uniqueSample()
        defer { stopAll(clip) }
        let name = session()
        _ = waitFor(name) { $0.contains("PROMPT$") }
        Tmux.run([
            "send-keys", "-t", name, "'\(Scrub.binary)' play --no-audio --loop --graphics blocks '\(clip)' &", "Enter",
        ])
        #expect(advances(name), "plays in the background: \(screen(name))")
        let pid = try #require(playerPID(clip))
        #expect(state(pid) != "T", "not stopped by SIGTTOU")
        // Brought to the foreground, it reads keys: space pauses, q quits with status 0.
        Tmux.run(["send-keys", "-t", name, "fg", "Enter"])
        usleep(500_000)
        Tmux.run(["send-keys", "-t", name, " "])
        let paused = waitFor(name) { $0.contains("paused") }
        #expect(paused.contains("paused"), "space reached the player after fg: \(paused)")
        Tmux.run(["send-keys", "-t", name, "q"])
        usleep(500_000)
        Tmux.run(["send-keys", "-t", name, "echo EXITED:$?", "Enter"])
        #expect(waitFor(name) { $0.contains("EXITED:") }.contains("EXITED:0"))
    }

    @Test func underTimeoutInAScriptItPlaysUntilTimeoutEndsIt() throws {
        let clip = try uniqueSample()
        defer { stopAll(clip) }
        // sh without job control runs timeout in the terminal's foreground group; timeout moves itself and the player
        // into a group of their own, so the player is in the background.
        let name = session(
            "sh -c \"timeout 4 '\(Scrub.binary)' play --no-audio --graphics blocks '\(clip)'; echo TIMEOUT:\\$?; sleep "
                + "30\""
        )
        #expect(advances(name), "plays under timeout: \(screen(name))")
        if let pid = playerPID(clip) { #expect(state(pid) != "T", "not stopped by SIGTTOU") }
        let end = waitFor(name) { $0.contains("TIMEOUT:") }
        #expect(end.contains("TIMEOUT:124"), "ended by timeout's SIGTERM, the screen put back: \(end)")
        #expect(!end.contains("playing"), "the normal screen is back")
    }

    @Test func ctrlZStopsItLikeAnyJobAndFgBringsItBack() throws {
        let clip = try uniqueSample()
        defer { stopAll(clip) }
        let name = session()
        _ = waitFor(name) { $0.contains("PROMPT$") }
        Tmux.run([
            "send-keys", "-t", name, "'\(Scrub.binary)' play --no-audio --loop --graphics blocks '\(clip)'", "Enter",
        ])
        #expect(advances(name))
        let pid = try #require(playerPID(clip))
        Tmux.run(["send-keys", "-t", name, "C-z"])
        let stopped = waitFor(name) { $0.contains("Stopped") }
        #expect(
            stopped.contains("Stopped") && stopped.contains("PROMPT$"),
            "the shell's screen and prompt are back: \(stopped)")
        #expect(state(pid) == "T")
        Tmux.run(["send-keys", "-t", name, "fg", "Enter"])
        #expect(advances(name), "plays again after fg: \(screen(name))")
        #expect(state(pid) != "T")
        Tmux.run(["send-keys", "-t", name, "q"])
        usleep(500_000)
        Tmux.run(["send-keys", "-t", name, "echo EXITED:$?", "Enter"])
        #expect(waitFor(name) { $0.contains("EXITED:") }.contains("EXITED:0"))
    }

    @Test func withAPipeForInputTheKeysComeFromTheTerminal() throws {
        let clip = try uniqueSample()
        defer { stopAll(clip) }
        let name = session()
        _ = waitFor(name) { $0.contains("PROMPT$") }
        // As xargs starts it: standard input is not the terminal (here a pipe at its end), the keys still work.
        Tmux.run([
            "send-keys", "-t", name, "true | '\(Scrub.binary)' play --no-audio --loop --graphics blocks '\(clip)'",
            "Enter",
        ])
        #expect(advances(name))
        Tmux.run(["send-keys", "-t", name, " "])
        let paused = waitFor(name) { $0.contains("paused") }
        #expect(paused.contains("paused"), "space reached the player through /dev/tty: \(paused)")
        Tmux.run(["send-keys", "-t", name, "q"])
        usleep(500_000)
        Tmux.run(["send-keys", "-t", name, "echo EXITED:$?", "Enter"])
        #expect(waitFor(name) { $0.contains("EXITED:") }.contains("EXITED:0"))
    }
}
