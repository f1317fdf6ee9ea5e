import FFmpegBridge
import Foundation
import MediaTime
import Testing
@testable import ScrubKit

/// Animated previews of the 16-scene clip: excerpts from different scenes, frame counts, durations and sizes per
/// format, and nothing left behind when the output cannot be written.
@Suite(.enabled(if: Reference.available, "needs the ffmpeg CLI"))
struct PreviewTests {
    func output(_ ext: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-preview-\(UUID().uuidString).\(ext)")
            .path
    }

    @Test func anAnimatedWebPOfSixScenes() throws {
        let clip = try SceneTests.clip()
        let out = output("webp")
        defer { unlink(out) }
        let r = try PreviewMaker.make(clip, to: out, options: PreviewOptions())
        #expect(r.frames == 60 && r.seconds == 6 && r.width == 320 && r.height == 180, "\(r)")
        // Six excerpts, each inside another scene (the six longest), in order.
        let cuts = SceneTests.madeCuts
        let scenesOf = r.excerpts.map { t in cuts.filter { $0 <= t.seconds + 1e-6 }.count }
        #expect(
            Set(scenesOf).count == 6 && scenesOf == scenesOf.sorted(),
            "\(r.excerpts.map(\.seconds)) in scenes \(scenesOf)")
        for (t, scene) in zip(r.excerpts, scenesOf) {
            let end = scene < cuts.count ? cuts[scene] : 49
            #expect(t.seconds + 1 <= end + 1e-6, "the excerpt at \(t.seconds) stays in its scene (ending \(end))")
        }
        // The file as libwebp reads it: 320×180, up to 60 frames (the encoder merges a still scene's repeats into
        // longer frames), at least one per excerpt.
        let webp = try #require(WebPPicture(path: out))
        #expect(
            webp.frameCount >= 6 && webp.frameCount <= 60 && webp.width == 320 && webp.height == 180,
            "\(webp.frameCount) frames")
    }

    @Test func anMP4OfTenExcerptsAtFifteenFPS() throws {
        let clip = try SceneTests.clip()
        let out = output("mp4")
        defer { unlink(out) }
        var o = PreviewOptions()
        o.format = .mp4
        o.count = 10
        o.framesPerSecond = 15
        o.excerptSeconds = 0.6
        o.maximumSize = .longestSide(161)   // (an odd side: H.264 gets an even one)
        let r = try PreviewMaker.make(clip, to: out, options: o)
        #expect(r.frames == 90 && r.width == 160 && r.height == 90, "\(r)")
        let probe = String(
            decoding: Reference.run(
                "ffprobe",
                [
                    "-v", "error", "-count_frames", "-show_entries",
                    "stream=codec_name,width,height,nb_read_frames,duration", "-of", "csv=p=0", out,
                ]), as: UTF8.self)
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "h264,160,90,6.000000,90", "\(probe)")
    }

    @Test func aGIFWithOnePaletteForTheClip() throws {
        let clip = try SceneTests.clip()
        let out = output("gif")
        defer { unlink(out) }
        var o = PreviewOptions()
        o.format = .gif
        o.count = 3
        let r = try PreviewMaker.make(clip, to: out, options: o)
        #expect(r.frames == 30 && r.width == 320 && r.height == 180, "\(r)")
        let probe = String(
            decoding: Reference.run(
                "ffprobe",
                [
                    "-v", "error", "-count_frames", "-show_entries", "stream=codec_name,width,height,nb_read_frames",
                    "-show_entries", "format=duration", "-of", "csv=p=0", out,
                ]), as: UTF8.self)
        #expect(probe.split(separator: "\n").map(String.init) == ["gif,320,180,30", "3.000000"], "\(probe)")
        // The colours survive the palette: the middle of the first frame is the source's within a few levels.
        let gifPixel = Reference.run(
            "ffmpeg",
            [
                "-v", "error", "-i", out, "-frames:v", "1", "-vf", "crop=1:1:160:90", "-f", "rawvideo", "-pix_fmt",
                "rgb24", "-",
            ])
        let webp = output("webp")
        defer { unlink(webp) }
        o.format = .webp
        _ = try PreviewMaker.make(clip, to: webp, options: o)
        let reference = try #require(WebPPicture(path: webp)?.decode(width: 320, height: 180))
        let i = (90 * 320 + 160) * 3
        #expect(
            gifPixel.count == 3
                && zip(gifPixel, reference.pixels[i..<(i + 3)]).allSatisfy { abs(Int($0) - Int($1)) < 24 },
            "\(Array(gifPixel)) vs \(Array(reference.pixels[i..<(i + 3)]))")
    }

    @Test func aGIFDecodesItsExcerptsOnceAsTheOtherFormatsDo() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-preview-opens-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // (A copy of its own: opens are counted per path.)
        let clip = dir + "/clip.mp4"
        try FileManager.default.copyItem(atPath: try SceneTests.clip(), toPath: clip)
        func opens(_ format: PreviewFormat) throws -> Int {
            MediaOpener.openCounts.withLock { if $0 == nil { $0 = [:] } }
            let before = MediaOpener.openCounts.withLock { $0?[clip] ?? 0 }
            var o = PreviewOptions()
            o.format = format
            o.count = 3
            _ = try PreviewMaker.make(clip, to: dir + "/out." + format.rawValue, options: o)
            return MediaOpener.openCounts.withLock { $0?[clip] ?? 0 } - before
        }
        let webp = try opens(.webp), gif = try opens(.gif)
        #expect(webp > 0 && gif == webp, "GIF \(gif) opens, WebP \(webp)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir)) == ["clip.mp4", "out.webp", "out.gif"])
    }

    @Test func framesPastTheMemoryBudgetAreKeptInAFileThatLeavesNothing() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-spool-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = (0..<5).map { i in (0..<12).map { UInt8(i * 16 + $0) } }
        var spool: FrameSpool? = FrameSpool(frameBytes: 12, besides: dir + "/out.gif", memoryBudget: 24)
        for f in frames { try spool!.append(f) }
        var back: [[UInt8]] = []
        try spool!.forEach { back.append($0) }
        #expect(back == frames)
        back = []
        try spool!.forEach { back.append($0) }
        #expect(back == frames, "read back again")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty, "the file is unlinked while in use")
        spool = nil
    }

    @Test func anOutputThatCannotBeWrittenLeavesNothing() throws {
        let clip = try SceneTests.clip()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-preview-bad-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: dir + "/taken", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The output's name is a directory's: the finished file cannot replace it, for either format.
        for format in PreviewFormat.allCases {
            var o = PreviewOptions()
            o.format = format
            o.count = 2
            #expect(throws: MediaError.self) { try PreviewMaker.make(clip, to: dir + "/taken", options: o) }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["taken"], "no temporary file left")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/taken").isEmpty)
    }

    @Test func aStillOrAMissingFileIsOneClearError() throws {
        let png = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-preview-still-\(getpid()).png"
        ).path
        defer { unlink(png) }
        _ = Reference.run(
            "ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x48", "-frames:v", "1", png])
        for path in [png, "/no/such/clip.mp4"] {
            let out = output("webp")
            #expect(throws: MediaError.self) { try PreviewMaker.make(path, to: out) }
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
