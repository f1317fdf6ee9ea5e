import FFmpegBridge
import Foundation
import MediaTime
@testable import ScrubKit
import Testing
import TextBridge

private func s(_ v: Int64, _ scale: Int32 = 1) -> MediaTime { MediaTime(value: v, timescale: scale) }

/// Text through FreeType + fontconfig (the default font must be installed: fonts-dejavu-core, via tools/setup-deps).
struct TextTests {
    @Test func drawsAntiAliasedUnicodeInTheRightCase() throws {
        let r = try TextRenderer()
        #expect(r.fontPath.hasSuffix(".ttf") || r.fontPath.hasSuffix(".otf") || r.fontPath.hasSuffix(".ttc"))
        let accented = r.render("Été à Paris", pixelSize: 20), plain = r.render("Ete a Paris", pixelSize: 20)
        #expect(accented.width > 60 && accented.height >= 20)
        #expect(accented.alpha != plain.alpha, "É, é, à are not E, e, a")
        let lower = r.render("h264_gop2s.mp4", pixelSize: 16), upper = r.render("H264_GOP2S.MP4", pixelSize: 16)
        #expect(lower.alpha != upper.alpha && lower.width < upper.width, "lower case stays lower case")
        #expect(accented.alpha.contains { $0 > 0 && $0 < 255 }, "anti-aliased edges")
        #expect(accented.alpha.contains(255))
        // Bigger type is bigger.
        #expect(r.render("0:07.12", pixelSize: 30).width > r.render("0:07.12", pixelSize: 12).width * 2)
    }

    @Test(.enabled(if: FontLocator.file(covering: 0x65E5) != nil, "no installed font has 日"))
    func charactersTheFontLacksComeFromAnotherFont() throws {
        let r = try TextRenderer()
        let missing = r.render("\u{10FFFD}", pixelSize: 24)     // a private-use character no font has: the box
        let nichi = r.render("日", pixelSize: 24)
        #expect(nichi.alpha != missing.alpha)
    }

    @Test func aFontThatIsNotThereIsAClearError() {
        #expect(throws: FontError.self) { try TextRenderer(font: "/nonexistent/font.ttf") }
        do { _ = try TextRenderer(font: "/nonexistent/font.ttf") } catch {
            #expect("\(error)".contains("/nonexistent/font.ttf"))
        }
    }
}

struct SheetLabelTests {
    @Test func oneFormatPerSheet() {
        #expect(SheetTimes.labels([7.24, 10, 14.04]) == ["0:07.2", "0:10.0", "0:14.0"])
        #expect(SheetTimes.labels([0.47, 0.77, 1.0]) == ["0:00.47", "0:00.77", "0:01.00"])
        #expect(
            SheetTimes.labels([30, 1800, 3600]) == ["0:00:30", "0:30:00", "1:00:00"],
            "hours on every label once one needs them")
        #expect(SheetTimes.labels([65, 125]) == ["1:05", "2:05"])
    }

    @Test func tilesAreLabelledFromTheStartOfTheFileUnlessAbsolute() {
        // A TS whose first frame is at 6.4 s: a tile at 7.12 s is 0.72 s into the file.
        let times = [MediaTime(value: 712, timescale: 100), MediaTime(value: 812, timescale: 100)]
        #expect(
            BatchRunner.tileLabels(times, start: MediaTime(value: 64, timescale: 10), absolute: false) == [
                "0:00.7", "0:01.7",
            ])
        #expect(
            BatchRunner.tileLabels(times, start: MediaTime(value: 64, timescale: 10), absolute: true) == [
                "0:07.1", "0:08.1",
            ])
    }

    @Test func coloursParse() {
        #expect(RGBColor(parsing: "#ff8000") == RGBColor(255, 128, 0))
        #expect(RGBColor(parsing: "fff") == RGBColor(255, 255, 255))
        #expect(RGBColor(parsing: "Navy") == RGBColor(0, 0, 128))
        #expect(RGBColor(parsing: "#12345") == nil && RGBColor(parsing: "chartreuse-ish") == nil)
    }
}

/// Representative frames on clips made for it with ffmpeg: black, sharp, blurred and fading stretches.
@Suite(.enabled(if: Reference.available, "needs the ffmpeg CLI"))
struct RepresentativeFrameTests {
    /// 6 s at 25 fps, a keyframe every 0.4 s: black until 2 s, sharp 2–4 s, blurred (σ = 12) from 4 s.
    static let clip: String? = make("bsb", "lutrgb=r=0:g=0:b=0:enable='lt(t,2)',gblur=sigma=12:enable='gte(t,4)'")
    /// The same picture fading in from black over 3 s.
    static let fade: String? = make("fade", "fade=in:st=0:d=3")

    static func make(_ name: String, _ filter: String) -> String? {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-best-\(name)-\(getpid()).mp4")
            .path
        _ = Reference.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=6",
                "-vf", filter, "-c:v", "libx264", "-g", "10", "-keyint_min", "10", "-sc_threshold", "0",
                "-pix_fmt", "yuv420p", out,
            ])
        return FileManager.default.fileExists(atPath: out) ? out : nil
    }

    func thumb(_ path: String, at seconds: Double, best: Bool) throws -> Thumbnail {
        var g = ThumbnailGenerator(path: path)
        g.maximumSize = .longestSide(160)
        g.selectsRepresentativeFrames = best
        return try g.image(at: .absolute(MediaTime(seconds: seconds, preferredTimescale: 1000)))
    }

    @Test func skipsBlackAndBlurredFramesForASharpOne() throws {
        let clip = try #require(RepresentativeFrameTests.clip)
        // Asked in the black stretch, with sharp frames inside the window: a sharp one.
        let early = try thumb(clip, at: 1.8, best: true)
        #expect(early.actualTime.seconds >= 2 && early.actualTime.seconds < 4, "\(early.actualTime)")
        #expect(!FrameScore(early.image).isBlank)
        #expect(FrameScore(try thumb(clip, at: 1.8, best: false).image).isBlank, "the plain frame there is black")
        // Asked in the blurred stretch, with sharp frames before it: a sharp one.
        let late = try thumb(clip, at: 4.2, best: true)
        let plain = try thumb(clip, at: 4.2, best: false)
        #expect(late.actualTime.seconds < 4, "\(late.actualTime)")
        #expect(FrameScore(late.image).sharpness > 4 * FrameScore(plain.image).sharpness)
        #expect(late.requestedTime == MediaTime(value: 42, timescale: 10))
    }

    @Test func prefersTheEndOfAFadeToItsDarkStart() throws {
        let fade = try #require(RepresentativeFrameTests.fade)
        let t = try thumb(fade, at: 1.0, best: true)
        #expect(t.actualTime.seconds >= 1.6, "\(t.actualTime)")
        let plain = try thumb(fade, at: 1.0, best: false)
        #expect(FrameScore(t.image).meanLuma > FrameScore(plain.image).meanLuma)
    }

    /// A long-GOP clip (a keyframe every 10 s) of `seconds` at 25 fps, black where `black` says (an ffmpeg expression).
    static func longGOP(_ name: String, seconds: Int, black: String) -> String? {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-best-\(name)-\(getpid()).mp4")
            .path
        _ = Reference.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=\(seconds)",
                "-vf", "lutrgb=r=0:g=0:b=0:enable='\(black)'", "-c:v", "mpeg4", "-g", "250", "-sc_threshold",
                "1000000000", "-q:v", "4", out,
            ])
        return FileManager.default.fileExists(atPath: out) ? out : nil
    }

    /// The clip: 20 s, black until 6.5 s. The file's representative frame (10–30 %, all black there) is
    /// found further on, not the black frame at 20 %; the candidates say what was passed over and why.
    @Test func theRepresentativeFrameKeepsLookingPastABlackStart() throws {
        let clip = try #require(Self.longGOP("blackstart", seconds: 20, black: "lt(t,6.5)"))
        var g = ThumbnailGenerator(path: clip)
        g.maximumSize = .longestSide(160)
        g.selectsRepresentativeFrames = true
        g.representativeWindow = .fractionOfDuration(0.2)
        let t = try g.image(at: .fraction(numerator: 1, denominator: 5))
        #expect(t.actualTime.seconds >= 6.5 && !FrameScore(t.image).isBlank, "\(t.actualTime)")
        #expect(t.candidates.contains { $0.rejections == [.black] }, "\(t.candidates.map(\.rejections))")
        #expect(t.candidates.last?.rejections == [] && t.candidates.last?.time == t.actualTime)
        #expect(t.candidates.count <= 5 + 12 + 1, "bounded: \(t.candidates.count)")
        // With thresholds that accept black, the window's own frame is taken and nothing further is tried.
        g.frameCriteria.minimumContrast = 0
        g.frameCriteria.darkBelow = 0
        g.frameCriteria.minimumSharpness = 0
        let lax = try g.image(at: .fraction(numerator: 1, denominator: 5))
        #expect(
            lax.actualTime.seconds < 6.5 && lax.candidates.allSatisfy { $0.time < MediaTime(value: 13, timescale: 2) },
            "\(lax.actualTime)")
    }

    /// A sheet tile whose window is black (and whose keyframe is too) moves within its slot to a frame that is not.
    @Test func aBlackTileMovesWithinItsSlot() throws {
        let clip = try #require(Self.longGOP("blacktile", seconds: 40, black: "between(t,10,16.5)"))
        var g = ThumbnailGenerator(path: clip)
        g.maximumSize = .longestSide(96)
        g.selectsRepresentativeFrames = true
        g.representativeWindow = .betweenNeighbours
        let times: [TimeExpression] = [5, 15, 25, 35].map { .absolute(MediaTime(value: $0, timescale: 1)) }
        let thumbs = try g.generate(at: times).map { try $0.result.get() }
        #expect(thumbs.allSatisfy { !FrameScore($0.image).isBlank }, "\(thumbs.map(\.actualTime))")
        let second = try #require(thumbs.dropFirst().first)
        #expect(
            second.actualTime.seconds > 16.5 && second.actualTime.seconds <= 20,
            "stays in its slot: \(second.actualTime)")
        #expect(thumbs.map(\.actualTime) == thumbs.map(\.actualTime).sorted())
    }

    @Test func aSheetOfTheClipHasNoBlankTile() throws {
        let clip = try #require(RepresentativeFrameTests.clip)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-best-sheet-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var o = BatchOptions(outputDirectory: dir)
        o.sheet = (4, 2)
        o.maximumSize = .longestSide(96)
        o.selectsRepresentativeFrames = true
        o.skipsBlankFrames = false          // the choice alone must avoid them
        let runner = try BatchRunner(options: o)
        let r = runner.process(
            clip, naming: BatchNaming(template: o.nameTemplate, allSources: [clip]), parallelFiles: 1)
        #expect(!r.failed, "\(r.errors)")
        let times = r.records.map(\.actualTime)
        #expect(times == times.sorted(), "tiles stay in time order")
        // The tiles in the black stretch moved out of it where their windows allowed (each window is half the spacing).
        #expect(times.filter { $0 < 2 }.count <= 2, "\(times)")
    }
}

struct FrameScoreTests {
    /// A checkerboard of `cell`-pixel squares in two colours.
    func board(_ w: Int, _ h: Int, cell: Int, _ a: (UInt8, UInt8, UInt8), _ b: (UInt8, UInt8, UInt8)) -> RGBImage {
        var px = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h { for x in 0..<w {
            let c = ((x / cell) + (y / cell)) % 2 == 0 ? a : b
            px[(y * w + x) * 3] = c.0; px[(y * w + x) * 3 + 1] = c.1; px[(y * w + x) * 3 + 2] = c.2
        } }
        return RGBImage(width: w, height: h, pixels: px)
    }

    @Test func blankLosesAndDetailWins() {
        let flat = RGBImage(width: 64, height: 36, pixels: [UInt8](repeating: 12, count: 64 * 36 * 3))
        let sharp = board(64, 36, cell: 2, (250, 30, 30), (20, 20, 240))
        let soft = board(64, 36, cell: 12, (250, 30, 30), (20, 20, 240))   // same colours, far fewer edges
        #expect(FrameScore(flat).isBlank && !FrameScore(sharp).isBlank)
        #expect(FrameScore(flat) < FrameScore(soft) && FrameScore(soft) < FrameScore(sharp))
        #expect(FrameScore(sharp).sharpness > 10 * FrameScore(soft).sharpness)
    }

    @Test func aFullSizePictureIsScoredOnAGrid() {
        // 4000×3000 (12 MP): scored on every 47th pixel, and still tells detail from flat.
        let big = board(4000, 3000, cell: 40, (200, 200, 200), (30, 30, 30))
        let s = FrameScore(big)
        #expect(!s.isBlank && s.lumaSpread > 60)
        #expect(s.colourVariety > 0.9 && s.colourVariety < 1.1, "two colours: one bit")
    }
}

/// A contact sheet's header comes from the open that made its thumbnails, not from a second open of the file.
struct SheetHeaderTests {
    @Test func headerFactsComeFromTheThumbnailsOpen() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-header-\(UUID().uuidString).mp4")
        try FileManager.default.copyItem(at: root.appendingPathComponent("samples/h264_gop2s.mp4"), to: copy)
        let info = MediaInspector(verifiesDecoding: false).inspect(path: copy.path)
        let (timeline, results) = try ThumbnailGenerator(path: copy.path).generate { _ in
            [.fraction(numerator: 1, denominator: 2)]
        }
        #expect(results.count == 1)
        // Gone (or, for a URL, expensive) by the time the sheet is drawn: the header must not need it.
        try FileManager.default.removeItem(at: copy)
        let (title, lines) = BatchRunner.sheetHeader(source: copy.path, timeline: timeline)
        #expect(title == copy.lastPathComponent)
        let v = try #require(info.video)
        let facts = try #require(lines.first)
        #expect(facts.contains(v.codec) && facts.contains("\(v.displayWidth)×\(v.displayHeight)"), "\(facts)")
        #expect(facts.contains("fps") && facts.contains("/s"), "frame rate and bit rate: \(facts)")
        let a = try #require(info.audio.first)
        #expect(lines.last == "audio: \(a.codec) 44.1 kHz mono", "\(lines)")
    }

    @Test func aStillHasNoFrameRate() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let png = root.appendingPathComponent("samples/image.png").path
        let (timeline, _) = try ThumbnailGenerator(path: png).generate { _ in [.absolute(.zero)] }
        let (_, lines) = BatchRunner.sheetHeader(source: png, timeline: timeline)
        #expect(lines.first?.contains("png") == true && lines.first?.contains("fps") == false, "\(lines)")
    }
}
