import Foundation
import Testing

/// A terminal of its own: a tmux server on a socket of its own (so that killing it — the terminal closed — touches
/// no other test) running an interactive bash, and a folder for what a command leaves (its pid, `stty -g` before and
/// after).
struct PrivateTerminal {
    let socket = "scrubsig\(getpid())-\(UUID().uuidString.prefix(8))"
    let dir: String

    init(columns: Int = 100, rows: Int = 30) throws {
        dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("scrubkit-term-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let shell = "env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp TERM=xterm-256color "
            + "PULSE_SERVER=unix:/nonexistent-scrubkit-test/pulse.sock PS1='PROMPT$ ' bash --norc --noprofile -i"
        Tmux.run(["new-session", "-d", "-x", String(columns), "-y", String(rows), shell], socket: socket)
        _ = waitFor { $0.contains("PROMPT$") }
    }

    /// Runs `scrubkit ARGS` from the shell: its pid (it is exec'd by `sh`), the terminal's modes before and after it
    /// and its exit status on the screen (`EXITED:N`) are kept.
    func run(_ args: String) {
        let line = "stty -g > \(dir)/before; sh -c 'echo $$ > \(dir)/pid; exec \(Scrub.binary) \(args)'; "
            + "echo EXITED:$?; stty -g > \(dir)/after"
        Tmux.run(["send-keys", "-t", "0", line, "Enter"], socket: socket)
    }

    /// The command's pid, once it has started.
    func pid() -> pid_t? {
        var pid: pid_t? = nil
        let end = Date().addingTimeInterval(10)
        while pid == nil && Date() < end {
            let text = try? String(contentsOfFile: dir + "/pid", encoding: .utf8)
            pid = text.flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if pid == nil { usleep(20_000) }
        }
        return pid
    }

    func keys(_ keys: String...) { Tmux.run(["send-keys", "-t", "0"] + keys, socket: socket) }
    func resize(columns: Int, rows: Int) {
        Tmux.run(["resize-window", "-t", "0", "-x", String(columns), "-y", String(rows)], socket: socket)
    }
    var screen: String { Tmux.run(["capture-pane", "-p", "-t", "0"], socket: socket) }

    /// The screen once `condition` holds (or after `timeout` seconds).
    func waitFor(timeout: Double = 15, _ condition: (String) -> Bool) -> String {
        let end = Date().addingTimeInterval(timeout)
        var s = screen
        while !condition(s) && Date() < end { usleep(50_000); s = screen }
        return s
    }

    /// The exit status the shell printed (`EXITED:N` on a line of its own; tmux may show it a moment after it was
    /// written), nil before.
    static func exitStatus(_ screen: String) -> Int32? {
        screen.split(separator: "\n").compactMap { $0.wholeMatch(of: /EXITED:(\d+)\s*/).flatMap { Int32($0.1) } }.last
    }

    /// `stty -g` before the command and after it (nil until the shell wrote it whole).
    var modes: (before: String?, after: String?) {
        func read(_ name: String) -> String? {
            (try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)).flatMap { $0.hasSuffix("\n") ? $0 : nil }
        }
        return (read("before"), read("after"))
    }

    /// Closes the terminal: the server and its pane go, the processes in it get SIGHUP.
    func killServer() { Tmux.run(["kill-server"], socket: socket) }

    func close() {
        killServer()
        try? FileManager.default.removeItem(atPath: dir)
    }
}

/// Processes as the tests see them from outside.
enum OutsideProcess {
    /// Whether `pid` still runs (a zombie waiting for its parent does not).
    static func alive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return !stat[stat.index(close, offsetBy: 2)...].hasPrefix("Z")
    }

    /// Waits up to `seconds` for `pid` to end; the seconds it took, nil when it still runs.
    static func ends(_ pid: pid_t, within seconds: Double) -> Double? {
        let began = Date()
        while alive(pid) {
            if Date().timeIntervalSince(began) > seconds { return nil }
            usleep(5_000)
        }
        return Date().timeIntervalSince(began)
    }

    /// Reaps the child `pid` once it ends (at most `seconds`): its exit status, 128 + N when a signal killed it, nil
    /// when it did not end (then it is killed).
    static func exitStatus(_ pid: pid_t, within seconds: Double) -> Int32? {
        let end = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F) }
            if r < 0 && errno != EINTR { return nil }
            if Date() > end {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                return nil
            }
            usleep(5_000)
        }
    }

    /// The signal lines of `/proc/PID/status` (blocked, ignored, caught).
    static func signalDispositions(_ pid: pid_t) -> [String] {
        ((try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? "").split(separator: "\n")
            .filter { $0.hasPrefix("SigBlk") || $0.hasPrefix("SigIgn") || $0.hasPrefix("SigCgt") }.map(String.init)
    }

    /// Children of `pid` (from /proc).
    static func children(of pid: pid_t) -> [pid_t] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { t in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(t)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { pid_t($0) }
        }
    }
}

/// Every long-running command ends on SIGHUP, SIGINT, SIGQUIT and SIGTERM sent from outside, in every state, within
/// a second: the terminal put back (screen and modes), its temporary files removed, exit status 128 + N. Before,
/// `browse` left these signals ignored after a file had been played in it, and stayed running for ever once its
/// terminal was closed.
@Suite(.enabled(if: Tmux.available, "needs tmux"), .timeLimit(.minutes(5)))
struct SignalTests {
    static let endingSignals: [Int32] = [SIGHUP, SIGINT, SIGQUIT, SIGTERM]

    /// Two short clips in a folder of their own, for `browse`.
    static let folder: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-signals-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, sample) in [("a.mp4", "h264_gop2s.mp4"), ("b.mp4", "rotated90.mp4")] {
            let target = Scrub.packageRoot.appendingPathComponent("samples/\(sample)").path
            try? FileManager.default.createSymbolicLink(atPath: dir + "/" + name, withDestinationPath: target)
        }
        return dir
    }()

    /// Where a full-screen command is when the signal comes.
    enum ScreenState: String, CaseIterable, CustomTestStringConvertible {
        case playing, paused, grid, playerFromGrid, pausedFromGrid, filterDialog, infoPanel
        var testDescription: String { rawValue }

        var command: String {
            let clip = Scrub.packageRoot.appendingPathComponent("samples/h264_gop2s.mp4").path
            switch self {
            case .playing, .paused: return "play --loop --graphics blocks '\(clip)'"
            default: return "browse --graphics blocks '\(SignalTests.folder)'"
            }
        }

        /// Gets there; false when the screen never showed it.
        func reach(_ t: PrivateTerminal) -> Bool {
            let grid: (String) -> Bool = { $0.contains("a.mp4") && $0.contains("b.mp4") }
            switch self {
            case .playing: return t.waitFor { $0.contains("playing") }.contains("playing")
            case .paused:
                guard t.waitFor({ $0.contains("playing") }).contains("playing") else { return false }
                t.keys(" ")
                return t.waitFor { $0.contains("paused") }.contains("paused")
            case .grid: return grid(t.waitFor(grid))
            case .playerFromGrid, .pausedFromGrid:
                guard grid(t.waitFor(grid)) else { return false }
                t.keys("Enter")
                guard t.waitFor({ $0.contains("playing") }).contains("playing") else { return false }
                if self == .playerFromGrid { return true }
                t.keys(" ")
                return t.waitFor { $0.contains("paused") }.contains("paused")
            case .filterDialog:
                guard grid(t.waitFor(grid)) else { return false }
                t.keys("/", "b")
                return !t.waitFor({ !$0.contains("a.mp4") && $0.contains("b.mp4") }).contains("a.mp4")
            case .infoPanel:
                guard grid(t.waitFor(grid)) else { return false }
                t.keys("i")
                return t.waitFor { $0.contains("h264") }.contains("h264")
            }
        }
    }

    @Test(arguments: ScreenState.allCases, endingSignals)
    func aSignalEndsAFullScreenCommandAndPutsTheTerminalBack(state: ScreenState, signal: Int32) throws {
        let t = try PrivateTerminal()
        defer { t.close() }
        t.run(state.command)
        let pid = try #require(t.pid(), "it started")
        try #require(state.reach(t), "reached \(state): \(t.screen)")
        kill(pid, signal)
        let took = OutsideProcess.ends(pid, within: 1)
        #expect(took != nil, "ended within a second of signal \(signal)")
        let s = t.waitFor(timeout: 5) { PrivateTerminal.exitStatus($0) != nil && t.modes.after != nil }
        #expect(PrivateTerminal.exitStatus(s) == 128 + signal, "exit status 128 + \(signal): \(s)")
        let modes = t.modes
        #expect(modes.before != nil && modes.before == modes.after, "the terminal's modes put back")
        #expect(Tmux.shownSeconds(s) == nil && !s.contains("b.mp4"), "the shell's screen is back: \(s)")

    }

    /// The terminal closed under it (tmux's server killed: the shell and the command get SIGHUP), playing or in a
    /// player started from the grid: it ends within a second instead of running on for ever without a terminal.
    @Test(arguments: [ScreenState.playing, .pausedFromGrid])
    func closingTheTerminalEndsIt(state: ScreenState) throws {
        let t = try PrivateTerminal()
        defer { t.close() }
        t.run(state.command)
        let pid = try #require(t.pid(), "it started")
        try #require(state.reach(t), "reached \(state): \(t.screen)")
        t.killServer()
        #expect(OutsideProcess.ends(pid, within: 1) != nil, "ended within a second of its terminal")
        if OutsideProcess.alive(pid) { kill(pid, SIGKILL) }
    }

    /// A player started from the grid and left: the signals are as they were (blocked, ignored, caught), and the
    /// grid still follows the window's size.
    @Test func leavingAPlayerStartedFromTheGridLeavesTheSignalsAsTheyWere() throws {
        let t = try PrivateTerminal()
        defer { t.close() }
        t.run(ScreenState.grid.command)
        let pid = try #require(t.pid(), "it started")
        try #require(ScreenState.grid.reach(t))
        let before = OutsideProcess.signalDispositions(pid)
        t.keys("Enter")
        #expect(t.waitFor { $0.contains("playing") }.contains("playing"))
        t.keys("q")
        #expect(t.waitFor { !$0.contains("playing") && $0.contains("b.mp4") }.contains("b.mp4"))
        let after = OutsideProcess.signalDispositions(pid)
        #expect(before.count == 3 && after == before, "\(before) → \(after)")
        // (The info line is the window's last: row 30, then row 40 once laid out for the new size.)
        func infoRow(_ s: String) -> Int? {
            s.split(separator: "\n", omittingEmptySubsequences: false).lastIndex { $0.contains("a.mp4 · ") }
        }
        #expect(infoRow(t.screen) == 29)
        t.resize(columns: 100, rows: 40)
        let relaid = t.waitFor { infoRow($0) == 39 }
        #expect(infoRow(relaid) == 39, "laid out again for 40 rows: \(relaid)")
        kill(pid, SIGTERM)
        #expect(OutsideProcess.ends(pid, within: 1) != nil)
        #expect(PrivateTerminal.exitStatus(t.waitFor(timeout: 5) { PrivateTerminal.exitStatus($0) != nil }) == 143)
    }
}

/// The batch commands end the same way in the middle of their work: `thumbs` (its outputs so far whole, a line saying
/// how far it got), `preview` and `cut` (their unfinished output removed; `cut` reads from a slow server, so it is
/// caught writing it), `bench` (its measured child ended too).
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "needs ffmpeg"),
        .timeLimit(.minutes(5)))
struct BatchSignalTests {
    /// A 20-s 640×360 clip with sound, in a folder served by the tests' HTTP server.
    static let served: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-sigserve-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        _ = try? Scrub.execute("ffmpeg", ["-v", "error", "-y", "-f", "lavfi",
                                          "-i", "testsrc2=size=640x360:rate=30:duration=20",
                                          "-f", "lavfi", "-i", "sine=f=440:duration=20", "-c:v", "libx264",
                                          "-preset", "ultrafast", "-g", "30", "-c:a", "aac", dir + "/clip.mp4"])
        return dir
    }()

    enum Command: String, CaseIterable, CustomTestStringConvertible {
        case thumbs, preview, cut, bench
        var testDescription: String { rawValue }
    }

    /// The names in `dir` (none when it cannot be read).
    static func files(_ dir: String) -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] }

    /// Files in `dir` a finished run would not leave: temporary ones (`.NAME….tmp`).
    static func temporaryFiles(_ dir: String) -> [String] { files(dir).filter { $0.hasSuffix(".tmp") } }

    @Test(arguments: Command.allCases, SignalTests.endingSignals)
    func aSignalEndsABatchCommandMidWork(command: Command, signal: Int32) throws {
        let clip = Self.served + "/clip.mp4"
        try #require(FileManager.default.fileExists(atPath: clip), "the clip was made")
        let work = FileManager.default.temporaryDirectory
            .appendingPathComponent("scrubkit-sigwork-\(UUID().uuidString.prefix(8))").path
        let out = work + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        try RemoteMediaTests.serve(Self.served, ["--rate", "200000"]) { base in
            let args: [String]
            // When it is in the middle of its work: an output written (thumbs), a temporary file (preview, cut), a
            // child measuring (bench).
            let midWork: (pid_t) -> Bool
            switch command {
            case .thumbs:
                let sample = Scrub.packageRoot.appendingPathComponent("samples/h264_gop2s.mp4").path
                for n in 1...20 {
                    try FileManager.default.createSymbolicLink(atPath: "\(work)/c\(n).mp4", withDestinationPath: sample)
                }
                args = ["thumbs", work, "--out", out, "--count", "20", "--exact", "--jobs", "2"]
                midWork = { _ in Self.files(out).contains { $0.hasSuffix(".jpg") } }
            case .preview:
                // (Local: the scenes are found from the whole file first; the GIF's file appears once it is written.)
                args = ["preview", clip, "--output", out + "/p.gif", "--count", "6", "--excerpt", "2"]
                midWork = { _ in !Self.temporaryFiles(out).isEmpty }
            case .cut:
                args = ["cut", "\(base)/clip.mp4", "--from", "2", "--to", "18", "--output", out + "/c.mp4"]
                midWork = { _ in !Self.temporaryFiles(out).isEmpty }
            case .bench:
                try FileManager.default.createSymbolicLink(atPath: work + "/bench.mp4", withDestinationPath: clip)
                args = ["bench", work + "/bench.mp4", "--runs", "20"]
                midWork = { !OutsideProcess.children(of: $0).isEmpty }
            }
            let spawned = Tmux.spawn([Scrub.binary] + args, stdout: work + "/stdout", stderr: work + "/stderr")
            let pid = try #require(spawned)
            let end = Date().addingTimeInterval(30)
            while !midWork(pid) && Date() < end { usleep(5_000) }
            let children = OutsideProcess.children(of: pid)
            #expect(midWork(pid), "\(command) got to the middle of its work")
            kill(pid, signal)
            let status = OutsideProcess.exitStatus(pid, within: 1)
            #expect(status == 128 + signal, "\(command) ended, 128 + \(signal): \(String(describing: status))")
            #expect(Self.temporaryFiles(out).isEmpty, "no temporary file left: \(Self.temporaryFiles(out))")
            switch command {
            case .thumbs:
                let said = (try? String(contentsOfFile: work + "/stderr", encoding: .utf8)) ?? ""
                #expect(said.contains("stopped by SIG"), "says how far it got: \(said.suffix(200))")
            case .preview, .cut:
                #expect(Self.files(out).isEmpty, "no output: it was not finished")
            case .bench:
                let ended = children.allSatisfy { OutsideProcess.ends($0, within: 1) != nil }
                #expect(!children.isEmpty && ended, "its child ended too")
            }
        }
    }
}
