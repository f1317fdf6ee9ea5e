import Foundation
import Synchronization
import Testing

/// Runs the built `scrubkit` binary.
enum Scrub {
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    static let binary: String = {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for dir in [here, here.deletingLastPathComponent(), packageRoot.appendingPathComponent(".build/debug")] {
            let p = dir.appendingPathComponent("scrubkit").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return packageRoot.appendingPathComponent(".build/debug/scrubkit").path
    }()

    static let media = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/media")
    static var corpusAvailable: Bool {
        let ok = FileManager.default.fileExists(atPath: media.appendingPathComponent("MANIFEST.tsv").path)
        if !ok && ProcessInfo.processInfo.environment["SCRUBKIT_REQUIRE_CORPUS"] == "1" {
            fatalError("corpus required but missing")
        }
        return ok
    }

    struct Result { var status: Int32; var stdout: String; var stderr: String }

    static func run(_ args: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Result {
        try execute(binary, args, stdin: stdin, environment: environment)
    }

    /// Runs `executable` (a path, or a name looked up in PATH) with `args`, in `directory` when given.
    static func execute(
        _ executable: String, _ args: [String], stdin: String? = nil, environment: [String: String] = [:],
        directory: String? = nil
    ) throws -> Result {
        let p = Process()
        if executable.contains("/") { p.executableURL = URL(fileURLWithPath: executable) }
        else { p.executableURL = URL(fileURLWithPath: "/usr/bin/env"); p.arguments = [executable] }
        p.arguments = (p.arguments ?? []) + args
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        if let stdin {
            let inPipe = Pipe()
            p.standardInput = inPipe
            try p.run()
            inPipe.fileHandleForWriting.write(stdin.data(using: .utf8)!)
            try inPipe.fileHandleForWriting.close()
        } else {
            p.standardInput = FileHandle.nullDevice
            try p.run()
        }
        // Drain stderr on its own thread: a child that fills one pipe while we wait on the other would deadlock.
        let errData = Mutex(Data())
        let drained = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let e = err.fileHandleForReading.readDataToEndOfFile()
            errData.withLock { $0 = e }
            drained.signal()
        }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        let e = errData.withLock { $0 }
        p.waitUntilExit()
        return Result(
            status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
            stderr: String(decoding: e, as: UTF8.self))
    }

    static func jsonLines(_ s: String) -> [[String: Any]] {
        s.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}

@Suite struct CLIUsageTests {
    @Test func versionAndHelp() throws {
        let v = try Scrub.run(["--version"])
        #expect(v.status == 0 && v.stdout.hasPrefix("scrubkit "))
        for cmd in ["info", "thumb", "downsample"] {
            let h = try Scrub.run([cmd, "--help"])
            #expect(h.status == 0, "\(cmd) --help")
            #expect(h.stdout.contains("USAGE: scrubkit \(cmd)"))
        }
    }

    @Test func theTableDecidesUsageHelpAndRules() throws {
        // Usage lines name every documented option (generated from the table: none omitted, as info's once was).
        let info = try Scrub.run(["info", "--help"]).stdout
        let usage = String(info[info.range(of: "USAGE:")!.lowerBound..<info.range(of: "OPTIONS:")!.lowerBound])
        for o in ["--json", "--no-decode", "--max-pixels", "--scenes"] {
            #expect(usage.contains(o), "info's usage names \(o)")
        }
        // Hidden plumbing is parsed but never shown.
        let bench = try Scrub.run(["bench", "--help"]).stdout
        #expect(!bench.contains("--child"))
        #expect(!(try Scrub.run(["manual", "bench"]).stdout.contains("\\-\\-child")))
        #expect(!(try Scrub.run(["completions", "bash"]).stdout.contains("--child")))
        // The rules each option declares, checked by the parser with one message each.
        let rules: [([String], String)] = [
            (["thumbs", "x", "--count", "3", "--at", "1"], "choose one of --count, --every, --at"),
            (["thumb", "x", "--exact", "--tolerance", "1s"], "choose one of --exact, --fast, --tolerance"),
            (["thumbs", "x", "--fps", "5"], "--fps goes with --preview"),
            (["thumbs", "x", "--font", "serif"], "--font goes with --sheet or --columns or --rows"),
            (["thumbs", "x", "--preview", "gif", "--at", "1"], "--preview does not go with --at"),
            (["preview", "x", "--quality", "0"], "--quality expects a whole number in 1…100, got '0'"),
            (["--timeout", "0", "info", "x"], "--timeout expects a number in 0.01…3600, got '0'"),
            (["info", "x", "--timeout=9999"], "--timeout expects a number in 0.01…3600, got '9999'"),
            // Fixed sets and ranges are the table's, whatever the command: one message each.
            (["thumb", "x", "--format", "gif"], "--format expects one of png, jpeg, webp, got 'gif'"),
            (["thumbs", "x", "--preview", "avi"], "--preview expects one of webp, gif, mp4, got 'avi'"),
            (["play", "--graphics", "bogus", "x"], "--graphics expects one of auto, kitty, iterm, sixel, blocks, "
                + "blocks256, none, got 'bogus'"),
            (["thumbs", "x", "--jobs", "0"], "--jobs expects a whole number in 1…256, got '0'"),
            (["thumb", "x", "--min-contrast", "300"], "--min-contrast expects a number in 0…255, got '300'"),
            (["browse", "--tile-size", "2.5", "."], "--tile-size expects a whole number in 48…1024, got '2.5'"),
            // Operand counts too.
            (["cut", "a.mp4", "b.mp4"], "one file at a time"),
            (["downsample", "--max-size", "64"], "no image given"),
            (["cache", "x"], "cache takes no file"),
        ]
        for (args, message) in rules {
            let r = try Scrub.run(args)
            #expect(r.status == 64 && r.stderr.hasPrefix("Error: " + message + "\n"), "\(args): \(r.stderr)")
        }
        // Another spelling the table accepts, in any case: the file is what fails, not the option.
        #expect(try Scrub.run(["thumb", "/nonexistent.mp4", "--format", "JPG"]).status == 1)
        // Global options stand anywhere before `--` and are not seen by the command.
        let r = try Scrub.run(["info", "--timeout", "5", "--json", "/nonexistent.mp4"])
        #expect(r.status == 1 && r.stdout.contains("no such file"), "\(r.stderr)")
    }

    @Test func usageErrorsExit64WithAHint() throws {
        for args in [["info"], ["info", "--bogus", "x"], ["nosuchcommand"], [], ["info", "--max-pixels", "abc", "x"]] {
            let r = try Scrub.run(args)
            #expect(r.status == 64, "\(args)")
            #expect(r.stderr.contains("Error") || r.stderr.contains("USAGE"), "\(args): \(r.stderr)")
        }
    }

    @Test func missingFileIsOneLineAndNonZero() throws {
        let r = try Scrub.run(["info", "--json", "/nonexistent/clip.mp4"])
        #expect(r.status == 1)
        let j = Scrub.jsonLines(r.stdout)
        #expect(j.count == 1)
        #expect((j.first?["error"] as? String)?.contains("/nonexistent/clip.mp4: no such file") == true)
    }

    @Test func pipesAndDevicesAreNamedForWhatTheyAre() throws {
        // A FIFO nobody writes to: refused at once (not "empty file", and no wait for a writer).
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-fifo-\(UUID().uuidString).mp4"
        ).path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let r = try Scrub.run(["thumb", fifo, "-o", fifo + ".jpg"])
        #expect(r.status == 1 && r.stderr.contains("\(fifo): is a pipe (FIFO), not a file"), "\(r.stderr)")
        let d = try Scrub.run(["info", "/dev/zero"])
        #expect(d.status == 1 && d.stderr.contains("/dev/zero: is a device, not a file"), "\(d.stderr)")
    }
}

@Suite(.enabled(if: Scrub.corpusAvailable, "needs ../shared/media"))
struct CLIInfoTests {
    @Test func jsonContractHasEveryField() throws {
        let r = try Scrub.run([
            "info", "--json", Scrub.media.appendingPathComponent("androidx-media/mp4/portrait_4k60.mp4").path,
        ])
        #expect(r.status == 0)
        let j = try #require(Scrub.jsonLines(r.stdout).first)
        for k in [
            "path", "container", "duration", "durationKind", "startTime", "isStill", "bitRate", "video", "audio",
            "subtitles", "attachedPictures", "chapters", "error",
        ] {
            #expect(j.keys.contains(k), "missing \(k)")
        }
        let v = try #require(j["video"] as? [String: Any])
        for k in [
            "codec", "profile", "pixelFormat", "bitDepth", "width", "height", "sar", "rotation", "mirrored",
            "displayWidth",
            "displayHeight", "frameRate", "averageFrameRate", "frameCount", "keyframeInterval", "colorPrimaries",
            "colorTransfer", "colorMatrix", "colorRange", "hdr",
        ] {
            #expect(v.keys.contains(k), "missing video.\(k)")
        }
        #expect(v["rotation"] as? Int == 90)
    }

    @Test func chaptersAreListedWithTimesAndTitles() throws {
        // An MP3 whose ID3 tag has two chapters (CHAP frames), as ffprobe reads them.
        let r = try Scrub.run([
            "info", "--json", Scrub.media.appendingPathComponent("androidx-media/mp3/bear-id3.mp3").path,
        ])
        #expect(r.status == 0)
        let j = try #require(Scrub.jsonLines(r.stdout).first)
        let chapters = try #require(j["chapters"] as? [[String: Any]])
        let probe = try Scrub.execute(
            "ffprobe",
            [
                "-v", "error", "-show_chapters", "-of", "json",
                Scrub.media.appendingPathComponent("androidx-media/mp3/bear-id3.mp3").path,
            ])
        let expected = try #require(
            (try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any])?["chapters"]
                as? [[String: Any]])
        try #require(expected.count == 2, "ffprobe sees the two chapters")
        #expect(chapters.count == expected.count)
        for (c, e) in zip(chapters, expected) {
            #expect(abs((c["start"] as? Double ?? -1) - (Double(e["start_time"] as? String ?? "") ?? -2)) < 1e-6)
            #expect(abs((c["end"] as? Double ?? -1) - (Double(e["end_time"] as? String ?? "") ?? -2)) < 1e-6)
            #expect(c["title"] as? String == (e["tags"] as? [String: String])?["title"])
        }
        let table = try Scrub.run(["info", Scrub.media.appendingPathComponent("androidx-media/mp3/bear-id3.mp3").path])
        #expect(table.stdout.contains("chapters") && table.stdout.contains("Chapter title"), "\(table.stdout)")
    }

    @Test func allFilesReportedThenNonZeroWhenAnyFailed() throws {
        let good = Scrub.media.appendingPathComponent("androidx-media/mp4/sample.mp4").path
        let bad = Scrub.media.appendingPathComponent("androidx-media/mp4/sample_malformed_free_box.mp4").path
        let r = try Scrub.run(["info", "--json", bad, good])
        #expect(r.status == 1)
        let lines = Scrub.jsonLines(r.stdout)
        #expect(lines.count == 2)
        #expect(lines[0]["error"] is String)
        #expect(lines[1]["error"] is NSNull)
    }

    @Test func tableOutputIsReadable() throws {
        let r = try Scrub.run([
            "info", Scrub.media.appendingPathComponent("androidx-media/mp4/pixel7_videoOnly_cleaned.mp4").path,
        ])
        #expect(r.status == 0)
        #expect(r.stdout.contains("rotate 180°"))
        #expect(r.stdout.contains("1920×1080"))
    }
}

/// FFmpeg is opened on first use (Sources/CFFmpeg/loader.c), so work that needs no codec never maps libavcodec and
/// its ~150 dependencies. The dynamic loader's own log (LD_DEBUG=files) says what was opened.
@Suite struct LazyFFmpegTests {
    static func librariesOpened(by args: [String]) throws -> (Scrub.Result, [String]) {
        let r = try Scrub.run(args, environment: ["LD_DEBUG": "files"])
        let opened = r.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let m = line.firstMatch(of: /file=(\S+)\s+\[0\];\s+dynamically loaded/) else { return nil }
            return String(m.1)
        }
        return (r, opened)
    }

    @Test func aJPEGThumbnailNeverLoadsTheCodecLibraries() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("lazy-\(getpid()).jpg").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let jpeg = Scrub.packageRoot.appendingPathComponent("samples/large_6000x4000.jpg").path
        let (r, opened) = try Self.librariesOpened(by: ["thumb", jpeg, "--max-size", "160", "-o", out])
        #expect(r.status == 0, "\(r.stderr.suffix(300))")
        #expect(FileManager.default.fileExists(atPath: out))
        #expect(!opened.contains { $0.hasPrefix("libavcodec") || $0.hasPrefix("libavformat") }, "opened: \(opened)")
        for args in [["--help"], ["completions", "bash"], ["manual", "thumb"]] {
            let (h, none) = try Self.librariesOpened(by: args)
            #expect(h.status == 0 && none.isEmpty, "\(args) opened \(none)")
        }
    }

    @Test(.enabled(if: Scrub.corpusAvailable, "needs ../shared/media"))
    func aWebPThumbnailLoadsNoFFmpegAtAll() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("lazy-webp-\(getpid()).jpg").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let webp = Scrub.media.appendingPathComponent("androidx-media/webp/black_large.webp").path   // 16000×9000
        let (r, opened) = try Self.librariesOpened(by: ["thumb", webp, "--max-size", "160", "-o", out])
        #expect(r.status == 0, "\(r.stderr.suffix(300))")
        #expect(!opened.contains { $0.hasPrefix("libav") || $0.hasPrefix("libsw") }, "opened: \(opened)")
    }

    /// A thumbnail served from a cache opens no FFmpeg library: the default thumbnail (through the desktop's cache,
    /// as PNG) and a percentage (scrubkit's cache, as WebP), each asked twice.
    @Test func cacheHitsOpenNoFFmpeg() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("lazy-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let video = Scrub.packageRoot.appendingPathComponent("samples/h264_gop2s.mp4").path
        for args in [["-o", home + "/a.png"], ["--at", "50%", "-o", home + "/b.webp"]] {
            let command = ["thumb", video, "--cache", "--json"] + args
            let first = try Scrub.run(command, environment: ["XDG_CACHE_HOME": home])
            #expect(first.status == 0, "\(first.stderr)")
            let r = try Scrub.run(command, environment: ["XDG_CACHE_HOME": home, "LD_DEBUG": "files"])
            let opened = r.stderr.split(separator: "\n").compactMap { line -> String? in
                line.firstMatch(of: /file=(\S+)\s+\[0\];\s+dynamically loaded/).map { String($0.1) }
            }
            #expect(r.status == 0 && r.stdout.contains("\"cached\":true"), "\(args): \(r.stdout)")
            #expect(!opened.contains { $0.hasPrefix("libav") || $0.hasPrefix("libsw") }, "\(args) opened \(opened)")
        }
    }

    @Test func aVideoThumbnailOpensFFmpegOnDemand() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("lazy-\(getpid()).png").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let video = Scrub.packageRoot.appendingPathComponent("samples/h264_gop2s.mp4").path
        let (r, opened) = try Self.librariesOpened(by: ["thumb", video, "--at", "50%", "--max-size", "160", "-o", out])
        #expect(r.status == 0, "\(r.stderr.suffix(300))")
        for lib in ["libavformat", "libavcodec", "libswscale", "libavutil"] {
            #expect(opened.contains { $0.hasPrefix(lib) }, "\(lib) opened on demand: \(opened)")
        }
    }
}

@Suite struct DownsampleCLITests {
    @Test func sameStemsDoNotOverwriteEachOther() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-ds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = Scrub.packageRoot.appendingPathComponent("samples/image.png")
        let copy = dir.appendingPathComponent("image.jpg")
        try FileManager.default.copyItem(
            at: Scrub.packageRoot.appendingPathComponent("samples/large_6000x4000.jpg"), to: copy)
        let out = dir.appendingPathComponent("out")
        let r = try Scrub.run(["downsample", png.path, copy.path, "--max-size", "64", "--out", out.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let outputs = Scrub.jsonLines(r.stdout).compactMap { $0["output"] as? String }
        #expect(Set(outputs).count == 2)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == [
                "image.jpg.jpg", "image.png.png",
            ], "each keeps its own format, and its whole name")
        let bad = try Scrub.run(["downsample", "/nonexistent.png", png.path, "--out", out.path])
        #expect(bad.status == 1 && bad.stderr.contains("/nonexistent.png: no such file"))
    }
}
