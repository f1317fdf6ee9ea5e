import FFmpegBridge
@testable import ScrubKit
import Foundation
import MediaTime
import ScrubTerminal
import Testing

@Suite struct KeyDecoderTests {
    @Test func keysAndArrows() {
        var d = KeyDecoder()
        #expect(d.feed(Array(" q".utf8)) == [.character(" "), .character("q")])
        #expect(d.feed([0x1B, 0x5B, 0x44, 0x1B, 0x5B, 0x43, 0x1B, 0x4F, 0x41]) == [.left, .right, .up])
        #expect(d.feed(Array("\u{1B}[H\u{1B}[F\u{1B}[1~\u{1B}[4~".utf8)) == [.home, .end, .home, .end])
        #expect(d.feed([0x03]) == [.interrupt])
        #expect(d.feed(Array("\u{1B}[1;5D".utf8)) == [.left], "modified arrows still move")
    }

    @Test func loneEscapeVersusSplitSequence() {
        var d = KeyDecoder()
        #expect(d.feed([0x1B], final: false).isEmpty, "wait: it may be the start of a sequence")
        #expect(d.feed([0x5B, 0x44], final: false) == [.left])
        #expect(d.feed([0x1B], final: true) == [.escape])
    }

    @Test func sgrMouse() {
        var d = KeyDecoder()
        #expect(
            d.feed(Array("\u{1B}[<0;10;5M\u{1B}[<32;12;5M\u{1B}[<0;12;5m".utf8)) == [
                .mouse(button: 0, column: 9, row: 4, pressed: true),
                .mouse(button: 32, column: 11, row: 4, pressed: true),
                .mouse(button: 0, column: 11, row: 4, pressed: false),
            ])
    }

    @Test func terminalReplies() {
        var d = KeyDecoder()
        let evs = d.feed(Array("\u{1B}P>|kitty(0.26)\u{1B}\\\u{1B}[12;1R\u{1B}[?62;4;22c".utf8))
        #expect(evs == [.reply("\u{1B}P>|kitty(0.26)\u{1B}\\"), .reply("\u{1B}[12;1R"), .reply("\u{1B}[?62;4;22c")])
        #expect(
            GraphicsDetection.fromReplies(
                evs.compactMap { if case .reply(let r) = $0 { return r } else { return nil } }) == .kitty)
        #expect(GraphicsDetection.fromReplies(["\u{1B}[?62;4;22c"]) == .sixel)
        #expect(GraphicsDetection.fromReplies(["\u{1B}[?62;22c"]) == nil)
    }
}

@Suite struct SliderAndDetectionTests {
    @Test func sliderReachesBothEndsAndRoundTrips() {
        for width in [2, 3, 10, 77, 158] {
            let bar = SliderBar(origin: 1, width: width)
            #expect(bar.column(forFraction: 0) == 1)
            #expect(bar.column(forFraction: 1) == width)
            for c in 1...width {
                let f = bar.fraction(forColumn: c)
                #expect(bar.column(forFraction: f) == c, "column \(c) of \(width)")
            }
            // Any time maps to a column whose own time is within half a column.
            for i in 0...100 {
                let f = Double(i) / 100
                let back = bar.fraction(forColumn: bar.column(forFraction: f))
                #expect(abs(back - f) * Double(width - 1) <= 0.5 + 1e-9)
            }
        }
        let bar = SliderBar(origin: 1, width: 10)
        #expect(bar.fraction(forColumn: -5) == 0 && bar.fraction(forColumn: 99) == 1)
        #expect(bar.column(forFraction: .nan) == 1)
        #expect(bar.render(fraction: 0.5, color: false).count == 10)
        // Chapter ticks: at their columns, in the played part (╋) and the rest (┼); the knob wins its own column.
        let ticked = Array(bar.render(fraction: 0.5, color: false, ticks: [0.2, 0.5, 0.8]))
        let knob = bar.column(forFraction: 0.5) - 1
        #expect(ticked.count == 10)
        #expect(
            ticked[bar.column(forFraction: 0.2) - 1] == "╋" && ticked[bar.column(forFraction: 0.8) - 1] == "┼",
            "\(String(ticked))")
        #expect(ticked[knob] == "●")
        #expect(ticked.filter { $0 == "╋" || $0 == "┼" }.count == 2)
        var line = StatusLine(
            playing: true, current: .zero, duration: MediaTime(value: 10, timescale: 1), rate: 1, exactSeeks: false,
            graphics: "blocks", dropped: 0)
        line.chapter = "2/3 Middle"
        line.sound = "vol 50%"
        #expect(line.render(width: 200).contains("ch 2/3 Middle") && line.render(width: 200).contains("vol 50%"))
    }

    @Test func environmentDetection() {
        #expect(GraphicsDetection.fromEnvironment(["TERM": "xterm-kitty"]) == .kitty)
        #expect(GraphicsDetection.fromEnvironment(["TERM_PROGRAM": "iTerm.app", "TERM": "xterm-256color"]) == .iterm)
        #expect(
            GraphicsDetection.fromEnvironment(["TERM": "xterm-kitty", "TMUX": "/tmp/t,1,0", "COLORTERM": "truecolor"])
                == .blocks)
        #expect(GraphicsDetection.fromEnvironment(["TERM": "screen-256color"]) == .blocks256)
        #expect(GraphicsDetection.fromEnvironment(["TERM": "xterm-256color"]) == nil)
    }

    @Test func statusLineFitsAndShowsTimes() {
        let line = StatusLine(
            playing: true, current: MediaTime(value: 61, timescale: 1), duration: MediaTime(value: 362, timescale: 1),
            rate: 1, exactSeeks: false, graphics: "blocks", dropped: 0)
        let s = line.render(width: 60)
        #expect(s.count <= 60)
        #expect(s.contains("1:01.0 / 6:02.0"))
        #expect(s.contains("▶"))
        #expect(line.render(width: 200).contains("q quit"))
    }

    @Test func halfBlocksDrawTwoPixelsPerCell() {
        let img = RGBImage(width: 2, height: 2, pixels: [255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9])
        let s = HalfBlockRenderer(trueColor: true).draw(img, column: 3, row: 1, cellPixels: (8, 16))
        #expect(s.hasPrefix("\u{1B}[2;4H"))
        #expect(s.contains("\u{1B}[38;2;255;0;0m\u{1B}[48;2;0;0;255m▀"))
        #expect(s.components(separatedBy: "▀").count - 1 == 2)
        let size = HalfBlockRenderer(trueColor: true).pixelSize(
            columns: 160, rows: 46, cellPixels: (8, 16), aspect: 16.0 / 9.0)
        #expect(size.width == 160 && size.height == 90)
        #expect(
            HalfBlockRenderer(trueColor: false).draw(img, column: 0, row: 0, cellPixels: (8, 16)).contains("38;5;196"))
    }
}

@Suite struct GraphicsProtocolTests {
    func gradient(_ w: Int, _ h: Int) -> RGBImage {
        var px: [UInt8] = []
        for y in 0..<h { for x in 0..<w { px += [UInt8(x * 255 / max(1, w - 1)), UInt8(y * 255 / max(1, h - 1)), 90] } }
        return RGBImage(width: w, height: h, pixels: px)
    }

    @Test func kittySendsCompressedRGBInChunksOf4096() throws {
        func payload(_ s: String) -> (head: String, bytes: [UInt8]?, chunks: [String]) {
            // (The data's chunks: not the deletion of the picture before, which carries no payload.)
            let chunks = Array(s.components(separatedBy: "\u{1B}_G").dropFirst()).filter { $0.contains(";") }
            let b64 = chunks.map { String($0.split(separator: ";", maxSplits: 1)[1].dropLast(2)) }.joined()
            return (chunks.first ?? "", Data(base64Encoded: b64).map([UInt8].init), chunks)
        }
        // Noise (zlib cannot shrink it): raw RGB, 9216 bytes → 12288 base64 characters → 3 chunks of 4096.
        var rng = SystemRandomNumberGenerator()
        let noise = RGBImage(
            width: 64, height: 48, pixels: (0..<(64 * 48 * 3)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let raw = payload(KittyRenderer().draw(noise, column: 0, row: 0, cellPixels: (8, 16)))
        #expect(raw.chunks.count == 3 && raw.head.hasPrefix("a=T,f=24,s=64,v=48,i="))
        #expect(raw.chunks.dropLast().allSatisfy { $0.contains("m=1;") } && raw.chunks.last!.hasPrefix("m=0;"))
        #expect(raw.bytes == noise.pixels)
        // A picture with flat areas (most frames): zlib (o=z), a fraction of the bytes, the same pixels inflated.
        var blocks = RGBImage(width: 320, height: 180)
        for i in 0..<(320 * 180) {
            blocks.pixels[i * 3] = UInt8((i % 320) / 40 * 30); blocks.pixels[i * 3 + 2] = UInt8(i / 320 / 45 * 60)
        }
        let z = payload(KittyRenderer().draw(blocks, column: 0, row: 0, cellPixels: (8, 16)))
        #expect(z.head.hasPrefix("a=T,f=24,s=320,v=180,i=") && z.head.contains(",o=z,"), "\(z.head.prefix(60))")
        #expect((z.bytes?.count ?? .max) < blocks.pixels.count / 20, "\(z.bytes?.count ?? -1) bytes")
        #expect(z.bytes.flatMap { Deflate.inflate($0, count: blocks.pixels.count) } == blocks.pixels)
        #expect(KittyRenderer().clear().contains("a=d"))
    }

    @Test func sixelComesFromLibsixel() {
        let s = SixelRenderer().draw(gradient(32, 24), column: 2, row: 1, cellPixels: (8, 16))
        #expect(s.hasPrefix("\u{1B}[2;3H\u{1B}P"))
        #expect(s.contains("q") && s.contains("#"))          // sixel data with palette definitions
        #expect(s.hasSuffix("\u{1B}\\"))
        let size = SixelRenderer().pixelSize(columns: 80, rows: 22, cellPixels: (10, 20), aspect: 16.0 / 9.0)
        #expect(size.height % 6 == 0 && size.width <= 800 && size.height <= 440)
    }

    @Test func itermSendsAPNG() throws {
        let s = ITermRenderer().draw(gradient(16, 16), column: 0, row: 0, cellPixels: (8, 16))
        #expect(s.contains("\u{1B}]1337;File=inline=1;"))
        let b64 = s.split(separator: ":", maxSplits: 1)[1].dropLast()
        #expect(Data(base64Encoded: String(b64))?.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true)
    }
}

@Suite struct DetectionBudgetTests {
    /// A terminal that never answers costs the time budget, never a hang.
    @Test func silentTerminalFallsBackWithinTheBudget() {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let devnull = open("/dev/null", O_WRONLY)
        defer { close(devnull) }
        let start = Date()
        let kind = GraphicsDetection.detect(
            env: ["TERM": "xterm-256color", "COLORTERM": "truecolor"], input: fds[0], output: devnull, budget: 0.2)
        let elapsed = Date().timeIntervalSince(start)
        #expect(kind == .blocks)
        #expect(elapsed < 1.0, "took \(elapsed) s")
        #expect(
            GraphicsDetection.detect(env: ["TERM": "xterm-256color"], input: fds[0], output: devnull, budget: 0.05)
                == .blocks256)
    }

    /// A sixel terminal answering DA1 is recognised.
    @Test func answeringTerminalIsRecognised() {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let reply = Array("\u{1B}[12;1R\u{1B}[?63;1;4;22c".utf8)
        _ = reply.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        let devnull = open("/dev/null", O_WRONLY)
        defer { close(devnull) }
        #expect(GraphicsDetection.detect(env: ["TERM": "xterm"], input: fds[0], output: devnull, budget: 0.5) == .sixel)
    }

    /// xterm 379 (`-ti vt340`) answers all five queries at once: the answers are all read — cut anywhere between two
    /// reads — and the wait ends at DA1, well before the budget (a report had it waiting the whole second).
    @Test func xtermsFiveAnswersAtOnceEndTheWaitAtDA1() {
        let answers = Array(("\u{1B}P>|XTerm(379)\u{1B}\\\u{1B}[?2;0;576;520S\u{1B}[1;1R"
                             + "\u{1B}[?63;1;2;4;6;9;15;16;22;28c").utf8)
        let devnull = open("/dev/null", O_WRONLY)
        defer { close(devnull) }
        for cut in 0...answers.count {
            var fds: [Int32] = [0, 0]
            #expect(pipe(&fds) == 0)
            defer { close(fds[0]); close(fds[1]) }
            _ = answers[..<cut].withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
            let (late, end) = (Array(answers[cut...]), fds[1])
            let writer = Thread { usleep(20_000); _ = late.withUnsafeBytes { write(end, $0.baseAddress, $0.count) } }
            writer.start()
            let began = Date()
            let choice = GraphicsDetection.choose(env: ["TERM": "xterm"], input: fds[0], output: devnull, budget: 1.0)
            let took = Date().timeIntervalSince(began)
            #expect(choice.kind == .sixel && choice.sixelMaxWidth == 576 && choice.sixelMaxHeight == 520,
                    "cut at \(cut)")
            #expect(took < 0.5, "cut at \(cut): waited \(took) s")
        }
    }
}
