import FFmpegBridge
import MediaTime
@testable import ScrubKit
import Testing

/// How a thumbnail request is decoded, as a value: which settings give which plan.
struct DecodePlanTests {
    let video: VideoSource
    let still: VideoSource

    init() throws {
        video = try VideoSource(path: Corpus.sample("h264_gop2s.mp4"), pixelLimit: MediaInspector.defaultPixelLimit)
        still = try VideoSource(path: Corpus.sample("image.png"), pixelLimit: MediaInspector.defaultPixelLimit)
    }

    @Test func theGeneratorsSettingsDecideThePlan() throws {
        var g = ThumbnailGenerator(path: video.path)
        g.maximumSize = .longestSide(160)
        g.pixelLimit = 1_000_000
        let width = video.stream.width
        #expect(width >= 4 * 160, "the sample must shrink 4× at 160: \(width)")
        let fast = g.decodePlan(for: video, threading: .frame(2), lowres: 0)
        #expect(fast == DecodePlan(
            threading: .frame(2), lowres: 0, pixelLimit: 1_000_000, skipsLoopFilter: true,
            skipsUnneededReferences: true))
        // --no-fast-decode: every picture decoded as FFmpeg would, deblocked.
        g.allowsFastDecoding = false
        let plain = g.decodePlan(for: video, threading: .single, lowres: 0)
        #expect(!plain.skipsLoopFilter && !plain.skipsUnneededReferences && plain.threading == .single)
        // Full size, or a still: deblocking stays.
        g.allowsFastDecoding = true
        g.maximumSize = .unscaled
        #expect(!g.decodePlan(for: video, threading: .single, lowres: 0).skipsLoopFilter)
        g.maximumSize = .longestSide(16)
        #expect(!g.decodePlan(for: still, threading: .single, lowres: 2).skipsLoopFilter)
        #expect(g.decodePlan(for: still, threading: .single, lowres: 2).lowres == 2)
    }

    @Test func deblockingIsLeftOutFromAQuarterEachWayDown() throws {
        let s = video.stream
        let quarter = MaximumSize.box(width: s.width / 4, height: s.height / 4)
        #expect(DecodePlan.deblockingIsInvisible(stream: s, shrunkTo: quarter))
        let larger = MaximumSize.box(width: s.width / 4 + 8, height: s.height / 4 + 8)
        #expect(!DecodePlan.deblockingIsInvisible(stream: s, shrunkTo: larger))
        #expect(!DecodePlan.deblockingIsInvisible(stream: s, shrunkTo: .unscaled))
    }
}
