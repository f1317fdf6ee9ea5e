import Foundation
import Testing

@Suite struct InfoSubtitleTests {
    /// `info` lists subtitle streams — codec, language, title, default/forced, pictures or text — in the table and
    /// in `--json`.
    @Test func infoListsSubtitleStreams() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-info-subs-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "1\n00:00:00,500 --> 00:00:01,500\nHello\n".write(toFile: "\(dir)/a.srt", atomically: true, encoding: .utf8)
        let made = try Scrub.execute(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-i", "\(dir)/a.srt",
                "-i", "\(dir)/a.srt", "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-c:s:0", "srt",
                "-c:s:1", "ass", "-metadata:s:s:0", "language=eng", "-metadata:s:s:0", "title=English SDH",
                "-disposition:s:0", "default", "-disposition:s:1", "forced", "\(dir)/t.mkv",
            ])
        try #require(made.status == 0, "\(made.stderr)")
        let table = try Scrub.run(["info", "\(dir)/t.mkv"])
        #expect(table.stdout.contains("subtitles  subrip, eng \"English SDH\" (default)\n"), "\(table.stdout)")
        #expect(table.stdout.contains("           ass (forced)\n"), "\(table.stdout)")
        let json = try Scrub.run(["info", "--json", "\(dir)/t.mkv"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let subtitles = try #require(object?["subtitles"] as? [[String: Any]])
        #expect(subtitles.count == 2)
        #expect(subtitles.first?["codec"] as? String == "subrip" && subtitles.first?["language"] as? String == "eng")
        #expect(subtitles.first?["title"] as? String == "English SDH" && subtitles.first?["default"] as? Bool == true)
        #expect(
            subtitles.last?["forced"] as? Bool == true && subtitles.last?["language"] is NSNull
                && subtitles.last?["bitmap"] as? Bool == false)
    }
}
