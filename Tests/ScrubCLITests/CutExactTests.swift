import Foundation
import Testing

extension CutTests {
    /// The first picture of a file (or the one at `seconds`) as RGB, decoded by ffmpeg (the peer).
    static func rgb(_ path: String, at seconds: Double? = nil) throws -> [UInt8] {
        try ffmpegOutput(["-v", "error"] + (seconds.map { ["-ss", String($0)] } ?? [])
                         + ["-i", path, "-map", "0:v", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
    }

    /// What ffmpeg writes to its standard output with `args`, as bytes.
    static func ffmpegOutput(_ args: [String]) throws -> [UInt8] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg"] + args
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return [UInt8](data)
    }

    static func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        return Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.count)
    }

    /// An exact cut `out` of `clip`: it decodes with no error across the join from the re-encoded pictures to the
    /// copied ones; its first picture is the source's at `shown` (re-encoded: close, and closer than the one at
    /// `before`); its picture at 1 s is the source's at `copied`, copied: the same decoded bytes.
    static func checkJoin(_ out: String, of clip: String, shown: Double, before: Double, copied: Double) throws {
        let decode = try Scrub.execute("ffmpeg", ["-v", "error", "-i", out, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(out): \(decode.stderr.prefix(500))")
        let first = try rgb(out), start = try videoStart(clip)
        let asked = meanDifference(first, try rgb(clip, at: start + shown)),
            earlier = meanDifference(first, try rgb(clip, at: start + before))
        #expect(
            asked < 1.5 && asked * 4 < earlier,
            "\(out): the asked picture (difference \(asked)), not the one before (\(earlier))")
        #expect(try pictureHash(out, at: 1.0) == pictureHash(clip, at: start + copied), "\(out)")
    }

    /// `--exact`: the pictures from the asked start to the next keyframe are re-encoded, the rest copied: the cut
    /// starts on the picture shown at the asked time (3.33 s: the one of 3.32 s, from then), lasts the section, keeps
    /// its sound, and decodes without an error across the join.
    @Test func anExactCutStartsOnTheAskedPicture() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try Self.clip(in: dir)
        // (3.33 s into the picture, which starts 23 ms after the sound: times are on the file's timeline.)
        let from = 3.33 + (try Self.videoStart(clip)), to = 7.5 + (try Self.videoStart(clip))
        for ext in ["mkv", "mp4"] {
            let out = dir + "/exact.\(ext)"
            let r = try Scrub.run(["cut", clip, "--from", String(from), "--to", String(to), "--exact", "-o", out,
                                   "--json"])
            try #require(r.status == 0, "\(r.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            #expect(json["start"] as? Double == from && json["requestedStart"] as? Double == from, "\(json)")
            #expect(abs((json["reencoded"] as? Double ?? 0) - 0.67) < 0.001, "3.33 s to the keyframe at 4 s: \(json)")
            try Self.checkJoin(out, of: clip, shown: 3.32, before: 3.28, copied: 4.33)
            let p = try Self.probe(out)
            let streams = try #require(p["streams"] as? [[String: Any]])
            let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
            let frames = Int(video["nb_read_frames"] as? String ?? "") ?? 0
            #expect(abs(frames - 105) <= 2, "\(ext): 3.33–7.5 s at 25 fps: \(frames) pictures")
            #expect(streams.contains { $0["codec_type"] as? String == "audio" }, "the sound is kept")
        }
    }

    /// HEVC (libx265): the same, its VPS, SPS and PPS put back in front of the copied keyframe.
    @Test func anExactHEVCCutDecodesAcrossTheJoin() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = dir + "/hevc.mp4"
        let made = try Scrub.execute(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=6", "-c:v", "libx265",
                "-x265-params", "keyint=50:min-keyint=50:scenecut=0:bframes=3:log-level=error", "-tag:v", "hvc1", clip,
            ])
        try #require(made.status == 0, "\(made.stderr)")
        let out = dir + "/exact.mp4"
        let r = try Scrub.run(["cut", clip, "--from", "1.33", "--to", "4.5", "--exact", "-o", out])
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("(the first 0:00.670 re-encoded)"), "\(r.stdout)")
        try Self.checkJoin(out, of: clip, shown: 1.32, before: 1.28, copied: 2.33)
        // x265's keyframes are CRA pictures (an open group): the one the copy starts on is marked BLA, a splice point.
        let trace = try Scrub.execute("ffmpeg", ["-hide_banner", "-i", out, "-c", "copy", "-bsf:v", "trace_headers",
                                                 "-f", "null", "-"])
        let types = trace.stderr.split(separator: "\n").filter { $0.contains("nal_unit_type") }
            .compactMap { $0.split(separator: " ").last }
        #expect(types.filter { $0 == "16" }.count == 1 && types.contains("20"),
                "an IDR, then one BLA at the join: \(Set(types))")
    }

    /// Where a smart cut cannot be made (a codec other than H.264), the cut starts on the keyframe before, with one
    /// line why.
    @Test func anExactCutFallsBackToTheKeyframeWithOneLine() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = dir + "/mpeg4.mkv"
        let made = try Scrub.execute(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=6", "-c:v", "mpeg4", "-g", "50", clip])
        try #require(made.status == 0, "\(made.stderr)")
        let r = try Scrub.run(["cut", clip, "--from", "2.5", "--to", "4", "--exact", "-o", dir + "/out.mkv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stderr
                == "scrubkit: \(clip): --exact: re-encoding is done for H.264 and HEVC only, not mpeg4; the cut starts "
                    + "on the keyframe at 0:02.000\n",
            "\(r.stderr)")
        #expect(r.stdout.contains("(starts on the keyframe at 0:02.000, before 0:02.500)"), "\(r.stdout)")
    }
}
