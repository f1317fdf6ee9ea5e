import Foundation
import ScrubKit
import ScrubTerminal

/// `scrubkit play FILE|FOLDER|LIST…`
enum PlayCommand {
    static let spec = CommandSpec(
        name: "play",
        abstract:
            "Scrub and preview a video in the terminal (kitty, iTerm2, sixel or half-block graphics), with sound.",
        forms: ["FILE|FOLDER|LIST…", "--bench FILE"],
        options: [
            OptionSpec(
                names: ["--graphics"], takesValue: true, valueName: "KIND",
                help:
                    "auto (default: environment, then terminal queries), kitty, iterm, sixel, blocks, blocks256, none.",
                values: ["auto", "kitty", "iterm", "sixel", "blocks", "blocks256", "none"]),
            OptionSpec(
                names: ["--exact"], takesValue: false,
                help: "Land keyboard/mouse scrubs on the exact frame (toggle with e)."),
            OptionSpec(names: ["--loop"], takesValue: false, help: "Start over at the end instead of pausing."),
            OptionSpec(names: ["--recursive"], takesValue: false, help: "A folder's subfolders' files too."),
            OptionSpec(names: ["--shuffle"], takesValue: false, help: "Play the entries in a random order."),
            OptionSpec(
                names: ["--loop-playlist"], takesValue: false,
                help: "After the last entry start over at the first (and < on the first goes to the last)."),
            OptionSpec(
                names: ["--start"], takesValue: true, valueName: "N",
                help: "Start at the Nth entry, counted from 1 (after --shuffle).", range: 1...1_000_000, whole: true),
            OptionSpec(
                names: ["--cut-dir"], takesValue: true, valueName: "DIR",
                help: "Where c writes the A-B section (default: beside the file; a URL's in the current folder)."),
            OptionSpec(
                names: ["--sid"], takesValue: true, valueName: "N|no",
                help:
                    "Which subtitle track to show, counted from 1 over the file's subtitle streams and then the "
                        + "subtitle files; no: none (default: a subtitle file beside the video, else a stream marked "
                            + "default or forced)."
            ),
            OptionSpec(
                names: ["--sub-delay"], takesValue: true, valueName: "SECONDS",
                help: "Show subtitles this much later (negative: earlier), e.g. 0.5 or -1.2 (z/Z change it by 0.1 s)."),
            OptionSpec(
                names: ["--sub-file"], takesValue: true, valueName: "FILE",
                help: "A subtitle file (SRT, ASS/SSA, WebVTT) to offer, shown first; may be given more than once."),
            OptionSpec(
                names: ["--screenshot-dir"], takesValue: true, valueName: "DIR",
                help: "Where s saves screenshots (default: the current folder)."),
            OptionSpec(
                names: ["--no-audio"], takesValue: false, help: "Play no sound (the picture runs on the system "
                    + "clock)."),
            OptionSpec(
                names: ["--audio-device"], takesValue: true, valueName: "NAME",
                help: "The PulseAudio/PipeWire sink to play on (pactl list short sinks); default: the server's default."
            ),
            OptionSpec(
                names: ["--aid"], takesValue: true, valueName: "N",
                help: "Which audio stream, counted from 1 (default: the container's first decodable one).",
                range: 1...64, whole: true),
            OptionSpec(
                names: ["--no-pitch-correction"], takesValue: false,
                help:
                    "At other speeds let the sound's pitch follow the speed, like a tape (mpv's "
                        + "--audio-pitch-correction=no); by default it is kept."
            ),
            OptionSpec(
                names: ["--av-offset"], takesValue: true, valueName: "SECONDS",
                help:
                    "Shift the sound against the picture (mpv's --audio-delay): positive plays it later, e.g. 0.1 or "
                        + "-0.25."
            ),
            OptionSpec(
                names: ["--bench"], takesValue: false,
                help:
                    "Headless benchmark: play to a null terminal, then scripted seeks; print statistics (with the "
                        + "subtitles play would show first, and their cost per picture).",
                form: 1),
            OptionSpec(
                names: ["--seconds"], takesValue: true, valueName: "N",
                help: "With --bench: seconds of playback (default 10).", range: 1...3600, whole: true, form: 1),
            OptionSpec(
                names: ["--size"], takesValue: true, valueName: "COLSxROWS",
                help: "With --bench: terminal size (default 160x48).", form: 1),
            OptionSpec(
                names: ["--seeks"], takesValue: true, valueName: "N",
                help: "With --bench: scripted seeks of each kind after playback (default 20; 0: none).",
                range: 0...1000, whole: true, form: 1),
            OptionSpec(
                names: ["--hovers"], takesValue: true, valueName: "N",
                help:
                    "With --bench: after the seeks, a pointer sweep along the bar and N jumps to random columns while "
                        + "playing, timed to their hover previews painted (default 40; 0: none).",
                range: 0...1000, whole: true, form: 1),
            OptionSpec(
                names: ["--with-audio"], takesValue: false,
                help:
                    "With --bench: play the sound too (the server's default sink, or --audio-device), leading the "
                        + "clock as in play.",
                form: 1),
            OptionSpec(
                names: ["--paint-log"], takesValue: true, valueName: "FILE",
                help:
                    "With --bench: write one line per picture painted during playback, 'MONOTONIC_SECONDS "
                        + "MEDIA_SECONDS' (CLOCK_MONOTONIC), to measure A/V sync against a recording.",
                form: 1),
        ],
        discussion: """
        Keys: space play/pause · ←/→ ±5 s · ↑/↓ ±60 s · ,/. one frame back/forward · 0–9 jump to \
        0–90 % ·
        Home/End · [/] slower/faster · e exact seeks on/off · m mute · / and * volume down/up · a scrub sound \
        on/off · \
        # next audio stream ·
        PgUp/PgDn previous/next chapter (ticks on the bar; the status line names the chapter) · l A-B loop: the first
        press marks A, the second B (playback loops between them; A and B on the bar), the third clears · c cut the
        A-B section without re-encoding, as scrubkit cut does, into NAME-cut-A-B.EXT (never over an existing file) ·
        s screenshot: the frame on screen at the video's own size as NAME-HHhMMmSS.mmms.png (the pixels of thumb --exact
        --max-size 0) in the current folder or --screenshot-dir, never over a file · S the same with the subtitles \
        shown
        burned in ·
        < and > previous/next entry (Enter also next) · v subtitles shown/hidden · j/J next/previous subtitle track
        (then off) · z/Z subtitles 0.1 s earlier/later · Ctrl-Z suspend (fg goes on) · q, Esc or Ctrl-C quit.
        Several files, a folder (its video and sound files in natural order: clip2 before clip10) or an .m3u/.m3u8
        list play one after another, as mpv's playlist: the end of one starts the next, the status line shows
        2/14 NAME; an entry that cannot be played is skipped (the status line says why, and the line is printed after
        the screen is restored), the rest play, and the exit status is 1 if any was skipped.
        Arrow keys land on keyframes unless exact seeks are on; 0–9, Home, End and a mouse release land exactly.
        Mouse: click or drag on the bar to seek; hovering over it shows a small picture of the time under the pointer
        (from a second decoder: playback goes on untouched).
        Started in the background (clip.mp4 &, or under timeout in a script) it plays without the keyboard and takes it
        when brought to the foreground (fg). Keys come from standard input, or from /dev/tty when that is not a \
        terminal.
        kitty on the same machine gets its pictures through files in /dev/shm (SCRUBKIT_KITTY_TRANSFER=direct: in the
        escape codes, as over SSH).
        Sound goes to the PulseAudio server (PipeWire desktops serve the same protocol) and leads the clock while it
        plays, at 0.25× to 4× with its pitch kept (libavfilter's atempo); while seeking and without a server (over
        SSH, say) the picture plays silently on the system clock and the status line says why. Paused, each place a \
        scrub lands on (dragging,
        holding a seek key, stepping) plays 80 ms of its sound, faded in and out, so speech and music can be found by
        ear (a toggles it).
        Faults are said on the status line while they last, the keys still answering: a server waited for or gone
        (within --timeout; a seek once it is back reads on), a file cut short or deleted while playing (what was read
        plays on); a sound server that restarts is connected to again and the sound comes back.
        """,
        operands: .media,
        examples: [
            Example(title: "Play and scrub a video in this terminal", command: "scrubkit play film.mkv"),
            Example(
                title: "Force coloured half-blocks (over a slow SSH link)",
                command: "scrubkit play film.mkv --graphics blocks"),
            Example(
                title: "Measure frame rate and seek times without a terminal",
                command: "scrubkit play --bench clip.mp4 --seconds 5"),
        ],
        operandCount: 1...Int.max)

    static func run(_ args: [String]) throws -> Int32 {
        let p = try ParsedArguments(args, spec: spec)
        let path = p.positional[0]
        let graphics = try self.graphics(p, command: "play")
        if p.flag("--bench") {
            guard p.positional.count == 1 else {
                throw UsageError(message: "--bench measures one file at a time", command: "play")
            }
            return try bench(path, p, graphics ?? .blocks)
        }
        let playlist: Playlist
        do { playlist = try self.playlist(p) } catch { printError("scrubkit: \(error)"); return 1 }
        var options = try playerOptions(p, command: "play")
        options.graphics = graphics
        options.loop = p.flag("--loop")
        options.subtitleFiles = p.values("--sub-file")
        for file in options.subtitleFiles where !FileManager.default.isReadableFile(atPath: file) {
            printError(
                "scrubkit: \(file): "
                    + (FileManager.default.fileExists(atPath: file) ? "cannot be read" : "no such file"))
            return 1
        }
        if let sid = p.value("--sid") {
            if sid == "no" {
                options.subtitles = .none
            } else if let n = Int(sid), (1...1000).contains(n) {
                options.subtitles = .number(n)
            } else {
                throw UsageError(message: "--sid expects a track number from 1, or no; got '\(sid)'", command: "play")
            }
        } else if let first = options.subtitleFiles.first {
            options.subtitles = .file(first)
        }
        if let text = p.value("--sub-delay") {
            guard let seconds = Double(text), seconds.isFinite, abs(seconds) <= 3600 else {
                throw UsageError(
                    message: "--sub-delay expects seconds between -3600 and 3600, got '\(text)'", command: "play")
            }
            options.subtitleDelay = seconds
        }
        // (The player opens the file once: no probe before it. One that cannot be played is said by the app.)
        let app = PlayerApp(playlist: playlist, options: options)
        do {
            let status = try app.run()
            for line in app.failures { printError(line) }
            return status
        } catch {
            printError("scrubkit: \(playlist.current): \(error)")
            return 1
        }
    }

    /// The options `play` shares with `browse` (which opens files in the player): seeks, where `c` and `s` write, and
    /// the sound.
    static let sharedOptionNames = ["--exact", "--cut-dir", "--screenshot-dir", "--no-audio", "--audio-device", "--aid",
                                    "--no-pitch-correction", "--av-offset"]

    /// `--size COLSxROWS` of a headless benchmark (default 160×48; at least 10 columns and `minimumRows` rows).
    static func benchSize(_ p: ParsedArguments, minimumRows: Int, command: String) throws -> (columns: Int, rows: Int) {
        guard let s = p.value("--size") else { return (160, 48) }
        let parts = s.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] >= 10, parts[1] >= minimumRows else {
            throw UsageError(message: "--size expects COLSxROWS, got '\(s)'", command: command)
        }
        return (parts[0], parts[1])
    }

    /// `--graphics`: nil for auto.
    static func graphics(_ p: ParsedArguments, command: String) throws -> GraphicsKind? {
        guard p.value("--graphics")?.lowercased() != "auto" else { return nil }
        return try p.choice("--graphics", GraphicsKind.init(rawValue:))
    }

    /// The player's options from ``sharedOptionNames`` as `command` was given them.
    static func playerOptions(_ p: ParsedArguments, command: String) throws -> PlayerApp.Options {
        var options = PlayerApp.Options()
        options.exactSeeks = p.flag("--exact")
        options.cutDirectory = p.value("--cut-dir")
        options.screenshotDirectory = p.value("--screenshot-dir")
        if p.flag("--no-audio") {
            options.sound = nil
        } else {
            options.sound?.device = p.value("--audio-device")
            options.keepsPitch = !p.flag("--no-pitch-correction")
            options.sound?.streamNumber = try p.int("--aid")
            if let text = p.value("--av-offset") {
                guard let seconds = Double(text), seconds.isFinite, abs(seconds) <= 60 else {
                    throw UsageError(
                        message: "--av-offset expects seconds between -60 and 60, got '\(text)'", command: command)
                }
                options.sound?.offset = seconds
            }
        }
        return options
    }

    /// The entries the operands name, shuffled and started as the options say.
    static func playlist(_ p: ParsedArguments) throws -> Playlist {
        let entries = try Playlist.entries(of: p.positional, recursive: p.flag("--recursive"))
        var playlist = Playlist(entries: entries, loops: p.flag("--loop-playlist"))
        if p.flag("--shuffle") {
            var random = SystemRandomNumberGenerator()
            playlist.shuffle(using: &random)
        }
        if let n = try p.int("--start") {
            guard n <= entries.count else {
                throw UsageError(message: "--start \(n): there are \(entries.count) entries", command: "play")
            }
            playlist = Playlist(entries: playlist.entries, start: n - 1, loops: playlist.loops)
        }
        return playlist
    }

    static func bench(_ path: String, _ p: ParsedArguments, _ kind: GraphicsKind) throws -> Int32 {
        let seconds = Double(try p.int("--seconds") ?? 10)
        let (cols, rows) = try benchSize(p, minimumRows: 3, command: "play")
        var sound: SoundOptions? = nil
        if p.flag("--with-audio") {
            sound = SoundOptions(
                device: p.value("--audio-device"), streamNumber: try p.int("--aid"))
        }
        let r: PlayerBenchmark.Report
        let seeks = try p.int("--seeks") ?? 20
        let hovers = try p.int("--hovers") ?? 40
        do {
            r = try PlayerBenchmark.run(
                path: path, seconds: seconds, columns: cols, rows: rows, kind: kind, seeks: seeks, hovers: hovers,
                sound: sound)
        } catch { printError("scrubkit: \(error)"); return 1 }
        if let log = p.value("--paint-log") {
            let lines = r.paints.map { String(format: "%.6f %.6f\n", $0.at, $0.time.seconds) }.joined()
            do { try AtomicFile.write(Array(lines.utf8), to: log) } catch {
                printError("scrubkit: \(log): \(error)"); return 1
            }
        }
        let pct = r.expectedFrames > 0 ? 100 * Double(r.dropped) / Double(r.expectedFrames) : 0
        func ms(_ xs: [Double]) -> String {
            String(
                format: "p50 %.0f ms  p95 %.0f ms  max %.0f ms", PlayerBenchmark.percentile(xs, 50),
                PlayerBenchmark.percentile(xs, 95), xs.max() ?? 0)
        }
        printOut(
            "playback   \(String(format: "%.1f", r.seconds)) s at \(cols)×\(rows) \(kind.rawValue): \(r.shown) frames "
                + "shown, \(r.dropped) dropped (\(String(format: "%.2f", pct)) % of \(r.expectedFrames)), "
                    + "\(String(format: "%.1f", r.bytesPerSecond / 1_000_000)) MB/s of escape codes"
        )
        if seeks > 0 {
            printOut("seek→paint keyframe (\(r.keyframeSeeks.count) seeks): \(ms(r.keyframeSeeks))")
            printOut("seek→paint exact    (\(r.exactSeeks.count) seeks): \(ms(r.exactSeeks))")
        }
        if !r.hoverSweep.isEmpty {
            printOut("move→hover preview, sweep (\(r.hoverSweep.count) moves): \(ms(r.hoverSweep))")
            printOut("move→hover preview, jumps (\(r.hoverJumps.count) moves): \(ms(r.hoverJumps))")
        }
        printOut("painted    \(r.painted) pictures")
        if let track = r.subtitleTrack {
            let c = r.subtitleCosts
            printOut(
                "subtitles  \(track): \(r.subtitled) of \(c.count) pictures with a subtitle; per picture "
                    + String(
                        format: "p50 %.2f ms  p95 %.2f ms  max %.2f ms", PlayerBenchmark.percentile(c, 50),
                        PlayerBenchmark.percentile(c, 95), c.max() ?? 0))
        }
        if sound != nil {
            printOut(
                "sound      "
                    + (r.sound.isAvailable ? "played, leading the clock" : "none (\(r.sound.problem ?? "unknown"))"))
        }
        if r.painted == 0 && kind != .none { printError("scrubkit: no picture was painted (a blank screen)"); return 1 }
        return 0
    }
}
