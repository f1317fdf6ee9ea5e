import Foundation
import Testing

/// URLs wherever a path is accepted: a real HTTP server with Range support on 127.0.0.1 (tools/http-range-server),
/// MP4 with `moov` at the start and at the end, an HLS playlist, HTTP errors, secrets kept out of messages.
@Suite(
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"),
        "needs python3 and ffmpeg"))
struct RemoteMediaTests {
    /// A served folder: front.mp4 (moov first), end.mp4 (moov last), image.png, hls/index.m3u8.
    static let folder: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-www-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: dir + "/hls", withIntermediateDirectories: true)
        let sample = Scrub.packageRoot.appendingPathComponent("samples/h264_gop2s.mp4").path
        func ffmpeg(_ args: [String]) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
            p.arguments = ["-v", "error", "-y"] + args
            p.standardInput = FileHandle.nullDevice
            try? p.run(); p.waitUntilExit()
        }
        ffmpeg(["-i", sample, "-c", "copy", "-movflags", "+faststart", dir + "/front.mp4"])
        ffmpeg(["-i", sample, "-c", "copy", dir + "/end.mp4"])
        // 64 s in 32 fragments (one per keyframe), their index ('mfra') at the end, as ffmpeg writes them.
        ffmpeg([
            "-stream_loop", "7", "-i", sample, "-c", "copy", "-movflags", "+frag_keyframe+empty_moov+default_base_moof",
            dir + "/fragmented.mp4",
        ])
        // 64 s, ~8 MB, moov at the end: big enough for open-ended ranges to show.
        ffmpeg(["-stream_loop", "7", "-i", sample, "-c", "copy", "-an", dir + "/long.mp4"])
        ffmpeg([
            "-i", sample, "-c", "copy", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
            dir + "/hls/index.m3u8",
        ])
        // A live playlist: the same segments, no #EXT-X-ENDLIST (more would come).
        if let vod = try? String(contentsOfFile: dir + "/hls/index.m3u8", encoding: .utf8) {
            try? vod.replacingOccurrences(of: "#EXT-X-ENDLIST\n", with: "").replacingOccurrences(
                of: "#EXT-X-PLAYLIST-TYPE:VOD\n", with: ""
            )
            .write(toFile: dir + "/hls/live.m3u8", atomically: true, encoding: .utf8)
        }
        try? FileManager.default.copyItem(
            atPath: Scrub.packageRoot.appendingPathComponent("samples/image.png").path, toPath: dir + "/image.png")
        // Anamorphic (4:3 pixels) said only by the H.264 bitstream: the MP4's own 'pasp' box renamed away.
        ffmpeg([
            "-i", sample, "-c", "copy", "-an", "-bsf:v", "h264_metadata=sample_aspect_ratio=4/3", "-movflags",
            "+faststart", dir + "/vui-sar.mp4",
        ])
        if var bytes = FileManager.default.contents(atPath: dir + "/vui-sar.mp4"),
            let r = bytes.range(of: Data("pasp".utf8))
        {
            bytes.replaceSubrange(r, with: Data("free".utf8))
            // (Not written: no file at all, so that its test fails on the missing fixture, not on a 'pasp' left in.)
            if !FileManager.default.createFile(atPath: dir + "/vui-sar.mp4", contents: bytes) {
                unlink(dir + "/vui-sar.mp4")
            }
        }
        return dir
    }()

    /// Runs `body` with the base URL of a fresh server on this folder; the server is stopped afterwards.
    /// Spawned like tmux (see `Tmux.run`): only /dev/null and a port file, every other descriptor closed — a
    /// long-lived child holding Foundation's descriptors would keep other tests' `waitUntilExit` from returning.
    func withServer(_ arguments: [String] = [], _ body: (String) throws -> Void) throws {
        try Self.serve(Self.folder, arguments, body)
    }

    /// Runs `body` with the base URL of a fresh tools/http-range-server on `folder` (stopped afterwards).
    static func serve(_ folder: String, _ arguments: [String] = [], _ body: (String) throws -> Void) throws {
        let portFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "port-\(getpid())-\(UUID().uuidString)"
        ).path
        defer { unlink(portFile) }
        guard
            let pid = Tmux.spawn(
                ["/usr/bin/python3", Scrub.packageRoot.appendingPathComponent("tools/http-range-server").path, folder]
                    + arguments,
                stdout: portFile)
        else {
            Issue.record("cannot start the HTTP server"); return
        }
        defer {
            kill(pid, SIGKILL)   // (SIGTERM may be ignored: the child inherits the test runner's dispositions)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }
        var port: Int? = nil
        let deadline = Date().addingTimeInterval(10)
        while port == nil && Date() < deadline {
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap {
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            if port == nil { usleep(20_000) }
        }
        try body("http://127.0.0.1:\(try #require(port, "the server printed its port"))")
    }

    @Test(arguments: ["front.mp4", "end.mp4", "hls/index.m3u8"])
    func infoAndExactThumbnailOverHTTP(file: String) throws {
        try withServer { base in
            let info = try Scrub.run(["info", "--json", "\(base)/\(file)?X-Amz-Signature=s3cr3t"])
            #expect(info.status == 0, "\(info.stdout)\(info.stderr)")
            #expect(info.stdout.contains("\"duration\":8"), "\(info.stdout)")
            #expect(!info.stdout.contains("s3cr3t"), "the signature is not printed")
            let out = FileManager.default.temporaryDirectory.appendingPathComponent(
                "remote-\(getpid())-\(file.hashValue).jpg"
            ).path
            defer { unlink(out) }
            let t = try Scrub.run(["thumb", "\(base)/\(file)", "--at", "50%", "--exact", "--json", "-o", out])
            #expect(t.status == 0, "\(t.stderr)")
            let line = Scrub.jsonLines(t.stdout).first
            let start = file.hasSuffix(".m3u8") ? ((line?["requestedTime"] as? Double) ?? 0) - 4 : 0
            #expect(abs(((line?["actualTime"] as? Double) ?? -1) - (start + 4)) < 0.05, "\(t.stdout)")
            #expect(FileManager.default.contents(atPath: out)?.starts(with: [0xFF, 0xD8, 0xFF]) == true)
        }
    }

    /// A live HLS playlist: its duration is indefinite and nothing waits for segments that do not exist yet (this
    /// hung).
    @Test func liveHLSIsIndefiniteAndDoesNotHang() throws {
        try withServer { base in
            let began = Date()
            let info = try Scrub.run(["info", "--json", "\(base)/hls/live.m3u8"])
            #expect(info.status == 0, "\(info.stderr)")
            #expect(info.stdout.contains("\"durationKind\":\"indefinite\""), "\(info.stdout)")
            let start = (Scrub.jsonLines(info.stdout).first?["startTime"] as? Double) ?? 0
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(getpid()).jpg").path
            defer { unlink(out) }
            let t = try Scrub.run([
                "thumb", "\(base)/hls/live.m3u8", "--at", String(start + 3), "--exact", "--json", "-o", out,
            ])
            #expect(t.status == 0, "\(t.stderr)")
            let actual = (Scrub.jsonLines(t.stdout).first?["actualTime"] as? Double) ?? -1
            #expect(abs(actual - (start + 3)) < 0.05, "\(t.stdout)")
            #expect(Date().timeIntervalSince(began) < 8, "no wait at the live edge for times that are there")
        }
    }

    /// Bounded ranges: a thumbnail of the middle of a 64 s file fetches a small part of it, in `bytes=a-b` requests
    /// (FFmpeg's own open-ended `bytes=a-` let the server push megabytes into socket buffers before each seek).
    @Test func aThumbnailFetchesAFractionOfTheFileInBoundedRanges() throws {
        let stats = FileManager.default.temporaryDirectory.appendingPathComponent(
            "http-stats-\(getpid())-\(UUID().uuidString).json"
        ).path
        defer { unlink(stats) }
        try withServer(["--stats", stats]) { base in
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("ranged-\(getpid()).jpg").path
            defer { unlink(out) }
            let t = try Scrub.run(["thumb", "\(base)/long.mp4", "--at", "50%", "-o", out])
            #expect(t.status == 0, "\(t.stderr)")
            usleep(300_000)  // the server counts a dropped connection when its write fails
            let served = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats))) as? [String: Int])
            let size = try #require(
                try FileManager.default.attributesOfItem(atPath: Self.folder + "/long.mp4")[.size] as? Int)
            #expect(served["openEnded"] == 0, "\(served)")
            #expect((served["bytes"] ?? .max) < size * 3 / 10, "\(served) of \(size)")
        }
    }

    /// One picture over HTTP costs the file's index and that picture's own bytes: the MP4 header (at either end) is
    /// all that is read before the keyframe at or before 50 %, which is asked for as one exact range — nothing probed
    /// (FFmpeg's probe would fetch the first picture), nothing read past the keyframe to prove it the last one (the
    /// index says where the next is). A fragmented MP4 is found through its fragment index ('mfra') instead of a
    /// walk over every fragment's header (a request each): at most twice its floor, plus up to 64 KiB of small reads
    /// that do not grow with the file (the index at the end, the first keyframe for the start time, the last
    /// fragment's header for the length, the fragment's header: ≤ 8 KiB each but the keyframe), in at most 10
    /// requests. The picture is the one the local file gives.
    @Test(arguments: [("front.mp4", 3, 1.5, 0), ("end.mp4", 3, 1.5, 0), ("fragmented.mp4", 10, 2.0, 64 << 10)])
    func onePictureReadsTheIndexAndItsKeyframe(file: String, maxRequests: Int, maxRatio: Double, allowance: Int) throws
    {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent(
            "http-log-\(getpid())-\(UUID().uuidString)"
        ).path
        defer { unlink(log) }
        let path = Self.folder + "/" + file
        let floor = try #require(Self.floor(path))
        try withServer(["--log", log]) { base in
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("one-\(getpid())-\(file).jpg").path
            let local = out + ".local.jpg"
            defer { unlink(out); unlink(local) }
            let t = try Scrub.run(["thumb", "\(base)/\(file)", "--at", "50%", "-o", out])
            #expect(t.status == 0, "\(t.stderr)")
            usleep(300_000)   // the server logs a dropped connection when its write fails
            let requests = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            let bytes = requests.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
            #expect(requests.count <= maxRequests, "\(requests)")
            #expect(
                Double(bytes) <= Double(floor) * maxRatio + Double(allowance),
                "\(bytes) bytes for a floor of \(floor): \(requests)")
            #expect(try Scrub.run(["thumb", path, "--at", "50%", "-o", local]).status == 0)
            #expect(
                FileManager.default.contents(atPath: out) == FileManager.default.contents(atPath: local),
                "the same picture as the file's")
        }
    }

    /// Opened from its header alone (nothing probed), a stream whose pixels are not square only by its bitstream's
    /// word (no 'pasp') is still shown at its shape: FFmpeg reads the ratio from the header's parameter sets.
    @Test func aHeaderOnlyOpenKeepsTheBitstreamsAspectRatio() throws {
        try withServer { base in
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("sar-\(getpid()).jpg").path
            defer { unlink(out) }
            let t = try Scrub.run(["thumb", "\(base)/vui-sar.mp4", "--max-size", "320", "--json", "-o", out])
            #expect(t.status == 0, "\(t.stderr)")
            let line = try #require(Scrub.jsonLines(t.stdout).first)
            #expect(
                line["width"] as? Int == 320 && line["height"] as? Int == 135,
                "1280×720 at 4:3 pixels is 1707×720: \(t.stdout)")
        }
    }

    /// The least a picture at 50 % costs: the file's `ftyp` and `moov` (its index), the `moof` of a fragmented file's
    /// fragment holding the keyframe, and that keyframe (the last presented at or before the middle, by ffprobe).
    static func floor(_ path: String) -> Int? {
        func probe(_ args: [String]) -> [[Substring]] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
            p.arguments = ["-v", "error"] + args + ["-of", "csv=p=0", path]
            let pipe = Pipe()
            p.standardOutput = pipe
            guard (try? p.run()) != nil else { return [] }
            let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            return text.split(separator: "\n").map { $0.split(separator: ",") }
        }
        guard let format = probe(["-show_entries", "format=start_time,duration"]).first, format.count == 2,
              let start = Double(format[0]), let duration = Double(format[1]),
              let data = FileManager.default.contents(atPath: path) else { return nil }
        // Packets: pts_time, size, pos, flags.
        let keyframe = probe(["-select_streams", "v:0", "-show_entries", "packet=pts_time,size,pos,flags"]).compactMap {
            f -> (Double, Int, Int)? in
            guard f.count >= 4, f[3].hasPrefix("K"), let t = Double(f[0]), let n = Int(f[1]), let at = Int(f[2]),
                  t <= start + duration / 2 else { return nil }
            return (t, n, at)
        }.max { $0.0 < $1.0 }
        guard let (_, size, position) = keyframe else { return nil }
        var total = size, at = 0, lastMoof = 0
        while at + 8 <= data.count {
            let box = data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            let kind = String(decoding: data[at + 4..<at + 8], as: UTF8.self)
            guard box >= 8 else { return nil }
            if kind == "ftyp" || kind == "moov" { total += box }
            if kind == "moof" && at < position { lastMoof = box }
            at += box
        }
        return total + lastMoof
    }

    /// A server that ignores Range (sends whole files): seeks are read through, and the thumbnails still come.
    @Test(arguments: ["front.mp4", "end.mp4"])
    func aServerWithoutRangesStillWorks(file: String) throws {
        try withServer(["--no-ranges"]) { base in
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("noranges-\(getpid())-\(file).jpg")
                .path
            defer { unlink(out) }
            let t = try Scrub.run(["thumb", "\(base)/\(file)", "--at", "6", "--exact", "--json", "-o", out])
            #expect(t.status == 0, "\(t.stderr)")
            #expect(abs(((Scrub.jsonLines(t.stdout).first?["actualTime"] as? Double) ?? -1) - 6) < 0.05, "\(t.stdout)")
        }
    }

    @Test func httpErrorsAreClearAndKeepSecrets() throws {
        try withServer { base in
            let missing = try Scrub.run(["thumb", "\(base)/missing.mp4?token=s3cr3t", "-o", "/dev/null"])
            #expect(missing.status == 1)
            #expect(
                missing.stderr.contains("HTTP 404 Not Found") && !missing.stderr.contains("s3cr3t"), "\(missing.stderr)"
            )
            let forbidden = try Scrub.run(["info", "\(base)/status/403"])
            #expect(forbidden.status == 1 && forbidden.stderr.contains("HTTP 403"), "\(forbidden.stderr)")
            let verbose = try Scrub.run(["info", "--verbose", "\(base)/missing.mp4?token=s3cr3t"])
            #expect(verbose.stderr.contains("s3cr3t"), "--verbose shows the whole URL")
        }
        let refused = try Scrub.run(["info", "http://127.0.0.1:9/clip.mp4"])
        #expect(refused.status == 1 && refused.stderr.contains("connection refused"), "\(refused.stderr)")
    }

    /// A server that accepts and never answers is given up on after the timeout in all (reconnects included), with
    /// a message saying how long; `--timeout` and `SCRUBKIT_TIMEOUT` set it.
    @Test func aStalledServerIsGivenUpOnAfterTheTimeout() throws {
        try withServer { base in
            let started = Date()
            let r = try Scrub.run(["thumb", "\(base)/stall/clip.mp4", "-o", "/dev/null", "--timeout", "1.5"])
            let took = Date().timeIntervalSince(started)
            #expect(r.status == 1 && r.stderr.contains("no answer from the server in 1."), "\(r.stderr)")
            #expect(took < 8, "gave up after \(took) s (asked 1.5 s)")
            let started2 = Date()
            let env = try Scrub.run(["info", "\(base)/stall/clip.mp4"], environment: ["SCRUBKIT_TIMEOUT": "1"])
            #expect(env.status == 1 && env.stderr.contains("no answer from the server in 1."), "\(env.stderr)")
            #expect(Date().timeIntervalSince(started2) < 8)
        }
        let bad = try Scrub.run(["info", "--timeout", "soon", "x.mp4"])
        #expect(bad.status == 64 && bad.stderr.contains("--timeout"))
    }

    @Test func batchOfURLsNamesOutputsWithoutQueryStrings() throws {
        try withServer { base in
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("remote-batch-\(UUID().uuidString)")
                .path
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let list = dir + ".txt"
            defer { unlink(list) }
            try "\(base)/front.mp4?sig=s3cr3t\n\(base)/image.png\n".write(
                toFile: list, atomically: true, encoding: .utf8)
            let r = try Scrub.run(["thumbs", "@\(list)", "--count", "2", "--out", dir, "--json", "-", "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { !$0.hasPrefix(".") }.sorted()
            #expect(names == ["front.mp4-0.jpg", "front.mp4-1.jpg", "image.png-0.jpg"], "\(names)")
            #expect(!r.stdout.contains("s3cr3t") && !r.stderr.contains("s3cr3t"))
        }
    }
}
