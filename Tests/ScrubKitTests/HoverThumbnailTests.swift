import Foundation
import MediaTime
import ScrubKit
import Testing

/// Hover previews' pictures: keyframes from a second decoder, the newest request winning, kept per GOP.
@Suite(.enabled(if: Corpus.samplesAvailable, "needs samples/"), .timeLimit(.minutes(1)))
struct HoverThumbnailTests {
    func s(_ tenths: Int64) -> MediaTime { MediaTime(value: tenths, timescale: 10) }

    /// Waits until the newest answer is for `time` (nil after 5 s). It looks once more after the deadline: this task
    /// may wake long after its sleep when the suite's synchronous tests hold the concurrency pool (it gave up on
    /// answers that had come meanwhile).
    func answer(_ hover: HoverThumbnails, for time: MediaTime) async -> HoverThumbnails.Answer? {
        let end = Date().addingTimeInterval(5)
        while true {
            if let a = hover.newest, a.requested == time { return a }
            if Date() >= end { return nil }
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
    }

    @Test func keyframeAtOrBeforeKeptForItsWholeStretch() async throws {
        // h264_gop2s.mp4: 8 s, a keyframe every 2 s.
        let hover = HoverThumbnails(path: Corpus.sample("h264_gop2s.mp4"), maximumSize: .box(width: 64, height: 36))
        defer { hover.close() }
        hover.request(s(31))
        let a = try #require(await answer(hover, for: s(31)))
        #expect(a.thumbnail.actualTime == s(20), "the keyframe at or before 3.1 s")
        #expect(a.thumbnail.image.width == 64 && a.thumbnail.image.height == 36)
        #expect(hover.decodedCount == 1)
        // Inside the same GOP, before and after the first request: answered from the kept picture at once.
        hover.request(s(39))
        let b = try #require(hover.newest)
        #expect(
            b.requested == s(39) && b.thumbnail.actualTime == s(20) && b.serial > a.serial, "answered without waiting")
        hover.request(s(21))
        #expect(hover.newest?.requested == s(21))
        #expect(hover.decodedCount == 1, "nothing decoded for times the kept keyframe covers")
        // Another GOP decodes once.
        hover.request(s(65))
        let c = try #require(await answer(hover, for: s(65)))
        #expect(c.thumbnail.actualTime == s(60))
        #expect(hover.decodedCount == 2)
        // The first picture differs from the second (different moments of the clip).
        #expect(a.thumbnail.image.pixels != c.thumbnail.image.pixels)
    }

    @Test func newestRequestWinsAndOldAnswersAreNotShownOverIt() async throws {
        let hover = HoverThumbnails(path: Corpus.sample("h264_gop2s.mp4"), maximumSize: .box(width: 64, height: 36))
        defer { hover.close() }
        // A burst of moves across the bar: the answer shown at the end is the last move's.
        for t in stride(from: Int64(1), through: 79, by: 3) { hover.request(s(t)) }
        let last = try #require(await answer(hover, for: s(79)))
        #expect(last.thumbnail.actualTime == s(60))
        #expect(hover.decodedCount <= 4, "at most one decode per GOP however many moves: \(hover.decodedCount)")
        try? await Task.sleep(nanoseconds: 100_000_000)
        #expect(hover.newest?.requested == s(79), "a picture decoded for an earlier move never replaces the newest")
    }

    @Test func memoryLimitDropsTheLeastRecentlyUsed() async throws {
        // One 64×36 picture is 6912 bytes: a limit of one keeps only the newest.
        let hover = HoverThumbnails(
            path: Corpus.sample("h264_gop2s.mp4"), maximumSize: .box(width: 64, height: 36), memoryLimit: 7000)
        defer { hover.close() }
        hover.request(s(10))
        _ = try #require(await answer(hover, for: s(10)))
        hover.request(s(50))
        _ = try #require(await answer(hover, for: s(50)))
        hover.request(s(11))
        let again = try #require(await answer(hover, for: s(11)))
        #expect(again.thumbnail.actualTime == .zero)
        #expect(hover.decodedCount == 3, "the first picture was dropped and decoded again")
    }

    @Test func stillsAndMissingFilesFailOnceWithTheirReason() async throws {
        for (file, words) in [(Corpus.sample("image.png"), "still"), ("/nonexistent/clip.mp4", "no such file")] {
            let hover = HoverThumbnails(path: file, maximumSize: .box(width: 64, height: 36))
            defer { hover.close() }
            hover.request(s(10))
            let end = Date().addingTimeInterval(5)
            while hover.failure == nil && Date() < end { try? await Task.sleep(nanoseconds: 5_000_000) }
            let failure = try #require(hover.failure)
            #expect("\(failure)".contains(words), "\(failure)")
            #expect(hover.newest == nil)
            hover.request(s(20))
            #expect(!hover.isBusy, "nothing waits after the failure")
        }
    }
}
