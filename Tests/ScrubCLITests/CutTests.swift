import Foundation
import Testing

/// `scrubkit cut`: a section copied without re-encoding, checked with ffprobe and ffmpeg (the peer), not with
/// scrubkit's own reading.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "needs ffmpeg"))
struct CutTests {
    /// A folder of its own per test.
    static func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-cut-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// 10 s in Matroska: H.264 with B-frames and a keyframe every 2 s exactly, AAC, SRT subtitles (one a second)
    /// and three chapters (0–3, 3–6, 6–10 s).
    static func clip(in dir: String) throws -> String {
        var srt = ""
        for i in 0..<10 { srt += "\(i + 1)\n00:00:0\(i),000 --> 00:00:0\(i),800\nline \(i)\n\n" }
        try srt.write(toFile: dir + "/subs.srt", atomically: true, encoding: .utf8)
        try """
        ;FFMETADATA1
        title=cut test
        [CHAPTER]
        TIMEBASE=1/1000
        START=0
        END=3000
        title=one
        [CHAPTER]
        TIMEBASE=1/1000
        START=3000
        END=6000
        title=two
        [CHAPTER]
        TIMEBASE=1/1000
        START=6000
        END=10000
        title=three

        """.write(toFile: dir + "/meta.txt", atomically: true, encoding: .utf8)
        let clip = dir + "/clip.mkv"
        let r = try Scrub.execute(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=10",
                "-f", "lavfi", "-i", "sine=f=440:d=10", "-i", dir + "/subs.srt", "-i", dir + "/meta.txt",
                "-map", "0", "-map", "1", "-map", "2", "-map_metadata", "3", "-map_chapters", "3",
                "-c:v", "libx264", "-g", "50", "-keyint_min", "50", "-sc_threshold", "0", "-bf", "2",
                "-pix_fmt", "yuv420p", "-c:a", "aac", "-c:s", "srt", clip,
            ])
        try #require(r.status == 0, "\(r.stderr)")
        return clip
    }

    static func probe(_ path: String) throws -> [String: Any] {
        let r = try Scrub.execute(
            "ffprobe",
            ["-v", "error", "-show_streams", "-show_format", "-show_chapters", "-count_frames", "-of", "json", path])
        try #require(r.status == 0, "\(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    /// The MD5 of the first decoded picture at or after `seconds` (ffmpeg's exact seek), as decoded (no conversion).
    static func pictureHash(_ path: String, at seconds: Double = 0) throws -> String {
        let r = try Scrub.execute(
            "ffmpeg",
            ["-v", "error", "-ss", String(seconds), "-i", path, "-map", "0:v", "-frames:v", "1", "-f", "framemd5", "-"])
        try #require(r.status == 0, "\(r.stderr)")
        return try #require(r.stdout.split(separator: "\n").last { !$0.hasPrefix("#") }?.split(separator: ",").last)
            .trimmingCharacters(in: .whitespaces)
    }

    /// Where the source's picture starts on the container's clock (AAC's priming puts the sound a little before it).
    static func videoStart(_ path: String) throws -> Double {
        let streams = try #require(try probe(path)["streams"] as? [[String: Any]])
        return try #require(
            Double(streams.first { $0["codec_type"] as? String == "video" }?["start_time"] as? String ?? ""))
    }

    @Test func aSectionIsCopiedFromTheKeyframeWithEveryStreamAndItsChaptersTrimmed() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try Self.clip(in: dir)
        let out = dir + "/part.mkv"
        let r = try Scrub.run(["cut", clip, "--from", "3.3", "--to", "7.5", "-o", out, "--json"])
        try #require(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        // (Times on the file's presentation timeline, as ffprobe's: the picture starts 23 ms after the sound.)
        let cutAt = 2 + (try Self.videoStart(clip))
        #expect(abs((json["start"] as? Double ?? 0) - cutAt) < 0.0005,
                "starts on the keyframe 2 s into the picture: \(json)")
        #expect(json["requestedStart"] as? Double == 3.3)
        let p = try Self.probe(out)
        let streams = try #require(p["streams"] as? [[String: Any]])
        #expect(
            streams.map { $0["codec_type"] as? String } == ["video", "audio", "subtitle"],
            "every stream kept: \(streams.map { $0["codec_type"] ?? "" })")
        #expect(streams.map { $0["codec_name"] as? String } == ["h264", "aac", "subrip"], "copied as they were")
        // 2.023 … 7.5 s: 5.48 s, 137 pictures (2.023 to 7.463), within a picture or two (references shown after the
        // end).
        // (The last subtitle, 7–7.8 s, is cut at the end too.)
        let duration = Double((p["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
        #expect(abs(duration - 5.5) < 0.1, "duration \(duration)")
        let frames = Int(streams[0]["nb_read_frames"] as? String ?? "") ?? 0
        #expect((137...140).contains(frames), "\(frames) pictures")
        // The same pixels: the cut's first picture is the source's keyframe 2 s into the picture, and 4.5 s into the
        // cut is 4.5 s after it in the source.
        #expect(try Self.pictureHash(out) == Self.pictureHash(clip, at: cutAt))
        #expect(try Self.pictureHash(out, at: 4.5) == Self.pictureHash(clip, at: cutAt + 4.5))
        // Subtitles from the start on, shifted: lines 2…7 (line 2 at 0 s of the cut).
        let subs = try Scrub.execute("ffmpeg", ["-v", "error", "-i", out, "-map", "0:s", "-f", "srt", "-"]).stdout
        #expect(
            subs.contains("00:00:00,000 --> 00:00:00,800\nline 2") && subs.contains("line 7")
                && !subs.contains("line 1\n") && !subs.contains("line 8"), "\(subs)")
        // Chapters overlapping 2–7.5 s, trimmed and shifted (they are on the container's clock: at 3 and 6 s of it).
        let chapters = try #require(p["chapters"] as? [[String: Any]])
        let spans = chapters.map {
            (Double($0["start_time"] as? String ?? "") ?? -1, Double($0["end_time"] as? String ?? "") ?? -1)
        }
        let expected = [(0, 3 - cutAt), (3 - cutAt, 6 - cutAt), (6 - cutAt, 7.5 - cutAt)]
        #expect(
            spans.count == 3 && zip(spans, expected).allSatisfy { abs($0.0 - $1.0) < 0.01 && abs($0.1 - $1.1) < 0.01 },
            "\(spans) vs \(expected)")
        #expect(chapters.compactMap { ($0["tags"] as? [String: Any])?["title"] as? String } == ["one", "two", "three"])
        #expect(
            ((p["format"] as? [String: Any])?["tags"] as? [String: Any])?["title"] as? String == "cut test",
            "the file's metadata kept")
    }

    @Test func aStreamTheContainerCannotHoldIsLeftOutWithOneLine() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try Self.clip(in: dir)
        let key = 4 + (try Self.videoStart(clip))
        let r = try Scrub.run(["cut", clip, "--from", String(key), "--to", "6", "-o", dir + "/part.mp4"])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(
            r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("clip.mkv") && r.stderr.contains("subrip")
                && r.stderr.contains("left out"), "\(r.stderr)")
        #expect(
            r.stdout.contains("part.mp4") && !r.stdout.contains("before"),
            "a keyframe: no earlier start to report: \(r.stdout)")
        // (MP4 keeps its chapters in a text track of its own, which ffprobe lists as data.)
        let streams = try #require(try Self.probe(dir + "/part.mp4")["streams"] as? [[String: Any]])
        #expect(streams.compactMap { $0["codec_type"] as? String }.filter { $0 != "data" } == ["video", "audio"])
        #expect(try Self.pictureHash(dir + "/part.mp4") == Self.pictureHash(clip, at: key))
    }

    @Test func theDefaultNameSaysTheSectionAndAnEarlierStartIsSaid() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try Self.clip(in: dir)
        let r = try Scrub.run(["cut", clip, "--from", "0:05", "--to", "90%"])
        try #require(r.status == 0, "\(r.stderr)")
        let listing = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(listing.contains("clip-cut-0.05-90%.mkv"), "\(listing)")
        let key = String(format: "0:%06.3f", 4 + (try Self.videoStart(clip)))
        #expect(r.stdout.contains("keyframe at " + key), "\(r.stdout)")
    }

    @Test func badSectionsAndOutputsFailWithOneLineAndLeaveNothing() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try Self.clip(in: dir)
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: dir))
        for (args, words) in [
            (["--from", "20", "--to", "30"], "past the end"), (["--from", "6", "--to", "4"], "not after its start"),
            (["--from", "1", "-o", clip], "is the file being cut"),
        ] {
            let r = try Scrub.run(["cut", clip] + args + (args.contains("-o") ? [] : ["-o", dir + "/bad.mkv"]))
            #expect(
                r.status == 1 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(words),
                "\(args): \(r.stderr)")
        }
        let r = try Scrub.run(["cut", clip, "--to", "2", "-o", "/nonexistent-scrubkit-dir/x.mkv"])
        #expect(
            r.status == 1 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("x.mkv"), "\(r.stderr)")
        let missing = try Scrub.run(["cut", dir + "/missing.mp4", "--to", "2"])
        #expect(missing.status == 1 && missing.stderr.contains("missing.mp4: no such file"), "\(missing.stderr)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir)) == before, "nothing left behind")
    }
}
