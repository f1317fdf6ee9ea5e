import Foundation
import MediaTime
import Testing
@testable import ScrubKit

/// Scene detection on clips of known construction, against the cuts made and against FFmpeg's scene score.
@Suite(.enabled(if: Reference.available, "needs the ffmpeg CLI"))
struct SceneTests {
    /// Scene lengths of the made clip (seconds, 25 fps): 16 scenes of unequal length, 49 s, as in the issue.
    static let lengths = [1, 2, 5, 1.5, 3, 8, 2, 1, 4, 6, 2.5, 1, 3, 5, 2, 2]

    /// Where the cuts were made (each length rounded to whole frames at 25 fps, as the concat filter does).
    static var madeCuts: [Double] {
        var t = 0.0
        return lengths.dropLast().map { t += ($0 * 25).rounded(.up) / 25; return t }
    }

    /// Four kinds of picture in turn, a hue turn every four scenes; H.264 with B-frames and one keyframe in 10 s
    /// (with `keyframesAtCuts`, x264's default: also one at each cut).
    static func clip(keyframesAtCuts: Bool = true) throws -> String {
        let kinds = ["testsrc2", "smptehdbars", "mandelbrot", "rgbtestsrc"]
        var args: [String] = []
        for (i, l) in lengths.enumerated() {
            args += ["-t", String(l), "-f", "lavfi", "-i", "\(kinds[i % 4])=size=320x180:rate=25"]
        }
        let chains = lengths.indices.map { "[\($0):v]hue=h=\(($0 / 4) * 90),format=yuv420p,setsar=1[v\($0)];" }.joined()
        let inputs = lengths.indices.map { "[v\($0)]" }.joined()
        return try #require(
            Reference.make(
                keyframesAtCuts ? "scenes16.mp4" : "scenes16-nokeys.mp4",
                args + [
                    "-filter_complex", chains + inputs + "concat=n=\(lengths.count):v=1:a=0[out]",
                    "-map", "[out]", "-c:v", "libx264", "-bf", "3", "-g", "250",
                ]
                    + (keyframesAtCuts ? [] : ["-x264-params", "scenecut=0"])))
    }

    /// Keyframes first then frame by frame where they differ (the default), or every frame: the same cuts, on their
    /// exact frames, whether the encoder put keyframes at the cuts or not.
    @Test(arguments: [(true, false), (false, false), (true, true), (false, true)])
    func findsEveryCutMadeAndTheSameAsFFmpeg(keyframesAtCuts: Bool, frameAccurate: Bool) throws {
        let clip = try Self.clip(keyframesAtCuts: keyframesAtCuts)
        var detector = SceneDetector()
        detector.isFrameAccurate = frameAccurate
        let found = try detector.detect(in: clip)
        let cuts = found.cuts.map(\.time.seconds)
        #expect(cuts.count == Self.madeCuts.count, "\(cuts)")
        for (a, b) in zip(cuts, Self.madeCuts) { #expect(abs(a - b) <= 0.001, "cut at \(a), made at \(b)") }
        #expect(found.scenes.count == Self.lengths.count && found.scenes.first?.start == .zero)
        #expect(abs((found.scenes.last.map { ($0.start + $0.duration).seconds } ?? 0) - 49) < 0.1)
        // FFmpeg's scene filter finds the same cuts.
        let log = String(
            decoding: Reference.run(
                "sh", ["-c", "ffmpeg -hide_banner -i '\(clip)' -vf \"select='gt(scene,0.3)',showinfo\" -f null - "
                    + "2>&1"]),
            as: UTF8.self)
        let ffmpeg = log.matches(of: /pts_time:([0-9.]+)/).compactMap { Double($0.1) }
        #expect(ffmpeg.count == cuts.count, "ffmpeg: \(ffmpeg)")
        for (a, b) in zip(cuts, ffmpeg) { #expect(abs(a - b) <= 0.001, "cut at \(a), ffmpeg's at \(b)") }
    }

    @Test func aFadeAndAPanAreNotCuts() throws {
        let clip = try #require(
            Reference.make(
                "fadepan2.mp4",
                [
                    "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=6",
                    "-vf", "scroll=h=0.08,fade=in:st=0:d=1,fade=out:st=5:d=1", "-c:v", "libx264",
                ]))
        let found = try SceneDetector().detect(in: clip)
        #expect(found.cuts.isEmpty, "\(found.cuts)")
        #expect(found.scenes.count == 1)
    }

    @Test func choosesTheLongestScenesOrSplitsTheLongest() {
        func s(_ a: Int, _ b: Int) -> Scene {
            Scene(
                start: MediaTime(value: Int64(a), timescale: 1), duration: MediaTime(value: Int64(b - a), timescale: 1))
        }
        let scenes = [s(0, 1), s(1, 6), s(6, 7), s(7, 10), s(10, 12)]
        // More scenes than wanted: the longest, in time order.
        #expect(SceneDetector.choose(2, from: scenes) == [s(1, 6), s(7, 10)])
        // Fewer: the longest split in halves until there are enough.
        let seven = SceneDetector.choose(7, from: scenes)
        #expect(seven.count == 7 && seven.map(\.start) == seven.map(\.start).sorted())
        #expect(
            seven.contains(Scene(start: MediaTime(value: 1, timescale: 1), duration: MediaTime(value: 5, timescale: 2)))
        )
        #expect(SceneDetector.choose(3, from: []).isEmpty && SceneDetector.choose(0, from: scenes).isEmpty)
    }

    /// Scene lists are kept in the thumbnail cache: a second run reads them and does not open the file.
    @Test func aSecondRunReadsTheScenesFromTheCache() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-scene-cache-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // (A copy of its own: other tests open the shared clip meanwhile, and opens are counted per path.)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let clip = dir + "/clip.mp4"
        try FileManager.default.copyItem(atPath: try Self.clip(), toPath: clip)
        let cache = ThumbnailCache(memoryBudget: 0, directory: dir + "/cache")
        func opens(_ body: () throws -> Void) rethrows -> Int {
            MediaOpener.openCounts.withLock { if $0 == nil { $0 = [:] } }
            let before = MediaOpener.openCounts.withLock { $0?[clip] ?? 0 }
            try body()
            return MediaOpener.openCounts.withLock { $0?[clip] ?? 0 } - before
        }
        var first: [Scene] = [], second: [Scene] = []
        #expect(try opens { first = try SceneDetector().detect(in: clip, cache: cache).scenes } == 1)
        #expect(try opens { second = try SceneDetector().detect(in: clip, cache: cache).scenes } == 0)
        #expect(first == second && first.count == Self.lengths.count)
        // Other settings are another entry.
        var other = SceneDetector()
        other.threshold = 0.5
        #expect(try opens { _ = try other.detect(in: clip, cache: cache) } == 1)
    }

    @Test func theCutsComeAsAnAsyncSequence() async throws {
        let clip = try Self.clip()
        var times: [Double] = []
        for try await cut in SceneDetector().cuts(in: clip) { times.append(cut.time.seconds) }
        #expect(times.count == Self.madeCuts.count && times == times.sorted())
        await #expect(throws: MediaError.self) { for try await _ in SceneDetector().cuts(in: "/no/such/file.mp4") {} }
    }
}
