import Foundation
import Testing

/// `thumb` without `--at` (the representative frame between 10 % and 30 %) and `--best`.
@Suite struct RepresentativeCLITests {
    let clip = Scrub.packageRoot.appendingPathComponent("samples/h264_gop2s.mp4").path   // 8 s, keyframes every 2 s

    @Test func withoutATimeAVideoGivesAFrameBetween10And30Percent() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-rep-\(UUID().uuidString).jpg")
            .path
        defer { unlink(out) }
        let r = try Scrub.run(["thumb", clip, "--json", "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let j = try #require(Scrub.jsonLines(r.stdout).first)
        let actual = try #require(j["actualTime"] as? Double)
        #expect(actual >= 0.8 && actual <= 2.4, "\(actual)")
        #expect(j["requestedTime"] as? Double == 1.6, "20 % of 8 s")
    }

    @Test func bestAroundAnExplicitTime() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-rep-\(UUID().uuidString).jpg")
            .path
        defer { unlink(out) }
        let r = try Scrub.run(["thumb", clip, "--at", "4.5", "--best", "--json", "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let actual = try #require(Scrub.jsonLines(r.stdout).first?["actualTime"] as? Double)
        #expect(abs(actual - 4.5) <= 1, "within ±1 s: \(actual)")
        #expect(Scrub.jsonLines(r.stdout).first?["exact"] as? Bool == false)
        // The frames considered are listed with their measures; the one chosen passed.
        let candidates = try #require(Scrub.jsonLines(r.stdout).first?["candidates"] as? [[String: Any]])
        #expect(
            !candidates.isEmpty
                && candidates.allSatisfy {
                    $0["time"] is Double && $0["sharpness"] is Double && $0["rejected"] is [String]
                })
        #expect(
            candidates.contains { $0["time"] as? Double == actual && ($0["rejected"] as? [String])?.isEmpty == true })
    }

    /// The thresholds are options: a sharpness no frame reaches rejects every candidate as blurry (the best seen is
    /// still returned), and a bad value is a usage error.
    @Test func theThresholdsAreOptions() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-rep-\(UUID().uuidString).jpg")
            .path
        defer { unlink(out) }
        let r = try Scrub.run(["thumb", clip, "--json", "--min-sharpness", "1000000", "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let candidates = try #require(Scrub.jsonLines(r.stdout).first?["candidates"] as? [[String: Any]])
        #expect(
            candidates.count > 5 && candidates.allSatisfy { ($0["rejected"] as? [String]) == ["blurry"] },
            "\(candidates)")
        let bad = try Scrub.run(["thumbs", clip, "--dark-below", "300", "--out", "/tmp"])
        #expect(bad.status == 64 && bad.stderr.contains("--dark-below"), "\(bad.stderr)")
    }
}
