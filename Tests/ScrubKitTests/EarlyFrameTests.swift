import FFmpegBridge
import Foundation
import MediaTime
import Testing
@testable import ScrubKit

/// A single picture of an MP4 is looked for on another core while the file is probed: the same picture as without,
/// taken only where the probed file agrees.
@Suite(.enabled(if: Corpus.samplesAvailable, "needs samples/"))
struct EarlyFrameTests {
    let clip = Corpus.sample("h264_gop2s.mp4")   // 8 s at 24 fps, keyframes at 0, 2, 4 and 6 s
    let inf = MediaTime.positiveInfinity
    func t(_ v: Int64, _ s: Int32 = 1) -> MediaTime { MediaTime(value: v, timescale: s) }

    /// Starts looking for the fastest-mode (or exact) picture at `time` of `path` (the clip).
    func start(_ time: TimeExpression, path: String? = nil, exact: Bool = false, cores: Int = 2) -> EarlyFrame? {
        var g = ThumbnailGenerator(path: path ?? clip)
        g.requestedTimeToleranceBefore = exact ? .zero : inf
        g.requestedTimeToleranceAfter = exact ? .zero : inf
        return EarlyFrame.start(g, at: time, cores: cores, head: MediaOpener.head(path ?? clip))
    }

    /// The probed file's video stream: its index and time base.
    func probed() throws -> (Int, (num: Int32, den: Int32)) {
        let source = try VideoSource(path: clip, pixelLimit: MediaInspector.defaultPixelLimit)
        return (source.stream.index, source.stream.timeBase)
    }

    @Test func findsTheKeyframeFromTheHeaderAlone() throws {
        let (index, timeBase) = try probed()
        let early = try #require(start(.absolute(t(5))))
        let found = try #require(early.answer(for: t(5), streamIndex: index, timeBase: timeBase, keyframesOnly: true))
        #expect(found.time == t(4) && found.target == t(5))
        #expect(
            found.keyframeValidThrough >= t(5) && found.keyframeValidThrough < t(6),
            "proven through \(found.keyframeValidThrough)")
        #expect(found.frame.hasPicture)
        // Another stream or time base: not taken.
        #expect(early.answer(for: t(5), streamIndex: index + 1, timeBase: timeBase, keyframesOnly: true) == nil)
        // 50 % of the length the header gives: 4 s, whose keyframe also answers 4.5 s (fastest mode).
        let half = start(.fraction(numerator: 1, denominator: 2))
        #expect(half?.answer(for: t(9, 2), streamIndex: index, timeBase: timeBase, keyframesOnly: true)?.time == t(4))
    }

    @Test func anExactFrameIsTakenOnlyForTheSameTime() throws {
        let (index, timeBase) = try probed()
        let early = try #require(start(.absolute(t(11, 2)), exact: true))
        let found = try #require(
            early.answer(for: t(11, 2), streamIndex: index, timeBase: timeBase, keyframesOnly: false))
        #expect(found.time == t(11, 2) && found.containsTime && !found.keyframeValidThrough.isValid)
        // The probe placed the request elsewhere: not taken (and the other core stopped).
        let elsewhere = try #require(start(.absolute(t(11, 2)), exact: true))
        #expect(elsewhere.answer(for: t(5), streamIndex: index, timeBase: timeBase, keyframesOnly: false) == nil)
    }

    @Test func anAdoptedKeyframeAnswersOnlyWhereProven() throws {
        let (index, timeBase) = try probed()
        let found = try #require(start(.absolute(t(5)))?
            .answer(for: t(5), streamIndex: index, timeBase: timeBase, keyframesOnly: true))
        let source = try VideoSource(path: clip, pixelLimit: MediaInspector.defaultPixelLimit)
        let x = try FrameExtractor(source: source, plan: DecodePlan())
        x.adopt(keyframe: found.frame, at: found.time, validThrough: found.keyframeValidThrough)
        let inside = try x.frame(at: t(9, 2), toleranceBefore: inf, toleranceAfter: inf)
        #expect(
            inside.time == t(4) && inside.reused && x.framesDecoded == 0, "\(inside.time), \(x.framesDecoded) decoded")
        // Before the keyframe, and past the next one: decoded as usual.
        #expect(try x.frame(at: t(3), toleranceBefore: inf, toleranceAfter: inf).time == t(2))
        #expect(try x.frame(at: t(13, 2), toleranceBefore: inf, toleranceAfter: inf).time == t(6))
        #expect(x.framesDecoded == 2)
    }

    @Test func theThumbnailIsTheSameWithAndWithoutIt() throws {
        // (A copy of its own: opens are counted per path, and other tests open the sample meanwhile.)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-early-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let copy = dir + "/clip.mp4"
        try FileManager.default.copyItem(atPath: clip, toPath: copy)
        func opens(_ body: () throws -> Void) rethrows -> Int {
            MediaOpener.openCounts.withLock { if $0 == nil { $0 = [:] } }
            let before = MediaOpener.openCounts.withLock { $0?[copy] ?? 0 }
            try body()
            return MediaOpener.openCounts.withLock { $0?[copy] ?? 0 } - before
        }
        // The fastest mode, the default 1 s window (a keyframe inside it, and one outside: decoded on), and exact.
        var fastest = ThumbnailGenerator(path: copy)
        fastest.requestedTimeToleranceBefore = inf
        fastest.requestedTimeToleranceAfter = inf
        var exact = ThumbnailGenerator(path: copy)
        exact.requestedTimeToleranceBefore = .zero
        let cases: [(ThumbnailGenerator, TimeExpression)] = [
            (fastest, .fraction(numerator: 1, denominator: 2)), (fastest, .absolute(t(15, 2))),
            (fastest, .absolute(.zero)),
            (ThumbnailGenerator(path: copy), .absolute(t(9, 2))), (ThumbnailGenerator(path: copy), .absolute(t(7))),
            (exact, .absolute(t(61, 10))), (exact, .fraction(numerator: 3, denominator: 4)),
        ]
        let both = ProcessInfo.processInfo.activeProcessorCount >= 2 ? 2 : 1   // (one core: no early look)
        for (g, at) in cases {
            var early: Thumbnail?, own: Thumbnail?
            #expect(try opens { early = try g.image(at: at) } == both, "the header-only open beside the probed one")
            var plain = g
            plain.allowsParallelDecoding = false
            #expect(try opens { own = try plain.image(at: at) } == 1)
            guard let early, let own else { continue }
            #expect(early.actualTime == own.actualTime && early.isExact == own.isExact, "\(at)")
            #expect(early.image == own.image, "\(at): the same pixels")
        }
    }

    @Test func onlyLocalMP4AndMOVFilesOnTwoCores() throws {
        let ts = Corpus.sample("ts_late_start.ts")
        #expect(start(.absolute(t(1)), path: ts) == nil)
        #expect(start(.absolute(t(1)), path: "http://127.0.0.1:9/clip.mp4") == nil)
        #expect(start(.absolute(t(1)), cores: 1) == nil)
        #expect(EarlyFrame.looksLikeMP4(Array("\0\0\0\u{18}ftypisom".utf8)))
        #expect(EarlyFrame.looksLikeMP4(Array("\0\0\0\u{8}wide\0\0".utf8)))
        #expect(!EarlyFrame.looksLikeMP4([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81]))   // Matroska
        #expect(!EarlyFrame.looksLikeMP4(Array("ftyp".utf8)))
        let png = Corpus.sample("image.png")
        #expect(start(.absolute(t(1)), path: png) == nil)
    }
}
