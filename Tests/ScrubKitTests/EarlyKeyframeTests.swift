import FFmpegBridge
import Foundation
import MediaTime
import Testing
@testable import ScrubKit

/// A single fastest-mode picture of an MP4 is looked for on another core while the file is probed: the same picture
/// as without, taken only where the probed file proves it answers.
@Suite(.enabled(if: Corpus.samplesAvailable, "needs samples/"))
struct EarlyKeyframeTests {
    let clip = Corpus.sample("h264_gop2s.mp4")   // 8 s, keyframes at 0, 2, 4 and 6 s
    let inf = MediaTime.positiveInfinity
    func t(_ v: Int64, _ s: Int32 = 1) -> MediaTime { MediaTime(value: v, timescale: s) }

    func request(_ time: TimeExpression, path: String? = nil, cores: Int = 2) -> EarlyKeyframe.Request {
        EarlyKeyframe.Request(path: path ?? clip, time: time, toleranceAfter: inf, pixelLimit: MediaInspector.defaultPixelLimit,
                              maximumSize: .longestSide(320), skipsLoopFilter: true, cores: cores)
    }

    @Test func findsTheKeyframeFromTheHeaderAlone() throws {
        let early = try #require(EarlyKeyframe.start(request(.absolute(t(5))), head: MediaOpener.head(clip)))
        let found = try #require(early.wait())
        #expect(found.time == t(4))
        #expect(found.validThrough >= t(5) && found.validThrough < t(6), "proven through \(found.validThrough)")
        #expect(found.frame.hasPicture)
        #expect(early.wait()?.time == t(4), "a second wait returns the same")
        // 50 % of the length the header gives: 4 s.
        #expect(EarlyKeyframe.start(request(.fraction(numerator: 1, denominator: 2)), head: MediaOpener.head(clip))?.wait()?.time == t(4))
    }

    @Test func anAdoptedKeyframeAnswersOnlyWhereProven() throws {
        let found = try #require(EarlyKeyframe.start(request(.absolute(t(5))), head: MediaOpener.head(clip))?.wait())
        let source = try VideoSource(path: clip, pixelLimit: MediaInspector.defaultPixelLimit)
        let x = try FrameExtractor(source: source, threading: .single, lowres: 0, pixelLimit: MediaInspector.defaultPixelLimit)
        x.adopt(keyframe: found.frame, at: found.time, validThrough: found.validThrough)
        let inside = try x.frame(at: t(9, 2), toleranceBefore: inf, toleranceAfter: inf)
        #expect(inside.time == t(4) && inside.reused && x.framesDecoded == 0, "\(inside.time), \(x.framesDecoded) decoded")
        // Before the keyframe, and past the next one: decoded as usual.
        #expect(try x.frame(at: t(3), toleranceBefore: inf, toleranceAfter: inf).time == t(2))
        #expect(try x.frame(at: t(13, 2), toleranceBefore: inf, toleranceAfter: inf).time == t(6))
        #expect(x.framesDecoded == 2)
    }

    @Test func theThumbnailIsTheSameWithAndWithoutIt() throws {
        // (A copy of its own: opens are counted per path, and other tests open the sample meanwhile.)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrub-early-\(UUID().uuidString)").path
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
        var g = ThumbnailGenerator(path: copy)
        g.requestedTimeToleranceBefore = inf
        g.requestedTimeToleranceAfter = inf
        for at in [TimeExpression.fraction(numerator: 1, denominator: 2), .absolute(t(15, 2)), .absolute(.zero)] {
            var early: Thumbnail?, own: Thumbnail?
            #expect(try opens { early = try g.image(at: at) } == 2, "the header-only open beside the probed one")
            var plain = g
            plain.allowsParallelDecoding = false
            #expect(try opens { own = try plain.image(at: at) } == 1)
            guard let early, let own else { continue }
            #expect(early.actualTime == own.actualTime, "\(at)")
            #expect(early.image == own.image, "\(at): the same pixels")
        }
    }

    @Test func onlyLocalMP4AndMOVFilesOnTwoCores() throws {
        let ts = Corpus.sample("ts_late_start.ts")
        #expect(EarlyKeyframe.start(request(.absolute(t(1)), path: ts), head: MediaOpener.head(ts)) == nil)
        #expect(EarlyKeyframe.start(request(.absolute(t(1)), path: "http://127.0.0.1:9/clip.mp4"), head: nil) == nil)
        #expect(EarlyKeyframe.start(request(.absolute(t(1)), cores: 1), head: MediaOpener.head(clip)) == nil)
        #expect(EarlyKeyframe.looksLikeMP4(Array("\0\0\0\u{18}ftypisom".utf8)))
        #expect(EarlyKeyframe.looksLikeMP4(Array("\0\0\0\u{8}wide\0\0".utf8)))
        #expect(!EarlyKeyframe.looksLikeMP4([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81]))   // Matroska
        #expect(!EarlyKeyframe.looksLikeMP4(Array("ftyp".utf8)))
        let png = Corpus.sample("image.png")
        #expect(EarlyKeyframe.start(request(.absolute(t(1)), path: png), head: MediaOpener.head(png)) == nil)
    }
}
