import FFmpegBridge
import Foundation
import MediaTime
@testable import ScrubKit
import Testing

/// WebP stills through libwebp: decoded straight to the output size, first frame of animations, EXIF orientation.
@Suite struct WebPPathTests {
    /// A 64×32 picture, left half red, right half blue, as a WebP file with an EXIF chunk saying `orientation`
    /// (RIFF rebuilt as VP8X + image + EXIF: what cameras and phones write).
    func webpWithExif(orientation: UInt8) throws -> String {
        var picture = RGBImage(width: 64, height: 32)
        for y in 0..<32 {
            for x in 0..<64 {
                let i = (y * 64 + x) * 3; picture.pixels[i] = x < 32 ? 255 : 0; picture.pixels[i + 2] = x < 32 ? 0 : 255
            }
        }
        let plain = try picture.encoded(as: .webp, quality: 95)
        let image = Array(plain[12...])  // the "VP8 " chunk after "RIFF<size>WEBP"
        func le32(_ v: Int) -> [UInt8] {
            [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)]
        }
        func le24(_ v: Int) -> [UInt8] { Array(le32(v).prefix(3)) }
        let tiff: [UInt8] =
            [0x49, 0x49, 42, 0] + le32(8) + [1, 0] + [0x12, 0x01, 3, 0] + le32(1) + [orientation, 0, 0, 0] + le32(0)
        let vp8x = Array("VP8X".utf8) + le32(10) + [0x08, 0, 0, 0] + le24(63) + le24(31)
        let exif = Array("EXIF".utf8) + le32(tiff.count) + tiff + (tiff.count % 2 == 1 ? [0] : [])
        let body = Array("WEBP".utf8) + vp8x + image + exif
        let file = Array("RIFF".utf8) + le32(body.count) + body
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("exif-\(orientation)-\(getpid()).webp")
            .path
        try Data(file).write(to: URL(fileURLWithPath: path))
        return path
    }

    func pixel(_ img: RGBImage, _ x: Int, _ y: Int) -> (Int, Int, Int) {
        let i = (y * img.width + x) * 3
        return (Int(img.pixels[i]), Int(img.pixels[i + 1]), Int(img.pixels[i + 2]))
    }

    @Test(.enabled(if: ImageFormat.webp.isAvailable, "needs FFmpeg's libwebp encoder"))
    func exifOrientationIsApplied() throws {
        let path = try webpWithExif(orientation: 6)   // stored landscape, displayed turned 90° clockwise
        defer { unlink(path) }
        let webp = try #require(WebPPicture(path: path))
        #expect(ExifOrientation.tiffOrientation(webp.exif) == 6)
        var g = ThumbnailGenerator(path: path)
        g.maximumSize = .unscaled
        let t = try g.image(at: .fraction(numerator: 0, denominator: 1))
        #expect(
            t.image.width == 32 && t.image.height == 64, "portrait after rotation: \(t.image.width)×\(t.image.height)")
        let top = pixel(t.image, 16, 8), bottom = pixel(t.image, 16, 56)
        #expect(top.0 > 200 && top.2 < 60, "the left (red) half turns to the top: \(top)")
        #expect(bottom.2 > 200 && bottom.0 < 60, "the right (blue) half to the bottom: \(bottom)")
        g.appliesPreferredTrackTransform = false
        let stored = try g.image(at: .fraction(numerator: 0, denominator: 1))
        #expect(stored.image.width == 64 && stored.image.height == 32)
    }

    @Test(.enabled(if: Corpus.available, "needs ../shared/media"))
    func aHugeCanvasIsDecodedAtTheOutputSize() throws {
        let path = Corpus.path("androidx-media/webp/black_large.webp")   // 16000×9000
        let webp = try #require(WebPPicture(path: path))
        #expect(webp.width == 16000 && webp.height == 9000)
        var g = ThumbnailGenerator(path: path)
        g.maximumSize = .longestSide(320)
        let t = try g.image(at: .fraction(numerator: 1, denominator: 2))
        #expect(t.image.width == 320 && t.image.height == 180)
        #expect(t.image.pixels.allSatisfy { $0 < 16 }, "black")
    }

    @Test(.enabled(if: Corpus.available, "needs ../shared/media"))
    func animatedWebPGivesItsFirstFrame() throws {
        // FFmpeg 5.1 cannot decode animated WebP ("image data not found"); libwebp's demuxer can.
        let path = Corpus.path("sharp-fixtures/big-height.webp")
        let webp = try #require(WebPPicture(path: path))
        #expect(webp.frameCount == 97)
        var g = ThumbnailGenerator(path: path)
        g.maximumSize = .unscaled
        let t = try g.image(at: .fraction(numerator: 0, denominator: 1))
        #expect(t.image.width == 13 && t.image.height == 169)
        #expect(t.image.pixels.allSatisfy { $0 > 240 }, "its frames are white (as Pillow decodes them too)")
        // `scrubkit info` agrees: a usable file, its size and frame count from libwebp.
        let info = MediaInspector().inspect(path: path)
        #expect(info.error == nil, "\(String(describing: info.error))")
        #expect(info.video?.width == 13 && info.video?.height == 169 && info.video?.frameCount == 97)
    }

    @Test(.enabled(if: Corpus.available && Reference.available, "needs ../shared/media and ffmpeg"))
    func aStillMatchesAnFFmpegRender() throws {
        let path = Corpus.path("androidx-media/webp/ic_launcher_round.webp")
        var g = ThumbnailGenerator(path: path)
        g.maximumSize = .longestSide(96)
        let t = try g.image(at: .fraction(numerator: 0, denominator: 1))
        let reference = Reference.render(path, at: nil, width: t.image.width, height: t.image.height)
        #expect(Reference.meanDifference(t.image.pixels, reference) < 6)
    }
}
