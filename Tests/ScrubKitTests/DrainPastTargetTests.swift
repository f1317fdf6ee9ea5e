import FFmpegBridge
import Foundation
import MediaTime
import Testing
@testable import ScrubKit

/// An exact request with nothing after it in its GOP stops reading at the first packet past its time and drains the
/// decoder: fewer pictures decoded, the same frame, and a request after it still right.
@Suite(.enabled(if: Corpus.samplesAvailable, "needs samples/"))
struct DrainPastTargetTests {
    let clip = Corpus.sample("h264_gop2s.mp4")   // 24 fps, B-frames (a reorder delay of 2), keyframes every 2 s
    func t(_ v: Int64, _ s: Int32 = 1) -> MediaTime { MediaTime(value: v, timescale: s) }

    func extractor(_ threading: DecoderThreading = .single) throws -> FrameExtractor {
        let source = try VideoSource(path: clip, pixelLimit: MediaInspector.defaultPixelLimit)
        return try FrameExtractor(source: source, plan: DecodePlan(threading: threading))
    }

    func pixels(_ found: FrameExtractor.Found) throws -> [UInt8] {
        try Scaler().rgb(from: found.frame, width: 64, height: 36).pixels
    }

    @Test(arguments: [DecoderThreading.single, .frame(2)])
    func theSameFrameFromFewerPackets(threading: DecoderThreading) throws {
        // (7.9 s: the last picture, after which no packet comes — nothing to save there, but the same answer.)
        for time in [t(11, 2), t(29, 4), t(69, 10), t(2), t(79, 10)] {
            let plain = try extractor(threading)   // (a player's: decodes on from where it stands)
            let a = try plain.frame(at: time, toleranceBefore: .zero, toleranceAfter: .zero)
            let drained = try extractor(threading)
            drained.upcoming = .positiveInfinity
            let b = try drained.frame(at: time, toleranceBefore: .zero, toleranceAfter: .zero)
            #expect(a.time == b.time && a.containsTime == b.containsTime, "\(time)")
            #expect(try pixels(a) == pixels(b), "\(time): the same picture")
            #expect(drained.packetsSent < plain.packetsSent || time == t(79, 10),
                    "\(time): \(drained.packetsSent) packets against \(plain.packetsSent)")
        }
    }

    @Test func aRequestAfterADrainStillLandsRight() throws {
        let x = try extractor()
        x.upcoming = t(15, 2)   // next in another GOP: may drain
        #expect(try x.frame(at: t(11, 2), toleranceBefore: .zero, toleranceAfter: .zero).time == t(11, 2))
        // Asked anyway inside the same GOP, later and earlier: the stream was left past the time, so it seeks.
        x.upcoming = .invalid
        #expect(try x.frame(at: t(23, 4), toleranceBefore: .zero, toleranceAfter: .zero).time == t(23, 4))
        #expect(
            try x.frame(at: t(91, 20), toleranceBefore: .zero, toleranceAfter: .zero).time
                == MediaTime(value: 109, timescale: 24))
        // Then playing on from there frame by frame (a player's next()).
        let next = try #require(try x.next())
        #expect(next.time == MediaTime(value: 110, timescale: 24))
    }

    @Test func notWhenTheNextRequestContinuesInTheSameGOP() throws {
        let x = try extractor()
        x.upcoming = t(23, 4)   // 5.75 s: no keyframe between (4 s, 6 s)
        _ = try x.frame(at: t(11, 2), toleranceBefore: .zero, toleranceAfter: .zero)
        _ = try x.frame(at: t(23, 4), toleranceBefore: .zero, toleranceAfter: .zero)
        #expect(x.seeks == 1, "decoded on without a second seek")
    }
}

/// An exact request leaves out the reference B-pictures nothing it depends on is predicted from (x264's B-pyramid):
/// the same picture as decoding every one, for every frame of two GOPs.
@Suite(.enabled(if: Corpus.samplesAvailable, "needs samples/"))
struct ReferenceSkippingTests {
    let clip = Corpus.sample("h264_gop2s.mp4")   // x264 veryfast: B-pyramids, P pictures name their references

    @Test(arguments: [DecoderThreading.single, .frame(2)])
    func everyFrameOfTwoGOPsIsTheSamePicture(threading: DecoderThreading) throws {
        let source = try VideoSource(path: clip, pixelLimit: MediaInspector.defaultPixelLimit)
        // Every picture from 1 s to 5 s decoded in order: the reference.
        let plain = try FrameExtractor(source: source, plan: DecodePlan())
        var expected: [(MediaTime, [UInt8])] = []
        var f = try plain.frame(at: MediaTime(value: 1, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero)
        while f.time < MediaTime(value: 5, timescale: 1) {
            expected.append((f.time, try Scaler().rgb(from: f.frame, width: 64, height: 36).pixels))
            guard let next = try plain.next() else { break }
            f = next
        }
        #expect(expected.count == 96)
        var skipped = 0
        for (time, pixels) in expected {
            let x = try FrameExtractor(source: source, plan: DecodePlan(threading: threading))
            x.upcoming = .positiveInfinity
            let found = try x.frame(at: time, toleranceBefore: .zero, toleranceAfter: .zero)
            #expect(found.time == time)
            #expect(try Scaler().rgb(from: found.frame, width: 64, height: 36).pixels == pixels, "\(time.seconds) s")
            skipped += x.reader.referencesSkipped
        }
        #expect(skipped > 30, "reference pictures left out: \(skipped)")
    }
}
