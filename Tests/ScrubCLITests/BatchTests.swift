import Foundation
import Testing

/// `scrubkit thumbs` end to end on the bundled samples (always present) and the corpus (when present).
@Suite struct BatchTests {
    let samples = Scrub.packageRoot.appendingPathComponent("samples")

    func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// The bundled samples: (videos, stills).
    var sampleCounts: (videos: Int, stills: Int) {
        let names = images(samples).map { ($0 as NSString).pathExtension.lowercased() }
        return (names.filter { ["mp4", "ts"].contains($0) }.count, names.filter { ["jpg", "png"].contains($0) }.count)
    }

    func images(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test func manifestMatchesOutputsAndGoesPastBadFiles() throws {
        let t = try tempDir(); defer { try? FileManager.default.removeItem(at: t) }
        let bad = t.appendingPathComponent("broken.mp4")
        try Data("not a video at all".utf8).write(to: bad)
        let out = t.appendingPathComponent("out"), manifest = t.appendingPathComponent("m.jsonl")
        let r = try Scrub.run([
            "thumbs", samples.path, bad.path, "--count", "3", "--max-size", "64", "--out", out.path, "--json",
            manifest.path,
        ])
        #expect(r.status == 1, "a bad file must make the status non-zero")
        let lines = Scrub.jsonLines(try String(contentsOf: manifest, encoding: .utf8))
        let records = lines.filter { $0["output"] != nil }
        let failures = lines.filter { $0["error"] != nil }
        // 3 per video, 1 per still
        #expect(sampleCounts.videos >= 4 && sampleCounts.stills >= 2)
        #expect(records.count == sampleCounts.videos * 3 + sampleCounts.stills)
        #expect(failures.count == 1 && (failures[0]["source"] as? String)?.hasSuffix("broken.mp4") == true)
        #expect(Set(records.compactMap { $0["output"] as? String }) == Set(images(out)))
        for rec in records {
            #expect(rec["actualTime"] is Double || rec["actualTime"] is Int)
            let w = rec["width"] as? Int ?? 0, h = rec["height"] as? Int ?? 0
            #expect(max(w, h) <= 64 && min(w, h) > 0)
        }
        #expect((lines.last?["summary"] as? [String: Any])?["failed"] as? Int == 1)
    }

    @Test func progressOffATerminalHasNoEscapeCodes() throws {
        let t = try tempDir(); defer { try? FileManager.default.removeItem(at: t) }
        let r = try Scrub.run(["thumbs", samples.path, "--count", "2", "--max-size", "48", "--out", t.path])
        #expect(r.status == 0)
        #expect(!r.stderr.contains("\u{1B}") && !r.stdout.contains("\u{1B}"))
        let n = sampleCounts.videos + sampleCounts.stills
        #expect(r.stderr.contains("[\(n)/\(n)]"))
        let quiet = try Scrub.run([
            "thumbs", samples.path, "--count", "2", "--max-size", "48", "--out", t.path, "--quiet",
        ])
        #expect(quiet.stderr.isEmpty)
    }

    @Test func shardsTogetherMakeTheWhole() throws {
        let t = try tempDir(); defer { try? FileManager.default.removeItem(at: t) }
        let args = ["thumbs", samples.path, "--count", "2", "--max-size", "48", "-q"]
        let all = try Scrub.run(args + ["--out", t.appendingPathComponent("all").path])
        #expect(all.status == 0, "\(all.stderr)")
        var union: [String] = []
        for k in 0..<3 {
            let shard = try Scrub.run(args + ["--out", t.appendingPathComponent("s\(k)").path, "--shard", "\(k)/3"])
            #expect(shard.status == 0, "shard \(k): \(shard.stderr)")
            union += images(t.appendingPathComponent("s\(k)"))
        }
        #expect(!images(t.appendingPathComponent("all")).isEmpty)
        #expect(union.sorted() == images(t.appendingPathComponent("all")))
        #expect(Set(union).count == union.count, "no file in two shards")
        let bad = try Scrub.run(args + ["--out", t.path, "--shard", "3/3"])
        #expect(bad.status == 64)
    }

    @Test func killedRunLeavesNoPartialFileAndResumeFinishesIt() throws {
        let t = try tempDir(); defer { try? FileManager.default.removeItem(at: t) }
        let out = t.appendingPathComponent("out")
        let args = [
            "thumbs", samples.path, "--count", "30", "--exact", "--max-size", "160", "--format", "png", "--jobs", "1",
            "-q", "--out", out.path,
        ]
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Scrub.binary)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Kill as soon as some outputs exist.
        let deadline = Date().addingTimeInterval(30)
        while images(out).count < 5 && Date() < deadline && p.isRunning { usleep(20_000) }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        // It was killed midway: by the signal (not finished), with some outputs and not all.
        #expect(p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGKILL, "killed while running")
        let partial = images(out)
        #expect(
            partial.count >= 5 && partial.count < sampleCounts.videos * 30 + sampleCounts.stills,
            "\(partial.count) outputs when killed")
        // Every file that exists is a complete PNG.
        for f in partial {
            let d = try Data(contentsOf: out.appendingPathComponent(f))
            #expect(d.starts(with: [0x89, 0x50, 0x4E, 0x47]) && d.count > 100, "\(f) is partial")
        }
        let resumed = try Scrub.run(args + ["--resume"])
        #expect(resumed.status == 0)
        let whole = t.appendingPathComponent("whole")
        let wholeRun = try Scrub.run(args.map { $0 == out.path ? whole.path : $0 })
        #expect(wholeRun.status == 0, "\(wholeRun.stderr)")
        #expect(images(out) == images(whole))
        #expect(images(out).count == sampleCounts.videos * 30 + sampleCounts.stills)
        let hidden = ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).filter {
            $0.hasSuffix(".tmp")
        }
        #expect(hidden.isEmpty, "temporary files left: \(hidden)")
        // A finished run resumed again rewrites nothing.
        let before = try images(out).map {
            try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent($0).path)[.modificationDate]
                as! Date
        }
        let again = try Scrub.run(args + ["--resume"])
        #expect(again.status == 0, "\(again.stderr)")
        let after = try images(out).map {
            try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent($0).path)[.modificationDate]
                as! Date
        }
        #expect(before == after)
    }

    @Test func contactSheetHasTheGrid() throws {
        let t = try tempDir(); defer { try? FileManager.default.removeItem(at: t) }
        let r = try Scrub.run([
            "thumbs", samples.appendingPathComponent("h264_gop2s.mp4").path, "--sheet", "4x3", "--max-size", "100",
            "--format", "png", "--out", t.path, "--json", "-", "-q",
        ])
        #expect(r.status == 0)
        let recs = Scrub.jsonLines(r.stdout).filter { $0["output"] != nil }
        #expect(recs.count == 12)
        let files = images(t)
        #expect(files == ["h264_gop2s.mp4-sheet.png"])
        // PNG IHDR: width and height big-endian at bytes 16 and 20.
        let d = [UInt8](try Data(contentsOf: t.appendingPathComponent(files[0])))
        let w = Int(d[16]) << 24 | Int(d[17]) << 16 | Int(d[18]) << 8 | Int(d[19])
        let h = Int(d[20]) << 24 | Int(d[21]) << 16 | Int(d[22]) << 8 | Int(d[23])
        // 4 tiles of 100 px with 8 px between and around them; 3 rows of 56 px + gaps + a header.
        #expect(w == 4 * 100 + 5 * 8)
        #expect(h > 3 * 56 + 4 * 8)
        // --width is the sheet's: the tiles are made to fit it; --spacing and --columns/--rows too.
        let sized = try Scrub.run([
            "thumbs", samples.appendingPathComponent("h264_gop2s.mp4").path, "--columns", "3", "--rows", "2",
            "--width", "640", "--spacing", "10", "--background", "white", "--format", "png", "--out", t.path, "-q",
        ])
        #expect(sized.status == 0, "\(sized.stderr)")
        let e = [UInt8](try Data(contentsOf: t.appendingPathComponent(files[0])))
        let ew = Int(e[16]) << 24 | Int(e[17]) << 16 | Int(e[18]) << 8 | Int(e[19])
        #expect(ew == 640)
        let bad = try Scrub.run([
            "thumbs", samples.path, "--sheet", "4x3", "--font", "/no/such/font.ttf", "--out", t.path, "-q",
        ])
        #expect(bad.status == 1 && bad.stderr.contains("/no/such/font.ttf"), "\(bad.stderr)")
    }

    @Test func webVTTTrackParses() throws {
        let t = try tempDir(); defer { try? FileManager.default.removeItem(at: t) }
        let r = try Scrub.run([
            "thumbs", samples.appendingPathComponent("h264_gop2s.mp4").path, "--every", "0.5s", "--vtt",
            "--max-size", "64", "--out", t.path, "-q",
        ])
        #expect(r.status == 0)
        let vtt = try String(contentsOf: t.appendingPathComponent("h264_gop2s.mp4.vtt"), encoding: .utf8)
        #expect(vtt.hasPrefix("WEBVTT\n"))
        let sprite = [UInt8](try Data(contentsOf: t.appendingPathComponent("h264_gop2s.mp4-sprite-0.jpg")))
        #expect(sprite.starts(with: [0xFF, 0xD8]))
        var previousEnd = -1.0, cues = 0
        func secs(_ s: Substring) -> Double {
            let p = s.split(separator: ":").map { Double($0)! }
            return p[0] * 3600 + p[1] * 60 + p[2]
        }
        let blocks = vtt.components(separatedBy: "\n\n").dropFirst()
        for b in blocks {
            let lines = b.split(separator: "\n")
            let times = lines[0].components(separatedBy: " --> ")
            let (s, e) = (secs(Substring(times[0])), secs(Substring(times[1])))
            #expect(s >= previousEnd - 1e-9 && e > s)
            previousEnd = e
            let frag = lines[1].split(separator: "=")[1].split(separator: ",").map { Int($0)! }
            #expect(frag[0] + frag[2] <= 64 * 10 && frag[1] + frag[3] <= 64 * 2)
            cues += 1
        }
        #expect(cues == 16)
    }

    /// A web player's view of `thumbs --vtt` with the defaults: headless Chromium loads the track from a server on
    /// 127.0.0.1 (a <video> with <track kind=metadata>) and reads the cues back through the TextTrack API. On a 60 s
    /// clip: 30 cues of 2 s from 0 to 60 with no gap, each a fragment inside its sprite as the browser loads it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "needs chromium"))
    func aBrowserReadsTheThumbnailTrack() throws {
        let t = try tempDir(); defer { try? FileManager.default.removeItem(at: t) }
        let clip = t.appendingPathComponent("minute.mp4").path
        _ = try Scrub.execute(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=10:duration=60",
                "-c:v", "mpeg4", "-g", "20", clip,
            ])
        let r = try Scrub.run(["thumbs", clip, "--vtt", "--max-size", "64", "--out", t.path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let page = """
        <!doctype html><html><body><video preload="none" muted><track id="t" kind="metadata" src="minute.mp4.vtt" \
        default></video>
        <pre id="out">pending</pre><script>
        const t = document.getElementById('t'), out = document.getElementById('out');
        t.track.mode = 'hidden';
        t.addEventListener('error', () => { out.textContent = 'error'; });
        t.addEventListener('load', () => {
          const c = t.track.cues, cues = [];
          for (let i = 0; i < c.length; i++) cues.push({start: c[i].startTime, end: c[i].endTime, text: c[i].text});
          const img = new Image();
          img.onload = () => { out.textContent = JSON.stringify({cues, sprite: [img.naturalWidth, \
        img.naturalHeight]}); };
          img.onerror = () => { out.textContent = JSON.stringify({cues, sprite: null}); };
          img.src = cues[0].text.split('#')[0];
        });
        </script></body></html>
        """
        try page.write(to: t.appendingPathComponent("page.html"), atomically: true, encoding: .utf8)
        // (Output to a file: a Chromium helper process outliving the browser must not hold the test's pipes open.)
        let domFile = t.appendingPathComponent("dom.html").path
        try RemoteMediaTests.serve(t.path) { base in
            _ = try Scrub.execute(
                "/bin/sh",
                [
                    "-c",
                    "exec timeout 60 chromium --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage "
                        + "--virtual-time-budget=5000 --dump-dom '\(base)/page.html' > '\(domFile)' 2>/dev/null "
                            + "</dev/null",
                ])
        }
        let dom = (try? String(contentsOfFile: domFile, encoding: .utf8)) ?? ""
        let text = try #require(
            dom.firstMatch(of: /<pre id="out">(.*?)<\/pre>/).map { String($0.1) }, "the page ran: \(dom.prefix(300))")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
        let cues = try #require(json["cues"] as? [[String: Any]])
        let starts = cues.compactMap { $0["start"] as? Double }, ends = cues.compactMap { $0["end"] as? Double }
        #expect(
            cues.count == 30 && starts.first == 0 && abs((ends.last ?? 0) - 60) < 0.01,
            "\(starts) … \(ends.last ?? -1)"
        )
        #expect(
            zip(ends, starts.dropFirst()).allSatisfy { abs($0 - $1) < 0.001 },
            "no gaps: \(zip(ends, starts.dropFirst()).map { $0 })")
        #expect(zip(starts, ends).allSatisfy { abs($1 - $0 - 2) < 0.01 }, "2 s each")
        let sprite = try #require(json["sprite"] as? [Int], "the sprite loads in the browser")
        for cue in cues {
            let xywh = try #require(
                (cue["text"] as? String)?.split(separator: "=").last?.split(separator: ",").compactMap { Int($0) })
            #expect(
                xywh.count == 4 && xywh[0] + xywh[2] <= sprite[0] && xywh[1] + xywh[3] <= sprite[1],
                "\(xywh) inside \(sprite)")
        }
    }

    /// `--scenes`: one thumbnail per scene of a clip of three scenes of 1, 6 and 2 s (evenly spread times put none in
    /// the short first scene), and `info --json --scenes` lists them.
    @Test func oneThumbnailPerScene() throws {
        let t = try tempDir(); defer { try? FileManager.default.removeItem(at: t) }
        let clip = t.appendingPathComponent("three.mp4").path
        _ = try Scrub.execute(
            "ffmpeg",
            [
                "-v", "error", "-y", "-t", "1", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25",
                "-t", "6", "-f", "lavfi", "-i", "smptehdbars=size=160x90:rate=25",
                "-t", "2", "-f", "lavfi", "-i", "rgbtestsrc=size=160x90:rate=25",
                "-filter_complex",
                "[0:v]setsar=1[a];[1:v]setsar=1[b];[2:v]setsar=1[c];[a][b][c]concat=n=3:v=1:a=0,format=yuv420p[o]",
                "-map", "[o]", "-c:v", "mpeg4", "-g", "250", clip,
            ])
        let info = try Scrub.run(["info", clip, "--json", "--scenes"])
        let scenes = try #require(Scrub.jsonLines(info.stdout).first?["scenes"] as? [[String: Any]], "\(info.stdout)")
        #expect(scenes.compactMap { $0["start"] as? Double } == [0, 1, 7], "\(scenes)")
        #expect(scenes.compactMap { $0["duration"] as? Double } == [1, 6, 2], "\(scenes)")
        let r = try Scrub.run([
            "thumbs", clip, "--scenes", "--count", "3", "--max-size", "64", "--out", t.path, "--json", "-", "-q",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let times = Scrub.jsonLines(r.stdout).compactMap { $0["actualTime"] as? Double }
        #expect(times.count == 3 && times[0] < 1 && times[1] >= 1 && times[1] < 7 && times[2] >= 7, "\(times)")
        // A sheet of the scenes: each tile's frame inside its scene (the search for a good frame stays there).
        let sheet = try Scrub.run([
            "thumbs", clip, "--scenes", "--sheet", "3x1", "--out", t.path + "/sheet", "--json", "-", "-q",
        ])
        #expect(sheet.status == 0, "\(sheet.stderr)")
        let tiles = Scrub.jsonLines(sheet.stdout).compactMap { $0["actualTime"] as? Double }
        #expect(tiles.count == 3 && tiles[0] < 1 && tiles[1] >= 1 && tiles[1] < 7 && tiles[2] >= 7, "\(tiles)")
        // thumb --scenes: the longest scene's frame (1–7 s), also through the cache.
        for extra in [[], ["--cache"]] {
            let one = try Scrub.run(
                ["thumb", clip, "--scenes", "--json", "-o", t.path + "/one.jpg"] + extra,
                environment: ["XDG_CACHE_HOME": t.path + "/cache"])
            let at = try #require(
                Scrub.jsonLines(one.stdout).first?["actualTime"] as? Double, "\(one.stdout) \(one.stderr)")
            #expect(at >= 1 && at < 7, "\(at)")
        }
        // A WebVTT track by scene: a cue per scene, from its cut to the next.
        let track = try Scrub.run([
            "thumbs", clip, "--scenes", "--vtt", "--max-size", "64", "--out", t.path + "/vtt", "-q",
        ])
        #expect(track.status == 0, "\(track.stderr)")
        let vtt = try String(contentsOfFile: t.path + "/vtt/three.mp4.vtt", encoding: .utf8)
        let cues = vtt.split(separator: "\n").filter { $0.contains("-->") }.map(String.init)
        #expect(
            cues == [
                "00:00:00.000 --> 00:00:01.000", "00:00:01.000 --> 00:00:07.000", "00:00:07.000 --> 00:00:09.000",
            ], "\(cues)")
        let bad = try Scrub.run(["thumbs", clip, "--scenes", "--every", "2s", "--out", t.path])
        #expect(bad.status == 64)
    }

    /// A scene that is all black keeps its own picture on a scene sheet: the blank-tile replacement looks only
    /// inside the tile's scene (it used to take a frame of the next scene, under the label of this one).
    @Test func aBlankSceneKeepsItsOwnTile() throws {
        let t = try tempDir(); defer { try? FileManager.default.removeItem(at: t) }
        let clip = t.appendingPathComponent("blank.mp4").path
        // 4 s, a one-second blank scene, 4 s: the times tried around the blank tile reach into the next scene.
        _ = try Scrub.execute(
            "ffmpeg",
            [
                "-v", "error", "-y", "-t", "4", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25",
                "-t", "1", "-f", "lavfi", "-i", "color=c=black:size=160x90:rate=25",
                "-t", "4", "-f", "lavfi", "-i", "smptehdbars=size=160x90:rate=25",
                "-filter_complex",
                "[0:v]setsar=1[a];[1:v]setsar=1[b];[2:v]setsar=1[c];[a][b][c]concat=n=3:v=1:a=0,format=yuv420p[o]",
                "-map", "[o]", "-c:v", "mpeg4", "-g", "25", clip,
            ])
        let sheet = try Scrub.run(["thumbs", clip, "--scenes", "--sheet", "3x1", "--out", t.path, "--json", "-", "-q"])
        #expect(sheet.status == 0, "\(sheet.stderr)")
        let tiles = Scrub.jsonLines(sheet.stdout).compactMap { $0["actualTime"] as? Double }
        #expect(tiles.count == 3 && tiles[0] < 4 && tiles[1] >= 4 && tiles[1] < 5 && tiles[2] >= 5, "\(tiles)")
    }

    /// `scrubkit preview`: a clip without cuts gives excerpts spread over it (its one scene split), as WebP and MP4.
    @Test func previewWritesAnAnimationOfExcerpts() throws {
        let t = try tempDir(); defer { try? FileManager.default.removeItem(at: t) }
        let clip = samples.appendingPathComponent("h264_gop2s.mp4").path   // 8 s
        for ext in ["webp", "gif", "mp4"] {
            let out = t.appendingPathComponent("p.\(ext)").path
            let r = try Scrub.run(["preview", clip, "-o", out, "--count", "4", "--max-size", "96", "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            let j = try #require(Scrub.jsonLines(r.stdout).first)
            let excerpts = try #require(j["excerpts"] as? [Double])
            #expect(excerpts.count == 4 && excerpts == excerpts.sorted() && excerpts.last! > 5, "\(excerpts)")
            #expect(
                j["frames"] as? Int == 40 && j["width"] as? Int == 96 && FileManager.default.fileExists(atPath: out),
                "\(j)")
        }
        #expect(try Scrub.run(["preview", clip, "--fps", "0"]).status == 64)
        // In a batch (thumbs --preview): one preview per video in the manifest, a still reported, and a second run
        // resumed from the state file.
        let dir = t.appendingPathComponent("batch").path
        let batch = try Scrub.run([
            "thumbs", clip, samples.appendingPathComponent("image.png").path, "--preview", "gif", "--count", "2",
            "--max-size", "64", "--out", dir, "--json", "-", "-q",
        ])
        #expect(batch.status == 1, "a still has no video to preview: \(batch.stderr)")
        let lines = Scrub.jsonLines(batch.stdout)
        #expect(
            lines.contains { $0["output"] as? String == "h264_gop2s.mp4-preview.gif" && $0["width"] as? Int == 64 },
            "\(batch.stdout)")
        #expect(lines.contains { ($0["error"] as? String)?.contains("no video to preview") == true }, "\(batch.stdout)")
        let gif = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/h264_gop2s.mp4-preview.gif")))
        #expect(gif.starts(with: Array("GIF8".utf8)))
        let made =
            try FileManager.default.attributesOfItem(atPath: dir + "/h264_gop2s.mp4-preview.gif")[.modificationDate]
            as? Date
        let again = try Scrub.run([
            "thumbs", clip, "--preview", "gif", "--count", "2", "--max-size", "64", "--out", dir, "--resume", "-q",
        ])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            try FileManager.default.attributesOfItem(atPath: dir + "/h264_gop2s.mp4-preview.gif")[.modificationDate]
                as? Date == made,
            "resumed: not made again")
        let missing = try Scrub.run(["preview", "/no/such.mp4", "-o", t.appendingPathComponent("x.webp").path])
        #expect(missing.status == 1 && missing.stderr.contains("/no/such.mp4"))
    }

    @Test func listAndStdinInputs() throws {
        let t = try tempDir(); defer { try? FileManager.default.removeItem(at: t) }
        let list = t.appendingPathComponent("list.txt")
        try
            (samples.appendingPathComponent("vfr.mp4").path + "\n# comment\n"
            + samples.appendingPathComponent("image.png").path + "\n").write(
                to: list, atomically: true, encoding: .utf8)
        let r = try Scrub.run([
            "thumbs", "@" + list.path, "--count", "1", "--out", t.appendingPathComponent("a").path, "-q",
        ])
        #expect(r.status == 0)
        #expect(images(t.appendingPathComponent("a")).count == 2)
        let s = try Scrub.run(["thumbs", "-", "--count", "1", "--out", t.appendingPathComponent("b").path, "-q"],
                              stdin: samples.appendingPathComponent("vfr.mp4").path + "\n")
        #expect(s.status == 0)
        #expect(images(t.appendingPathComponent("b")) == ["vfr.mp4-0.jpg"])
    }
}

/// The manifest is written as files complete, so a killed run leaves every finished file recorded; `--quiet` hides
/// progress but never a failure.
@Suite struct BatchManifestTests {
    let samples = Scrub.packageRoot.appendingPathComponent("samples")

    @Test func aKilledRunKeepsTheRecordsOfFinishedFiles() throws {
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: t.appendingPathComponent("in"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: t) }
        // Enough work (60 one-at-a-time files) that the run is still going when the first records arrive.
        for i in 0..<60 {
            try FileManager.default.createSymbolicLink(
                atPath: t.appendingPathComponent("in/c\(i).mp4").path,
                withDestinationPath: samples.appendingPathComponent("h264_gop2s.mp4").path)
        }
        let manifest = t.appendingPathComponent("m.jsonl").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Scrub.binary)
        p.arguments = [
            "thumbs", t.appendingPathComponent("in").path, "--count", "6", "--exact", "--max-size", "64", "--jobs", "1",
            "--out", t.appendingPathComponent("out").path, "--json", manifest, "-q",
        ]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(60)
        var seen = ""
        while Date() < deadline && p.isRunning {
            seen = (try? String(contentsOfFile: manifest, encoding: .utf8)) ?? ""
            if seen.split(separator: "\n").count >= 6 { break }
            usleep(10_000)
        }
        let stillRunning = p.isRunning
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        #expect(stillRunning, "the run was killed midway (it had not finished)")
        #expect(p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGKILL, "ended by the kill")
        let text = (try? String(contentsOfFile: manifest, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(text.hasSuffix("\n"), "only whole lines")
        let records = lines.filter { !$0.isEmpty }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(records.count == lines.filter { !$0.isEmpty }.count, "every line is a JSON object")
        #expect(
            records.count >= 6 && records.allSatisfy { $0["output"] != nil },
            "the finished files' thumbnails are recorded")
        #expect(!records.contains { $0["summary"] != nil }, "no summary: the run did not finish")
        for r in records {
            #expect(
                FileManager.default.fileExists(
                    atPath: t.appendingPathComponent("out").appendingPathComponent(r["output"] as? String ?? "-").path))
        }
    }

    @Test func quietStillReportsFailures() throws {
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-quiet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: t, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: t) }
        let bad = t.appendingPathComponent("broken.mp4")
        try Data("not a video at all".utf8).write(to: bad)
        let r = try Scrub.run([
            "thumbs", samples.appendingPathComponent("image.png").path, bad.path, "--out",
            t.appendingPathComponent("o").path, "--quiet",
        ])
        #expect(r.status == 1)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("broken.mp4") && lines[0].contains("FAILED"), "\(r.stderr)")
    }
}

/// Shards of one batch writing into one shared output directory (pods on one volume): each keeps its own journal,
/// a shard killed midway and rerun with --resume finishes its part, and together they make exactly the unsharded
/// result — the same files, and manifests whose union is the unsharded manifest.
@Suite struct SharedDirectoryShardTests {
    let samples = Scrub.packageRoot.appendingPathComponent("samples")

    func launch(_ args: [String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Scrub.binary)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        return p
    }

    func records(_ manifest: String) -> Set<String> {
        let text = (try? String(contentsOfFile: manifest, encoding: .utf8)) ?? ""
        return Set(
            Scrub.jsonLines(text).compactMap { r -> String? in
                guard let s = r["source"] as? String, let i = r["index"] as? Int, let o = r["output"] as? String else {
                    return nil
                }
                return "\((s as NSString).lastPathComponent)#\(i)#\(o)"
            })
    }

    /// The shard `scrubkit thumbs --shard K/N` gives a file: FNV-1a (64-bit) of its absolute path, modulo N.
    static func shard(of path: String, count: Int) -> Int {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(h % UInt64(count))
    }

    @Test func concurrentShardsWithAKilledOneMakeTheWhole() throws {
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-shards-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: t.appendingPathComponent("in"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: t) }
        // 18 files or more, until every shard has at least 3 (shards are a hash of the absolute path, which holds this
        // run's random directory: 18 files alone leave a shard empty about once in 300 runs).
        let n = 3
        var perShard = [Int](repeating: 0, count: n)
        var i = 0
        while i < 18 || perShard.min()! < 3 {
            let src = i % 3 == 0 ? "h264_gop2s.mp4" : (i % 3 == 1 ? "vfr.mp4" : "image.png")
            let link = t.appendingPathComponent("in/f\(i).\((src as NSString).pathExtension)")
            try FileManager.default.createSymbolicLink(
                atPath: link.path, withDestinationPath: samples.appendingPathComponent(src).path)
            perShard[Self.shard(of: link.standardizedFileURL.path, count: n)] += 1
            i += 1
        }
        let input = t.appendingPathComponent("in").path, shared = t.appendingPathComponent("shared").path
        let common = ["thumbs", input, "--count", "4", "--exact", "--max-size", "48", "--jobs", "1", "--resume", "-q"]
        // The whole, unsharded, for reference.
        let whole = try Scrub.run(
            common + [
                "--out", t.appendingPathComponent("whole").path, "--json", t.appendingPathComponent("whole.jsonl").path,
            ])
        #expect(whole.status == 0, "\(whole.stderr)")
        // Three shards at once into one directory; shard 1 is killed as soon as it has finished a file.
        var procs = try (0..<n).map { k in
            try launch(
                common + [
                    "--shard", "\(k)/\(n)", "--out", shared, "--json", t.appendingPathComponent("m\(k).jsonl").path,
                ])
        }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, procs[1].isRunning, records(t.appendingPathComponent("m1.jsonl").path).isEmpty {
            usleep(5_000)
        }
        kill(procs[1].processIdentifier, SIGKILL)
        for p in procs { p.waitUntilExit() }
        #expect(
            procs[1].terminationReason == .uncaughtSignal && procs[1].terminationStatus == SIGKILL,
            "shard 1 was killed while running")
        #expect(!records(t.appendingPathComponent("m1.jsonl").path).isEmpty, "shard 1 had finished a file when killed")
        for k in [0, 2] {
            #expect(procs[k].terminationReason == .exit && procs[k].terminationStatus == 0, "shard \(k)")
        }
        // The killed shard, rerun, finishes its part (what it had done is kept).
        procs[1] = try launch(
            common + ["--shard", "1/\(n)", "--out", shared, "--json", t.appendingPathComponent("m1.jsonl").path])
        procs[1].waitUntilExit()
        #expect(procs[1].terminationStatus == 0)
        let listing = { (dir: String) in
            Set(((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { !$0.hasPrefix(".") })
        }
        #expect(
            listing(shared) == listing(t.appendingPathComponent("whole").path), "the same files as the unsharded run")
        for k in 0..<n {
            #expect(
                !records(t.appendingPathComponent("m\(k).jsonl").path).isEmpty,
                "shard \(k) had files (the hash above is scrubkit's)")
        }
        let union = (0..<n).reduce(into: Set<String>()) {
            $0.formUnion(records(t.appendingPathComponent("m\($1).jsonl").path))
        }
        #expect(
            union == records(t.appendingPathComponent("whole.jsonl").path),
            "the shards' manifests together are the whole manifest")
        let hidden = ((try? FileManager.default.contentsOfDirectory(atPath: shared)) ?? []).filter { $0.hasPrefix(".") }
        #expect(!hidden.contains { $0.hasSuffix(".tmp") }, "no temporary file left: \(hidden)")
        #expect(
            Set(hidden) == Set((0..<n).map { ".scrubkit-thumbs.state.\($0)-of-\(n).jsonl" }),
            "one journal per shard: \(hidden)")
    }

    @Test func staleTemporaryFilesAreJudgedByOwnerAndAge() throws {
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-stale-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: t, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: t) }
        // Another machine's fresh temp file (its pid may well be "dead" here): kept. Another machine's old one:
        // removed.
        let foreignFresh = t.appendingPathComponent(".a.jpg.otherpod~1.123.tmp").path
        let foreignOld = t.appendingPathComponent(".b.jpg.otherpod~1.456.tmp").path
        // This host, a pid that is gone: ours (same pid namespace) is removed at once; one written from another pid
        // namespace on this host (a container sharing the host's name) is kept while fresh, its pid meaning nothing
        // here.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        var buf = [CChar](repeating: 0, count: 256)
        _ = gethostname(&buf, buf.count)
        let name = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let host = String(name.split(separator: ".").first ?? "host").unicodeScalars
            .map { CharacterSet.alphanumerics.contains($0) || $0 == "-" ? String($0) : "-" }.joined()
        let ns = try #require(
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid"))?.filter(\.isNumber))
        let oursDead = t.appendingPathComponent(".c.jpg.\(host)-\(ns)~\(gone.processIdentifier).1.tmp").path
        let otherNamespace = t.appendingPathComponent(".d.jpg.\(host)-1~\(gone.processIdentifier).2.tmp").path
        // no namespace known
        let hostOnly = t.appendingPathComponent(".e.jpg.\(host)~\(gone.processIdentifier).3.tmp").path
        for f in [foreignFresh, foreignOld, oursDead, otherNamespace, hostOnly] {
            #expect(FileManager.default.createFile(atPath: f, contents: Data([1])))
        }
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: foreignOld)
        let r = try Scrub.run(["thumbs", samples.appendingPathComponent("image.png").path, "--out", t.path, "-q"])
        #expect(r.status == 0)
        #expect(FileManager.default.fileExists(atPath: foreignFresh), "a live writer elsewhere is not disturbed")
        #expect(!FileManager.default.fileExists(atPath: foreignOld), "an abandoned one is cleaned up")
        #expect(
            !FileManager.default.fileExists(atPath: oursDead),
            "a dead writer of this host and pid namespace is cleaned up")
        #expect(
            FileManager.default.fileExists(atPath: otherNamespace), "another pid namespace's pid is not looked up here")
        #expect(FileManager.default.fileExists(atPath: hostOnly), "a host name alone does not make a pid comparable")
    }
}
