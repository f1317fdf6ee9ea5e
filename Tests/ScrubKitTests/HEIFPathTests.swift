import FFmpegBridge
import Foundation
import MediaTime
@testable import ScrubKit
import Testing

/// HEIF/HEIC stills (phone photos) through libheif; FFmpeg 5.1 cannot read them at all.
@Suite(.enabled(if: Corpus.available, "needs ../shared/media"))
struct HEIFPathTests {
    let path = Corpus.path("androidx-media/heif/sample_still_photo.heic")

    @Test func theEmbeddedThumbnailServesSmallSizesAndMatchesTheFullPicture() throws {
        let heif = try #require(HEIFPicture(path: path))
        #expect(heif.width == 1080 && heif.height == 1920)
        var fast = ThumbnailGenerator(path: path)
        fast.maximumSize = .longestSide(160)
        var full = fast
        full.allowsShrinkOnLoad = false  // decode the 1080×1920 primary image, then scale
        let a = try fast.image(at: .fraction(numerator: 0, denominator: 1)),
            b = try full.image(at: .fraction(numerator: 0, denominator: 1))
        #expect(a.image.width == 90 && a.image.height == 160)
        #expect(b.image.width == 90 && b.image.height == 160)
        #expect(
            Reference.meanDifference(a.image.pixels, b.image.pixels) < 10,
            "the thumbnail is the same picture, same way up")
    }

    @Test func infoReportsTheStill() {
        let info = MediaInspector().inspect(path: path)
        #expect(info.error == nil, "\(String(describing: info.error))")
        #expect(info.container == "heif" && info.isStill)
        #expect(info.video?.displayWidth == 1080 && info.video?.displayHeight == 1920)
    }

    @Test func aTruncatedHEICIsAClearError() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(3000)
        let cut = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(getpid()).heic").path
        try bytes.write(to: URL(fileURLWithPath: cut))
        defer { unlink(cut) }
        do {
            _ = try ThumbnailGenerator(path: cut).image(at: .fraction(numerator: 0, denominator: 1))
            Issue.record("a truncated HEIC must fail")
        } catch let e as MediaError {
            #expect(e.description.hasPrefix(cut + ": ") && !e.description.contains("\n"))
        }
        #expect(MediaInspector().inspect(path: cut).error != nil)
    }
}

/// AVIF stills go through libheif too (FFmpeg 5.1 cannot read an AVIF whose primary item is not the first).
@Suite(.enabled(if: Corpus.available, "needs ../shared/media"))
struct AVIFPathTests {
    @Test func anAVIFWithAPrimaryItemBoxDecodes() throws {
        var g = ThumbnailGenerator(path: Corpus.path("sharp-fixtures/pitm.avif"))
        g.maximumSize = .longestSide(320)
        let t = try g.image(at: .absolute(.zero))
        #expect(t.image.width == 320 && t.image.height == 63, "4096×800 fitted: \(t.image.width)×\(t.image.height)")
        #expect(!FrameScore(t.image).isBlank)
        let one = try ThumbnailGenerator(path: Corpus.path("androidx-media/avif/white-1x1.avif")).image(
            at: .absolute(.zero))
        #expect(one.image.width == 1 && one.image.pixels.allSatisfy { $0 > 240 }, "white")
    }

    @Test func infoSeesTheStillTheThumbnailerDecodes() {
        // FFmpeg opens this AVIF as a one-frame MP4 whose frame it cannot find; info said "no video frame".
        let info = MediaInspector().inspect(path: Corpus.path("sharp-fixtures/pitm.avif"))
        #expect(info.error == nil, "\(String(describing: info.error))")
        #expect(info.isStill && info.container == "avif" && info.video?.codec == "av1")
        #expect(info.video?.displayWidth == 4096 && info.video?.displayHeight == 800)
    }
}

/// The head read that routes stills reads regular files only: bytes taken from a pipe would be missing for FFmpeg.
@Suite struct ImageHeaderTests {
    @Test func onlyRegularFilesAreRead() throws {
        #expect(ImageHeader.head(path: "/dev/zero") == nil, "a character device is not read")
        let f = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-head-\(UUID().uuidString)")
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: f)
        defer { try? FileManager.default.removeItem(at: f) }
        #expect(ImageHeader.head(path: f.path) == [0x89, 0x50, 0x4E, 0x47])
    }
}
