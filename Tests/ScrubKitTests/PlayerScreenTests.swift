import FFmpegBridge
import Foundation
import MediaTime
@testable import ScrubKit
@testable import ScrubTerminal
import Testing

/// `scrubkit play` in real terminals (issue 8): a picture at every window size, right colours, sixel limits, input that
/// is never swallowed, forced modes refused where they would print garbage.
@Suite struct PlayerScreenTests {
    static let renderers: [FrameRenderer] = [
        HalfBlockRenderer(trueColor: true), HalfBlockRenderer(trueColor: false), KittyRenderer(),
        ITermRenderer(), SixelRenderer(), SixelRenderer(maxWidth: 1000, maxHeight: 1000),
    ]
    static let cells = [(6, 12), (7, 14), (8, 16), (9, 18), (10, 20)]
    // Landscape, portrait (rotated90.mp4), 4:3, scope.
    static let aspects = [16.0 / 9, 9.0 / 16, 4.0 / 3, 2.39]

    /// Every window size (60–200 columns × 20–60 rows), cell size and renderer: the geometry is a real picture
    /// inside the picture area, and a frame decoded at another size (stale, or rounded differently) is still painted at
    /// it.
    @Test func aPictureIsPaintedAtEveryWindowSize() {
        var checked = 0, painted = 0
        for (ri, renderer) in Self.renderers.enumerated() {
            let composer = PlayerFrameComposer(renderer: renderer, color: true)
            for columns in stride(from: 60, through: 200, by: 7) {
                for rows in stride(from: 20, through: 60, by: 4) {
                    for (ci, cell) in Self.cells.enumerated() {
                        for (ai, aspect) in Self.aspects.enumerated() {
                            let layout = PlayerLayout(columns: columns, rows: rows)
                            let g = composer.pictureGeometry(layout: layout, cellPixels: cell, aspect: aspect)
                            checked += 1
                            guard g.width > 0, g.height > 0 else {
                                Issue.record(
                                    "no picture: \(renderer.kind) \(columns)×\(rows) cells \(cell) aspect \(aspect)");
                                continue
                            }
                            let (cw, ch) = [.blocks, .blocks256].contains(renderer.kind) ? (g.width, (g.height + 1) / 2)
                                : ((g.width + cell.0 - 1) / cell.0, (g.height + cell.1 - 1) / cell.1)
                            #expect(g.column + cw <= layout.columns && g.row + ch <= layout.pictureRows,
                                    "\(renderer.kind) \(columns)×\(rows) \(cell): \(g) spills out of the picture area")
                            if let s = (renderer as? SixelRenderer), let mw = s.maxWidth, let mh = s.maxHeight {
                                #expect(
                                    g.width <= mw && g.height <= mh,
                                    "sixel \(g.width)×\(g.height) over the terminal's limit")
                            }
                            // A frame one pixel off in each direction (another rounding, or decoded before a resize)
                            // is scaled and painted, not dropped. Scaling and encoding are the costly part: a spread
                            // sample of the sizes is painted for real.
                            if (columns * 3 + rows + ci * 7 + ai * 5 + ri) % 97 == 0 {
                                let stale = RGBImage(width: max(1, g.width - 1), height: g.height + 1)
                                #expect(
                                    composer.fitted(stale, to: g).map { $0.width == g.width && $0.height == g.height }
                                        == true)
                                let out = composer.paint(stale, geometry: g, cellPixels: cell)
                                #expect(!out.isEmpty, "\(renderer.kind) \(columns)×\(rows) \(cell): nothing painted")
                                painted += 1
                            }
                        }
                    }
                }
            }
        }
        #expect(checked > 20_000 && painted > 150, "\(checked) sizes checked, \(painted) painted")
    }

    /// The decoding pipeline delivers pictures at exactly the size asked for (it no longer re-fits with rounding
    /// of its own): odd sizes, a rotated file, SAR.
    @Test(.enabled(if: Corpus.samplesAvailable, "needs samples/"), arguments: ["rotated90.mp4", "h264_gop2s.mp4"])
    func framesComeAtExactlyTheRequestedSize(file: String) throws {
        let source = try VideoSource(path: Corpus.sample(file), pixelLimit: MediaInspector.defaultPixelLimit)
        let x = try FrameExtractor(source: source, plan: DecodePlan())
        let found = try x.frame(at: MediaTime(value: 1, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero)
        for size in [(896, 504), (900, 504), (621, 349), (140, 80), (139, 79), (283, 503)] {
            let (img, _) = try FramePicture.render(
                found.frame, facts: source.stream, scaler: Scaler(), maximumSize: .box(width: size.0, height: size.1),
                allowsUpscaling: true, appliesTransform: true, exactSize: size, path: file)
            #expect(
                img.width == size.0 && img.height == size.1, "\(file): asked \(size), got \(img.width)×\(img.height)")
        }
    }

    /// blocks256: saturated colours map to the colour cube, not grey (a shadowed parameter once hid blue).
    @Test func xterm256Palette() {
        #expect(HalfBlockRenderer.xterm256(0, 210, 0) == 40)
        #expect(HalfBlockRenderer.xterm256(255, 0, 0) == 196)
        #expect(HalfBlockRenderer.xterm256(0, 0, 255) == 21)
        #expect(HalfBlockRenderer.xterm256(255, 255, 0) == 226)
        #expect(HalfBlockRenderer.xterm256(0, 0, 0) == 16)
        #expect(HalfBlockRenderer.xterm256(255, 255, 255) == 231)
        #expect(HalfBlockRenderer.xterm256(128, 128, 128) == 244)
        #expect(HalfBlockRenderer.xterm256(95, 135, 175) == 67)
    }

    @Test func sixelStaysUnderTheTerminalsLimit() {
        let limited = SixelRenderer(maxWidth: 1000, maxHeight: 1000)
        let s = limited.pixelSize(columns: 160, rows: 46, cellPixels: (9, 18), aspect: 16.0 / 9)
        #expect(s.width <= 1000 && s.height <= 1000 && s.height % 6 == 0 && s.width > 900, "\(s)")
        #expect(GraphicsDetection.sixelLimit(["\u{1B}[?2;0;1920;1080S"]).map { $0 == (1920, 1080) } == true)
        #expect(
            GraphicsDetection.sixelLimit(["\u{1B}P>|XTerm(379)\u{1B}\\"]).map { $0 == (1000, 1000) } == true,
            "xterm's default")
        #expect(GraphicsDetection.sixelLimit(["\u{1B}[?62;4c"]) == nil)
    }

    /// The terminal's answers: kitty's own graphics reply, XTSMGRAPHICS through the detection path.
    @Test func detectionReadsKittyAndSixelGeometryReplies() {
        #expect(GraphicsDetection.fromReplies(["\u{1B}_Gi=31;OK\u{1B}\\", "\u{1B}[?62;22c"]) == .kitty)
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let reply = Array("\u{1B}[?2;0;1000;1000S\u{1B}[12;1R\u{1B}[?63;1;4;22c".utf8)
        _ = reply.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        let devnull = open("/dev/null", O_WRONLY)
        defer { close(devnull) }
        let c = GraphicsDetection.choose(env: ["TERM": "xterm"], input: fds[0], output: devnull, budget: 0.5)
        #expect(c.kind == .sixel && c.sixelMaxWidth == 1000 && c.sixelMaxHeight == 1000)
        #expect(
            GraphicsDetection.choose(
                env: ["SCRUBKIT_GRAPHICS": "kitty", "TERM": "xterm"], input: fds[0], output: devnull, budget: 0.05
            ).kind == .kitty,
            "the environment override wins")
    }

    @Test func forcedModesTheTerminalCannotShowAreRefused() {
        #expect(GraphicsDetection.refusal(forcing: .kitty, env: ["TMUX": "/tmp/x,1,0", "TERM": "tmux-256color"]) != nil)
        #expect(GraphicsDetection.refusal(forcing: .sixel, env: ["TERM": "screen"]) != nil)
        #expect(GraphicsDetection.refusal(forcing: .iterm, env: ["KITTY_WINDOW_ID": "1", "TERM": "xterm-kitty"]) != nil)
        #expect(GraphicsDetection.refusal(forcing: .blocks, env: ["TMUX": "/tmp/x,1,0"]) == nil)
        #expect(
            GraphicsDetection.refusal(forcing: .kitty, env: ["KITTY_WINDOW_ID": "1", "TERM": "xterm-kitty"]) == nil)
        #expect(
            GraphicsDetection.choose(env: ["TMUX": "/tmp/x,1,0", "TERM": "tmux-256color"], input: -1, output: -1)
                .reason?.contains("tmux") == true,
            "the status line says why half blocks were chosen")
    }

    /// An introducer that never ends (a reply cut short, Alt+P) waits for its end, but not forever: keys typed
    /// after a runaway one are read again. A reply split across reads is still one reply.
    @Test func anUnterminatedStringDoesNotSwallowKeysForever() {
        var d = KeyDecoder()
        #expect(d.feed(Array("\u{1B}P>|XTe".utf8), final: true).isEmpty, "a reply in pieces waits")
        #expect(
            d.feed(Array("rm(379)\u{1B}\\q".utf8), final: false) == [
                .reply("\u{1B}P>|XTerm(379)\u{1B}\\"), .character("q"),
            ])
        var e = KeyDecoder()
        #expect(e.feed(Array("\u{1B}P".utf8) + [UInt8](repeating: 0x41, count: 5000), final: true).isEmpty)
        #expect(e.feed(Array("q".utf8)) == [.character("q")], "after a runaway string, keys are read again")
        var f = KeyDecoder()
        #expect(f.feed(Array("\u{1B}[".utf8) + [UInt8](repeating: 0x31, count: 100), final: true).isEmpty)
        #expect(f.feed(Array("q".utf8)) == [.character("q")])
    }

    @Test func statusLineNamesTheModeAndWhyWhenItFits() {
        let line = StatusLine(
            playing: true, current: .zero, duration: MediaTime(value: 10, timescale: 1), rate: 1, exactSeeks: false,
            graphics: "blocks256 (tmux/screen: images are not passed through)", dropped: 0)
        #expect(line.render(width: 200).contains("blocks256 (tmux/screen: images are not passed through)"))
        let narrow = line.render(width: 70)
        #expect(narrow.contains("blocks256") && !narrow.contains("(tmux"), "\(narrow)")
        #expect(
            SixelRenderer().clear().contains("\u{1B}[999S"),
            "sixel pictures are scrolled off (xterm frees them only then)")
    }

    /// Visible on light backgrounds and drawn with glyphs common fonts have.
    @Test func knobAndStatusGlyphs() {
        let bar = SliderBar(origin: 1, width: 20).render(fraction: 0.5, color: true)
        #expect(bar.contains("\u{1B}[39;1m●") && !bar.contains("255;255;255"))
        for playing in [true, false] {
            let s = StatusLine(
                playing: playing, current: .zero, duration: MediaTime(value: 10, timescale: 1), rate: 1,
                exactSeeks: false,
                graphics: "blocks", dropped: 0
            ).render(width: 200)
            #expect(!s.contains("⏸") && !s.contains("⏯"), "\(s)")
        }
    }
}

/// The hover preview's box: on screen at every pointer position and window size, above the bar (and the loudness
/// strip), a picture of the video's shape in whole cells, a label only where there is no picture.
@Suite struct HoverPreviewBoxTests {
    @Test func theBoxStaysOnScreenAboveTheBar() {
        var checked = 0
        for kind in [GraphicsKind.blocks, .blocks256, .kitty, .sixel, .iterm] {
            for (cols, rows) in [(40, 12), (80, 24), (100, 30), (160, 48), (250, 70)] {
                for strip in [false, true] {
                    let layout = PlayerLayout(columns: cols, rows: rows, hasLoudnessStrip: strip)
                    for aspect in PlayerScreenTests.aspects {
                        for pointer in [layout.bar.origin, cols / 2, layout.bar.origin + layout.bar.width - 1] {
                            let b = HoverPreviewBox(
                                layout: layout, renderer: kind.renderer, cellPixels: (8, 16), aspect: aspect,
                                pointerColumn: pointer)
                            let bottom = (layout.hasLoudnessStrip ? layout.loudnessRow : layout.barRow) - 1
                            #expect(
                                b.column >= 0 && b.column + b.columns <= cols, "\(kind) \(cols)×\(rows) at \(pointer)")
                            #expect(b.pictureRow + b.pictureRows - 1 == bottom, "ends just above the bar or strip")
                            #expect(b.labelRow == b.pictureRow - 1 && b.labelRow >= 0)
                            #expect(b.pointerInside(pointer), "the pointer's column is within the box")
                            guard b.pictureRows > 0 else { continue }
                            let blocks = kind == .blocks || kind == .blocks256
                            let cell = kind.renderer.cellGeometry((8, 16))
                            let (cw, ch) = (cell.width, cell.height)
                            #expect(
                                b.pixelHeight <= b.pictureRows * ch && b.pixelHeight > (b.pictureRows - 1) * ch,
                                "whole rows")
                            #expect(b.pixelWidth <= b.columns * cw)
                            if blocks { #expect(b.pixelHeight % 2 == 0) }
                            // The video's shape, within a pixel of rounding (and the even height of blocks).
                            #expect(
                                abs(Double(b.pixelWidth) / aspect - Double(b.pixelHeight)) <= 2.5,
                                "\(b.pixelWidth)×\(b.pixelHeight) for \(aspect)")
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked > 300)
        // No picture (no video, --graphics none): the label just above the bar.
        let layout = PlayerLayout(columns: 80, rows: 24)
        let label = HoverPreviewBox(
            layout: layout, renderer: nil, cellPixels: (8, 16), aspect: 16.0 / 9, pointerColumn: 40)
        #expect(label.pictureRows == 0 && label.pixelWidth == 0 && label.labelRow == layout.barRow - 1)
    }

    @Test func labelAndEraseCoverTheBox() {
        let b = HoverPreviewBox(
            layout: PlayerLayout(columns: 100, rows: 30), renderer: HalfBlockRenderer(trueColor: true),
            cellPixels: (8, 16), aspect: 16.0 / 9, pointerColumn: 50)
        let label = b.label(MediaTime(value: 4, timescale: 1), color: true)
        #expect(label.hasPrefix("\u{1B}[\(b.labelRow + 1);") && label.contains("\u{1B}[7m 0:04.0 \u{1B}[27m"))
        #expect(b.label(MediaTime(value: 4, timescale: 1), color: false).contains("[ 0:04.0 ]"))
        let erase = b.erase()
        #expect(erase.components(separatedBy: "H\u{1B}[0m").count - 1 == b.pictureRows + 1, "every row of the box")
        #expect(erase.contains(String(repeating: " ", count: b.columns)))
    }

    @Test func kittyKeepsTheOverlayOnItsOwnLayer() {
        let image = RGBImage(width: 4, height: 2, pixels: [UInt8](repeating: 200, count: 24))
        let k = KittyRenderer()
        #expect(k.overlayPersists)
        #expect(k.drawOverlay(image, column: 3, row: 5, cellPixels: (8, 16)).contains("i=2,p=1,z=1"))
        #expect(
            k.draw(image, column: 0, row: 0, cellPixels: (8, 16)).contains(",p=1,z=-1"),
            "the picture under the label text")
        #expect(k.clearOverlay().contains("a=d,d=i,i=2"))
        #expect(
            !HalfBlockRenderer(trueColor: true).overlayPersists
                && HalfBlockRenderer(trueColor: true).clearOverlay().isEmpty)
    }
}

/// The hover preview's refresh logic: what is erased, drawn again and drawn, for renderers that overwrite cells and
/// for kitty's layers.
@Suite struct HoverPreviewStateTests {
    func answer(_ serial: Int) -> HoverThumbnails.Answer {
        let image = RGBImage(width: 32, height: 18, pixels: [UInt8](repeating: 90, count: 32 * 18 * 3))
        let t = MediaTime(value: 4, timescale: 1)
        return HoverThumbnails.Answer(
            requested: t,
            thumbnail: Thumbnail(requestedTime: t, actualTime: t, image: image, orientation: .identity, isExact: false),
            serial: serial)
    }

    @Test(arguments: [false, true]) func aPreviewComesFollowsAndGoes(kitty: Bool) {
        let renderer: FrameRenderer = kitty ? KittyRenderer() : HalfBlockRenderer(trueColor: true)
        let layout = PlayerLayout(columns: 100, rows: 30)
        func box(_ c: Int) -> HoverPreviewBox {
            HoverPreviewBox(layout: layout, renderer: renderer, cellPixels: (8, 16), aspect: 16.0 / 9, pointerColumn: c)
        }
        var h = HoverPreview()
        // Nothing pointed at: nothing to do.
        #expect(h.plan(box: box(0), answer: nil, renderer: renderer) == ("", false))
        #expect(h.draw(painted: true, renderer: renderer, cellPixels: (8, 16), color: true) == ("", ""))
        // The pointer arrives before its picture: the label alone.
        h.pointer = (50, MediaTime(value: 4, timescale: 1))
        #expect(h.plan(box: box(50), answer: nil, renderer: renderer) == ("", false))
        var d = h.draw(painted: false, renderer: renderer, cellPixels: (8, 16), color: true)
        #expect(d.picture.isEmpty && d.label.contains(" 0:04.0 "))
        // The picture comes: drawn with the label.
        _ = h.plan(box: box(50), answer: answer(1), renderer: renderer)
        d = h.draw(painted: false, renderer: renderer, cellPixels: (8, 16), color: true)
        #expect(!d.picture.isEmpty && !d.label.isEmpty)
        // Nothing new, no main picture drawn: nothing to draw.
        _ = h.plan(box: box(50), answer: answer(1), renderer: renderer)
        #expect(h.draw(painted: false, renderer: renderer, cellPixels: (8, 16), color: true) == ("", ""))
        // A main picture drawn over it: cells are drawn again, kitty's layer stays.
        _ = h.plan(box: box(50), answer: answer(1), renderer: renderer)
        d = h.draw(painted: true, renderer: renderer, cellPixels: (8, 16), color: true)
        #expect(d.picture.isEmpty == kitty)
        // The pointer moves far: the old box is erased, the main picture drawn again where cells were overwritten.
        h.pointer = (90, MediaTime(value: 7, timescale: 1))
        let moved = h.plan(box: box(90), answer: answer(1), renderer: renderer)
        #expect(!moved.erase.isEmpty && moved.needsPicture == !kitty)
        #expect(
            h.draw(painted: !kitty, renderer: renderer, cellPixels: (8, 16), color: true).label.contains(" 0:07.0 "))
        // It leaves: erased (kitty's overlay deleted), the picture put back where cells were overwritten.
        h.pointer = nil
        let gone = h.plan(box: box(0), answer: answer(1), renderer: renderer)
        #expect(gone.erase.contains(box(90).erase()) && gone.needsPicture == !kitty)
        #expect(gone.erase.contains("a=d,d=i,i=2") == kitty)
        #expect(h.plan(box: box(0), answer: answer(1), renderer: renderer) == ("", false), "once")
    }
}

/// kitty on the same machine: pictures through files kitty reads and deletes, pixels in the escape codes otherwise.
@Suite struct KittyFileTransferTests {
    @Test func aPictureGoesThroughAFileWithItsPixels() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-kitty-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pixels = (0..<(5 * 3 * 3)).map { UInt8($0 * 5 % 256) }
        let image = RGBImage(width: 5, height: 3, pixels: pixels)
        let k = KittyRenderer(fileDirectory: dir)
        let out = k.draw(image, column: 2, row: 1, cellPixels: (8, 16))
        #expect(out.hasPrefix("\u{1B}[2;3H\u{1B}_Ga=T,f=24,s=5,v=3,i=1,p=1,z=-1,q=2,C=1,t=t;"))
        #expect(out.count < 300, "a path, not the pixels")
        let b64 = try #require(out.split(separator: ";").last.map { String($0.dropLast(2)) })
        let path = try #require(Data(base64Encoded: b64).map { String(decoding: $0, as: UTF8.self) })
        #expect(
            path.hasPrefix(dir + "/tty-graphics-protocol-scrubkit-"),
            "kitty deletes files named so, in a temporary place")
        #expect(FileManager.default.contents(atPath: path).map { [UInt8]($0) } == pixels, "the file holds the raw RGB")
        #expect(!FileManager.default.fileExists(atPath: path + ".part"))
        // Paced by kitty: while that file is unread the next picture is dropped; once kitty took it, it goes.
        #expect(k.draw(image, column: 2, row: 1, cellPixels: (8, 16)) == "", "kitty has not read the last picture")
        #expect(
            !k.drawOverlay(image, column: 2, row: 1, cellPixels: (8, 16)).isEmpty,
            "(the small hover picture always goes)")
        unlink(path)
        #expect(k.draw(image, column: 2, row: 1, cellPixels: (8, 16)).contains(",t=t;"))
        // What kitty did not read is removed at the end; pixels go inline when there is no directory.
        k.removeLeftovers()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(
            KittyRenderer().draw(image, column: 0, row: 0, cellPixels: (8, 16)).contains(",m=0;"),
            "inline without files")
        // A directory that cannot be written: inline, never a broken picture.
        #expect(
            KittyRenderer(fileDirectory: "/nonexistent-dir").draw(image, column: 0, row: 0, cellPixels: (8, 16))
                .contains(",m=0;"))
    }

    @Test func kittysAnswerToTheFileQuery() {
        #expect(GraphicsDetection.kittyReadsFiles(["\u{1B}_Gi=32;OK\u{1B}\\", "\u{1B}[?62;c"]))
        #expect(
            !GraphicsDetection.kittyReadsFiles(["\u{1B}_Gi=32;EBADF:Failed to open file\u{1B}\\", "\u{1B}[?62;c"]),
            "over SSH")
        #expect(!GraphicsDetection.kittyReadsFiles(["\u{1B}[?62;c"]), "no answer")
        #expect(!GraphicsDetection.kittyReadsFiles(["\u{1B}_Gi=31;OK\u{1B}\\"]), "another query's answer")
    }
}

@Suite struct SubtitleRowsTests {
    @Test func linesAreWrappedCentredAndCleanedOfEscapes() {
        let t = SubtitleText(["one two three four", "\u{1B}[2Jfive\u{07}"], width: 9, maxRows: 3)
        #expect(t.rows == ["one two", "three", "four…"], "wrapped at spaces, cut to 3 rows: \(t.rows)")
        #expect(
            SubtitleText(["\u{1B}[31mred\u{9B}1m"], width: 20, maxRows: 2).rows == ["[31mred1m"],
            "no escape character reaches the terminal")
        #expect(SubtitleText(["abcdefghijkl"], width: 5, maxRows: 3).rows == ["abcde", "fghij", "kl"])
        let layout = PlayerLayout(columns: 40, rows: 30, subtitles: true)
        #expect(layout.subtitleRows == 3 && layout.pictureRows == 25 && layout.subtitleRow == 25)
        let drawn = SubtitleText(["hi"], width: 38, maxRows: 3).render(layout: layout, color: false)
        #expect(
            drawn.contains("\u{1B}[28;1H\u{1B}[2K\u{1B}[20G\u{1B}[1mhi"),
            "the bottom row, centred: \(drawn.debugDescription)")
        #expect(PlayerLayout(columns: 40, rows: 24).subtitleRows == 0)
    }
}

/// kitty in the escape codes (over SSH): pictures at half the cells' pixels each way, shown over their cells, under
/// two ids in turn (the new one placed before the old one goes: never a blank place); through files, full size.
@Suite struct KittyTransferTests {
    @Test func inTheEscapeCodesPicturesAreHalvedAndTakeTurns() throws {
        let direct = KittyRenderer(), files = KittyRenderer(fileDirectory: "/nonexistent-scrubkit")
        #expect(direct.cellGeometry((8, 16)) == CellGeometry(width: 4, height: 8, wholeCells: false))
        #expect(files.cellGeometry((8, 16)) == CellGeometry(width: 8, height: 16, wholeCells: false))
        #expect(direct.pixelSize(columns: 160, rows: 45, cellPixels: (8, 16), aspect: 16.0 / 9) == (640, 360))
        #expect(files.pixelSize(columns: 160, rows: 45, cellPixels: (8, 16), aspect: 16.0 / 9) == (1280, 720))
        let image = RGBImage(width: 40, height: 16, pixels: [UInt8](repeating: 90, count: 40 * 16 * 3))
        let first = direct.draw(image, column: 0, row: 0, cellPixels: (8, 16)),
            second = direct.draw(image, column: 0, row: 0, cellPixels: (8, 16))
        let ids = try [first, second].map { try #require($0.firstMatch(of: /a=T,[^;]*,i=(\d),/)).1 }
        #expect(Set(ids) == ["1", "3"], "two ids in turn: \(ids)")
        #expect(
            second.hasSuffix("\u{1B}_Ga=d,d=I,i=\(ids[0]),q=2\u{1B}\\"),
            "the old picture deleted after the new one is placed")
        #expect(first.contains(",c=10,r=2"), "shown over 10×2 cells (40×16 pixels at 4×8 a cell)")
        #expect(direct.clear().contains("i=1,") && direct.clear().contains("i=3,"))
    }
}

/// Sixel: the palette is kept from picture to picture while they look alike, chosen again after a cut.
@Suite struct SixelPaletteTests {
    @Test func thePaletteIsKeptUntilThePictureChanges() {
        func picture(_ r: UInt8, _ g: UInt8, noise: UInt8 = 0) -> RGBImage {
            RGBImage(width: 64, height: 48, pixels: (0..<(64 * 48)).flatMap { i -> [UInt8] in
                let n = UInt8(truncatingIfNeeded: i &* 31) % (noise + 1)
                return [r &+ n, g, UInt8(truncatingIfNeeded: i % 64 * 4)]
            })
        }
        let cache = SixelPaletteCache()
        let a = cache.palette(for: picture(200, 30)), b = cache.palette(for: picture(200, 30, noise: 3))
        #expect(a != nil && a === b, "a picture much like the last: the same palette")
        let c = cache.palette(for: picture(20, 220))
        #expect(c != nil && c !== b, "a cut: a new palette")
        var last = c
        for _ in 0..<SixelPaletteCache.maximumUses { last = cache.palette(for: picture(20, 220)) }
        #expect(last !== c, "chosen again after \(SixelPaletteCache.maximumUses) pictures")
        let six = SixelRenderer().draw(picture(20, 220), column: 0, row: 0, cellPixels: (8, 16))
        #expect(six.hasPrefix("\u{1B}[1;1H\u{1B}P") && six.hasSuffix("\u{1B}\\"), "a sixel picture")
    }
}
