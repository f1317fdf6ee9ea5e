import Foundation
import Testing

extension CutTests {
    /// A 4-s 25 fps clip made with `video` options (x264's), as `name`.
    static func structured(_ name: String, in dir: String, _ video: [String]) throws -> String {
        let clip = dir + "/" + name
        let made = try Scrub.execute("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=4",
                                                "-pix_fmt", "yuv420p"] + video + [clip])
        try #require(made.status == 0, "\(made.stderr)")
        return clip
    }

    /// How many pictures FFmpeg shows of `path`.
    static func pictureCount(_ path: String) throws -> Int {
        let r = try Scrub.execute("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                              "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        return try #require(Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(r.stderr)")
    }

    /// An open group's keyframe is an I picture, not an IDR: copied pictures that follow re-encoded ones from there
    /// were never shown (FFmpeg waits for an IDR after the parameter sets change). The exact cut re-encodes on to the
    /// next IDR — here the whole section — so every picture of it is shown.
    @Test func anExactCutOfAnOpenGroupShowsEveryPicture() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try Self.structured("open.mkv", in: dir, ["-c:v", "libx264", "-x264-params",
                                                             "bframes=3:open-gop=1:keyint=50:scenecut=0"])
        let out = dir + "/exact.mkv"
        let r = try Scrub.run(["cut", clip, "--from", "0.73", "--to", "3", "--exact", "-o", out])
        try #require(r.status == 0, "\(r.stderr)")
        // 0.72 (shown at 0.73) … 2.96: 57 pictures, and up to 2 after the end kept as references.
        let count = try Self.pictureCount(out)
        #expect((57...59).contains(count), "\(count) pictures shown")
        #expect(r.stdout.contains("(the first 0:02.270 re-encoded)"), "\(r.stdout)")
    }

    /// An open-GOP stream with no IDR after its first picture has nowhere a copy can take over: past 30 s of
    /// re-encoding the exact cut is refused with one line, and the cut starts on the keyframe before (an I picture,
    /// where a lossless copy can start).
    @Test func anExactCutWithNoIDRWithin30SecondsIsRefusedWithOneLine() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = dir + "/open40.mkv"
        let made = try Scrub.execute("ffmpeg", ["-v", "error", "-y", "-f", "lavfi",
                                                "-i", "testsrc2=s=160x120:r=25:d=40", "-pix_fmt", "yuv420p",
                                                "-c:v", "libx264", "-x264-params",
                                                "bframes=3:open-gop=1:keyint=50:scenecut=0", clip])
        try #require(made.status == 0, "\(made.stderr)")
        let r = try Scrub.run(["cut", clip, "--from", "2.5", "--to", "39", "--exact", "-o", dir + "/out.mkv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "scrubkit: \(clip): --exact: no picture within 30 s of the start where the copy could"
                + " take over (an open GOP without IDR pictures); the cut starts on the keyframe at 0:02.000\n",
                "\(r.stderr)")
        let decode = try Scrub.execute("ffmpeg", ["-v", "error", "-i", dir + "/out.mkv", "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr.prefix(300))")
    }

    /// With intra refresh MP4 marks recovery points as sync samples, though no picture there decodes whole: the
    /// copy starts on the IDR before (the only place it can), says so, and shows its first picture.
    @Test func aCutOfIntraRefreshStartsWhereDecodingCan() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try Self.structured("refresh.mp4", in: dir, ["-c:v", "libx264", "-x264-params",
                                                                "intra-refresh=1:keyint=50"])
        let out = dir + "/part.mp4"
        let r = try Scrub.run(["cut", clip, "--from", "2.3", "--to", "3.5", "-o", out, "--json"])
        try #require(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["start"] as? Double == 0, "the IDR at 0: \(json)")
        let decode = try Scrub.execute("ffmpeg", ["-v", "error", "-i", out, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr.prefix(300))")
        let count = try Self.pictureCount(out)
        #expect((88...90).contains(count), "0 … 3.48 s and up to 2 references after the end: \(count)")
    }

    /// A phone's rotated video keeps its display matrix in the cut, as `ffmpeg -c copy` keeps it: the copy shows
    /// upright as the source does. (The matrix was left behind: the cut showed on its side.)
    @Test func aCutOfARotatedVideoKeepsItsRotation() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = Scrub.packageRoot.appendingPathComponent("samples/rotated90.mp4").path
        func rotation(_ path: String) throws -> String {
            try Scrub.execute("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                          "stream_side_data=rotation", "-of", "csv=p=0", path]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let source = try rotation(clip)
        try #require(source == "-90", "the sample is rotated: \(source)")
        for exact in [false, true] {
            let out = dir + "/part-\(exact).mp4"
            let r = try Scrub.run(["cut", clip, "--from", "0.5", "--to", "1.5", "-o", out] + (exact ? ["--exact"] : []))
            try #require(r.status == 0, "\(r.stderr)")
            let kept = try rotation(out)
            #expect(kept == "-90", "exact \(exact): \(kept)")
        }
    }

    /// An AVI's pictures carry decode times only; reordered (B-pictures), where a copy starts cannot be known from
    /// its packets: refused with one line and how to remux, nothing written.
    @Test func aCutOfReorderedPicturesWithoutPresentationTimesIsRefused() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try Self.structured("asp.avi", in: dir, ["-c:v", "mpeg4", "-bf", "2", "-g", "50", "-q:v", "3"])
        let out = dir + "/part.avi"
        let r = try Scrub.run(["cut", clip, "--from", "2.3", "--to", "3.5", "-o", out])
        #expect(r.status == 1)
        let lines = r.stderr.split(separator: "\n")
        #expect(r.stderr.hasPrefix("scrubkit: \(clip): its pictures are reordered") && lines.count == 1, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
