import FFmpegBridge
import Foundation
import MediaTime
@testable import ScrubKit
import Testing

/// EXIF orientation read from APP1, in both byte orders.
@Suite struct ExifOrientationTests {
    func jpeg(exif tiff: [UInt8]) -> [UInt8] {
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let len = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(len >> 8), UInt8(len & 0xFF)] + payload + [0xFF, 0xDA, 0, 2]
    }
    func tiff(littleEndian: Bool, orientation: UInt16, type: UInt16 = 3) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] {
            littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)]
        }
        func u32(_ v: UInt32) -> [UInt8] {
            littleEndian
                ? u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) : u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF))
        }
        let head: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        // IFD0 with two entries: ImageWidth (0x0100), then Orientation (0x0112).
        return head + u16(42) + u32(8) + u16(2)
            + u16(0x0100) + u16(3) + u32(1) + u16(640) + u16(0)
            + u16(0x0112) + u16(type) + u32(1) + u16(orientation) + u16(0) + u32(0)
    }

    @Test func bothByteOrders() {
        for le in [true, false] {
            for o: UInt16 in 1...8 {
                #expect(ExifOrientation.read(bytes: jpeg(exif: tiff(littleEndian: le, orientation: o))) == Int(o))
            }
        }
    }

    @Test func absentOrMalformed() {
        #expect(ExifOrientation.read(bytes: [0xFF, 0xD8, 0xFF, 0xDA, 0, 2]) == nil)
        #expect(ExifOrientation.read(bytes: Array("not a jpeg".utf8)) == nil)
        #expect(ExifOrientation.read(bytes: jpeg(exif: [0x49, 0x49, 0, 0])) == nil)
        #expect(
            ExifOrientation.read(bytes: jpeg(exif: tiff(littleEndian: true, orientation: 6, type: 4))) == nil,
            "wrong type is not trusted")
        #expect(
            Orientation(exif: ExifOrientation.read(bytes: jpeg(exif: tiff(littleEndian: true, orientation: 0))) ?? 1)
                == .identity)
    }
}

/// JPEG stills through libjpeg-turbo, and the fallback to FFmpeg for what it declines.
@Suite struct JPEGPathTests {
    @Test(.enabled(if: Corpus.samplesAvailable && Reference.available))
    func scaledDecodeMatchesAReferenceRender() throws {
        var g = ThumbnailGenerator(path: Corpus.sample("large_6000x4000.jpg"))
        g.maximumSize = .longestSide(300)
        let t = try g.image(at: .absolute(.zero))
        #expect(t.image.width == 300 && t.image.height == 200)
        let ref = Reference.render(Corpus.sample("large_6000x4000.jpg"), at: nil, width: 300, height: 200)
        #expect(Reference.meanDifference(t.image.pixels, ref) < 4)
    }

    @Test(.enabled(if: Corpus.samplesAvailable))
    func unscaledAndNoShrinkGiveFullDetail() throws {
        var g = ThumbnailGenerator(path: Corpus.sample("large_6000x4000.jpg"))
        g.maximumSize = .longestSide(1500)
        let shrunk = try g.image(at: .absolute(.zero))
        g.allowsShrinkOnLoad = false
        let full = try g.image(at: .absolute(.zero))
        #expect(shrunk.image.width == 1500 && full.image.width == 1500)
        var total = 0
        for i in 0..<shrunk.image.pixels.count { total += abs(Int(shrunk.image.pixels[i]) - Int(full.image.pixels[i])) }
        #expect(Double(total) / Double(shrunk.image.pixels.count) < 3, "shrink-on-load keeps the picture")
    }

    @Test func decoderDeclinesWhatItShouldNotDo() {
        let bogus = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-\(UUID().uuidString).jpg")
            .path
        #expect(
            FileManager.default.createFile(
                atPath: bogus, contents: Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 1, 2, 0xFF, 0xD9])))
        defer { try? FileManager.default.removeItem(atPath: bogus) }
        guard case .declined = JPEGDecoder.decode(path: bogus, denominator: 8, maxPixels: 1_000_000) else {
            Issue.record("a JPEG without a frame must be declined, not crash or exit"); return
        }
        if case .decoded = JPEGDecoder.decode(path: "/nonexistent.jpg", denominator: 1, maxPixels: 1) {
            Issue.record("missing file decoded?")
        }
    }

    @Test(
        .enabled(if: Corpus.available),
        arguments: [
            "sharp-fixtures/Channel_digital_image_CMYK_color.jpg", "sharp-fixtures/testimgl.jpg",
            "androidx-media/jpeg/pixel-motion-photo-shortened.jpg", "sharp-fixtures/concert.jpg",
        ])
    func cmykLosslessTruncatedAndGreyAllWork(file: String) throws {
        var g = ThumbnailGenerator(path: Corpus.path(file))
        g.maximumSize = .longestSide(200)
        let t = try g.image(at: .absolute(.zero))
        #expect(max(t.image.width, t.image.height) <= 200 && min(t.image.width, t.image.height) > 0)
        #expect(Set(t.image.pixels).count > 8, "\(file): a real picture")
    }

    /// The file is read through a source of our own (256 KiB per read, straight into libjpeg's buffer) and decoded
    /// into the caller's array: the pixels are byte for byte those of libjpeg-turbo's own `djpeg` (its stdio source,
    /// the same scaling), for a whole file and for one cut short (both end on a fake EOI marker), whether the header's
    /// size was given (decoded in place), not given, or wrong (libjpeg's own buffer, copied).
    @Test(.enabled(if: Corpus.samplesAvailable && Reference.which("djpeg") != nil, "needs djpeg"),
          arguments: [1.0, 0.6])
    func pixelsAreLibjpegsOwn(keeping fraction: Double) throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Corpus.sample("large_6000x4000.jpg")))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(getpid())-\(fraction).jpg").path
        try whole.prefix(Int(Double(whole.count) * fraction)).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let ppm = Reference.run("djpeg", ["-scale", "1/8", "-ppm", path])
        try #require(ppm.count > 16, "djpeg wrote a picture")
        // P6, width, height, 255, then the pixels after one whitespace byte.
        var fields: [Substring] = [], at = ppm.startIndex
        while fields.count < 4 {
            while at < ppm.endIndex, ppm[at] == 0x20 || ppm[at] == 0x0A { at += 1 }
            let start = at
            while at < ppm.endIndex, ppm[at] != 0x20 && ppm[at] != 0x0A { at += 1 }
            fields.append(Substring(String(decoding: ppm[start..<at], as: UTF8.self)))
        }
        let reference = [UInt8](ppm[(at + 1)...])
        let (w, h) = (try #require(Int(fields[1])), try #require(Int(fields[2])))
        for fullSize in [(6000, 4000), nil, (5000, 4000)] as [(width: Int, height: Int)?] {
            guard
                case .decoded(let picture, _, _) = JPEGDecoder.decode(
                    path: path, denominator: 8, maxPixels: 1 << 30, fullSize: fullSize)
            else {
                Issue.record("not decoded with \(String(describing: fullSize))"); continue
            }
            #expect(picture.width == w && picture.height == h)
            #expect(picture.pixels == reference, "\(String(describing: fullSize)): the same pixels as djpeg")
        }
    }

    @Test(.enabled(if: Corpus.available))
    func pixelLimitStillRefusesBeforeDecoding() {
        var g = ThumbnailGenerator(path: Corpus.path("exif-orientation/Portrait_6.jpg"))
        g.pixelLimit = 1_000_000
        do { _ = try g.image(at: .absolute(.zero)); Issue.record("should refuse") }
        catch let e as MediaError { #expect(e.kind == .tooLarge) }
        catch { Issue.record("\(error)") }
    }
}

/// JPEG output through libjpeg-turbo, including a picture whose JPEG outgrows the first output buffer.
@Suite struct JPEGEncoderTests {
    @Test func noiseAtFullQualityRoundTrips() throws {
        var rng = SystemRandomNumberGenerator()
        var picture = RGBImage(width: 200, height: 200)
        for i in picture.pixels.indices { picture.pixels[i] = UInt8.random(in: 0...255, using: &rng) }
        let bytes = try picture.encoded(as: .jpeg, quality: 100)
        #expect(bytes.count > 200 * 200 / 2 + 4096, "bigger than the first buffer: \(bytes.count)")
        #expect(bytes.starts(with: [0xFF, 0xD8, 0xFF]) && bytes.suffix(2) == [0xFF, 0xD9])
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("noise-\(getpid()).jpg").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        guard case .decoded(let back, _, _) = JPEGDecoder.decode(path: path, denominator: 1, maxPixels: 1 << 30) else {
            Issue.record("does not decode"); return
        }
        #expect(back.width == 200 && back.height == 200)
        #expect(Reference.meanDifference(back.pixels, picture.pixels) < 8, "quality 100, 4:4:4")
    }
}
