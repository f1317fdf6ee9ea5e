import Dispatch
import FFmpegBridge
import Foundation
import MediaTime
@testable import ScrubKit
import Synchronization
import Testing

/// The thumbnail engine against ffprobe's timestamps and ffmpeg's renders on the real-world corpus.
@Suite(.enabled(if: Corpus.available && Reference.available, "needs ../shared/media and ffmpeg/ffprobe"))
struct ThumbnailFidelityTests {
    func generator(_ p: String, exact: Bool = true, size: Int = 160) -> ThumbnailGenerator {
        var g = ThumbnailGenerator(path: Corpus.path(p))
        g.maximumSize = .longestSide(size)
        if exact { g.setExact() }
        return g
    }

    /// At midpoints between frames, exact mode must return the frame whose display interval holds the time —
    /// for VFR, open GOP with edit list, a 10 s start offset, B-pyramid and VP9 10-bit — in one batch per file.
    @Test(arguments: [
        "androidx-media/mp4/sample_android_slow_motion.mp4", "androidx-media/vp9/roadtrip-vp92-10bit.webm",
        "androidx-media/mp4/iibbibb_editlist_videoonly.mp4", "androidx-media/mp4/sample_edit_list.mp4",
        "androidx-media/mp4/bbb_800x640_768kbps_30fps_avc_2b_firstpts_10_sec.mp4",
        "androidx-media/mp4/bbb_800x640_768kbps_30fps_avc_pyramid_3b.mp4",
    ])
    func exactTimesMatchFFprobe(file: String) throws {
        let pts = Reference.frameTimes(Corpus.path(file))
        try #require(pts.count >= 6)
        let step = max(1, pts.count / 12)
        var picks: [Double] = []
        for i in stride(from: 1, to: pts.count - 2, by: step) {
            let mid: Double = pts[i] + (pts[i + 1] - pts[i]) / 2
            picks.append(mid)
        }
        let times = picks.map { TimeExpression.absolute(MediaTime(seconds: $0, preferredTimescale: 1_000_000)) }
        let results = try generator(file).generate(at: times)
        for (t, r) in zip(picks, results) {
            let want = pts.last { $0 <= t + 1e-9 }!
            let got = try r.result.get()
            #expect(
                abs(got.actualTime.seconds - want) < 0.002,
                "\(file) at \(t): want \(want), got \(got.actualTime.seconds)")
            #expect(got.isExact)
        }
    }

    /// Each request alone (fresh seek) gives the same frames as the batch.
    @Test func singleRequestsAgreeWithBatch() throws {
        let file = "androidx-media/mp4/sample_android_slow_motion.mp4"
        let pts = Reference.frameTimes(Corpus.path(file))
        for i in [2, pts.count / 2, pts.count - 2] {
            let t = pts[i] + 0.0005
            let got = try generator(file).image(at: .absolute(MediaTime(seconds: t, preferredTimescale: 1_000_000)))
            #expect(abs(got.actualTime.seconds - pts[i]) < 0.002)
        }
    }

    @Test func pixelsOfExactFrameMatchFFmpeg() throws {
        let file = "androidx-media/mp4/bbb_800x640_768kbps_30fps_avc_pyramid_3b.mp4"
        let pts = Reference.frameTimes(Corpus.path(file))
        let t = pts[pts.count / 2]
        let thumb = try generator(file, size: 320).image(
            at: .absolute(MediaTime(seconds: t, preferredTimescale: 1_000_000)))
        let ref = Reference.render(Corpus.path(file), at: t, width: thumb.image.width, height: thumb.image.height)
        #expect(Reference.meanDifference(thumb.image.pixels, ref) < 6)
        // SAR 64:45 is applied: 800×640 shows as 1138×640.
        #expect(thumb.image.width == 320 && thumb.image.height == 180)
    }

    @Test(arguments: ["androidx-media/mp4/pixel7_videoOnly_cleaned.mp4", "androidx-media/mp4/portrait_4k60.mp4",
                      "androidx-media/mp4/sample_with_color_info.mp4"])
    func rotatedClipsMatchFFmpegAutoRotation(file: String) throws {
        let pts = Reference.frameTimes(Corpus.path(file))
        let t = pts[pts.count / 2]
        let thumb = try generator(file, size: 240).image(
            at: .absolute(MediaTime(seconds: t, preferredTimescale: 1_000_000)))
        let info = MediaInspector(verifiesDecoding: false).inspect(path: Corpus.path(file))
        let portrait = (info.video?.displayHeight ?? 0) > (info.video?.displayWidth ?? 0)
        #expect((thumb.image.height > thumb.image.width) == portrait)
        let ref = Reference.render(Corpus.path(file), at: t, width: thumb.image.width, height: thumb.image.height)
        #expect(Reference.meanDifference(thumb.image.pixels, ref) < 8, "\(file)")
    }

    @Test func noRotateKeepsStoredPixels() throws {
        var g = generator("androidx-media/mp4/portrait_4k60.mp4", exact: false)
        g.appliesPreferredTrackTransform = false
        let t = try g.image(at: .fraction(numerator: 1, denominator: 2))
        #expect(t.image.width > t.image.height)
    }

    @Test(arguments: 2...8)
    func exifOrientationsComeOutLikeOrientation1(n: Int) throws {
        for set in ["Landscape", "Portrait"] {
            let base = try generator("exif-orientation/\(set)_1.jpg", exact: false, size: 120).image(
                at: .absolute(.zero))
            let other = try generator("exif-orientation/\(set)_\(n).jpg", exact: false, size: 120).image(
                at: .absolute(.zero))
            #expect(other.image.width == base.image.width && other.image.height == base.image.height, "\(set)_\(n)")
            #expect(Reference.meanDifference(other.image.pixels, base.image.pixels) < 12, "\(set)_\(n)")
        }
    }

    @Test func fullRangeYuvjMatchesFFmpeg() throws {
        // yuvj420p (full range): swscale's default would treat it as limited and wash out contrast.
        let file = "androidx-media/mp4/trim_optimization_failure.mp4"
        let thumb = try generator(file, size: 200).image(at: .absolute(.zero))
        let ref = Reference.render(Corpus.path(file), at: nil, width: thumb.image.width, height: thumb.image.height)
        #expect(Reference.meanDifference(thumb.image.pixels, ref) < 5)
    }

    @Test func bombsAreRefusedBeforeDecoding() throws {
        for f in ["sharp-fixtures/giant-image.jpg", "sharp-fixtures/65536-uint32-limit.png"] {
            #expect(throws: MediaError.self) { try generator(f, exact: false).image(at: .absolute(.zero)) }
            do { _ = try generator(f, exact: false).image(at: .absolute(.zero)) } catch let e as MediaError {
                #expect(e.kind == .tooLarge, "\(f): \(e)")
                #expect(e.description.contains("pixel limit"))
            }
        }
        // A lower limit refuses an ordinary photo the same way.
        var g = generator("exif-orientation/Landscape_1.jpg", exact: false)
        g.pixelLimit = 1_000_000
        #expect(throws: MediaError.self) { try g.image(at: .absolute(.zero)) }
    }

    @Test(arguments: [
        "androidx-media/mp4/sample_vvc.mp4", "androidx-media/vp9/invalid-bitstream.webm",
        "androidx-media/ogg/bear_vorbis.ogg", "smallest/png-truncated.png", "sharp-fixtures/corrupt-header.jpg",
        "androidx-media/mp4/sample_malformed_free_box.mp4", "header-only/Pentax.avi", "smallest/webp.webp",
    ])
    func badInputsFailWithClearErrors(file: String) {
        do {
            _ = try generator(file, exact: false).image(at: .fraction(numerator: 1, denominator: 2))
            Issue.record("\(file) should fail")
        } catch let e as MediaError {
            #expect(e.description.hasPrefix(Corpus.path(file) + ": "))
            #expect(!e.description.contains("\n"))
        } catch {
            Issue.record("\(file): unexpected \(error)")
        }
    }

    @Test func keyframeModeReturnsTheKeyframeAtOrBefore() throws {
        var g = ThumbnailGenerator(path: Corpus.path("androidx-media/mp4/trim_optimization_failure.mp4"))
        g.setFastest()
        let pts = Reference.frameTimes(Corpus.path("androidx-media/mp4/trim_optimization_failure.mp4"))
        let t = try g.image(at: .absolute(MediaTime(seconds: 3.3, preferredTimescale: 1000)))
        #expect(t.actualTime.seconds <= 3.3)
        #expect(pts.contains { abs($0 - t.actualTime.seconds) < 0.002 })
        #expect(!t.isExact)
    }

    @Test func timesPastTheEndClampToTheLastFrame() throws {
        let file = "androidx-media/mp4/sample.mp4"
        let pts = Reference.frameTimes(Corpus.path(file))
        let t = try generator(file).image(at: .absolute(MediaTime(value: 3600, timescale: 1)))
        #expect(abs(t.actualTime.seconds - pts.last!) < 0.002)
    }

    @Test func asyncSequenceDeliversEveryTimeInOrder() async throws {
        let g = generator("androidx-media/mp4/sample.mp4")
        let times: [TimeExpression] = [
            .fraction(numerator: 3, denominator: 4), .fraction(numerator: 1, denominator: 4),
            .fraction(numerator: 1, denominator: 2),
        ]
        var seen: [Int] = []
        var last = MediaTime.negativeInfinity
        for try await r in g.images(at: times) {
            seen.append(r.index)
            let t = try r.result.get()
            #expect(t.requestedTime >= last)
            last = t.requestedTime
        }
        #expect(seen == [1, 2, 0])
    }

    /// Leaving the loop cancels the decoding task: it ends having handed over a few of the 200 results, not all.
    @Test func cancellingTheSequenceStopsIt() async throws {
        var g = generator("androidx-media/mp4/long_1080p_lowbitrate.mp4")
        let progress = Mutex((delivered: 0, finished: false))
        g.streamProbe = { delivered, finished in progress.withLock { $0 = (delivered, $0.finished || finished) } }
        let times = (0..<200).map { TimeExpression.fraction(numerator: Int32($0), denominator: 200) }
        var count = 0
        for try await _ in g.images(at: times) {
            count += 1
            if count == 3 { break }
        }
        #expect(count == 3)
        // Wait for the task to end (it would take many seconds to decode all 200; a generous bound, not a timing).
        for _ in 0..<600 where !progress.withLock({ $0.finished }) { try await Task.sleep(for: .milliseconds(50)) }
        let end = progress.withLock { $0 }
        #expect(end.finished, "the decoding task ended")
        // Back-pressure: the decoder is never more than `lookahead` results ahead, so it stopped within a frame of
        // that.
        #expect(
            end.delivered <= 3 + ThumbnailResults.lookahead + 1,
            "it stopped soon after the consumer left: \(end.delivered) of 200 decoded")
    }
}

/// Size policy and helpers that need no media.
@Suite struct ThumbnailSizeTests {
    @Test func longestSideRoundsTheShortSideToNearest() {
        #expect(MaximumSize.longestSide(320).fit(width: 1920, height: 1080) == (320, 180))
        #expect(MaximumSize.longestSide(320).fit(width: 1138, height: 640) == (320, 180))  // 179.96 → 180
        #expect(MaximumSize.longestSide(100).fit(width: 1000, height: 333) == (100, 33))   // 33.3 → 33
        #expect(MaximumSize.longestSide(100).fit(width: 1000, height: 335) == (100, 34))   // 33.5 → 34 (half up)
        #expect(MaximumSize.longestSide(320).fit(width: 1080, height: 1920) == (180, 320))
    }

    @Test func noUpscalingUnlessAsked() {
        #expect(MaximumSize.longestSide(320).fit(width: 100, height: 50) == (100, 50))
        #expect(MaximumSize.longestSide(320).fit(width: 100, height: 50, allowsUpscaling: true) == (320, 160))
    }

    @Test func boxAndUnscaled() {
        #expect(MaximumSize.box(width: 200, height: 200).fit(width: 400, height: 100) == (200, 50))
        #expect(MaximumSize.box(width: 0, height: 90).fit(width: 1600, height: 900) == (160, 90))
        #expect(
            MaximumSize.box(width: 100, height: 0).fit(width: 1920, height: 1080) == (100, 56),
            "a width alone (--width 100) once overflowed")
        #expect(MaximumSize.box(width: 300, height: 0).fit(width: 360, height: 640) == (300, 533))
        #expect(MaximumSize.unscaled.fit(width: 7680, height: 4320) == (7680, 4320))
        #expect(MaximumSize.longestSide(10).fit(width: 10000, height: 1) == (10, 1))  // never below 1
    }

    @Test func lowresChoosesLargestFactorThatCovers() {
        // 6000×4000 → 320 px: 1/8 gives 750×500 ≥ 320: factor 3.
        #expect(
            ThumbnailGenerator.lowresFactor(
                width: 6000, height: 4000, display: (6000, 4000), maximumSize: .longestSide(320), maxLowres: 3) == 3)
        // → 1600 px: 1/2 = 3000×2000 covers 1600, 1/4 = 1500 does not.
        #expect(
            ThumbnailGenerator.lowresFactor(
                width: 6000, height: 4000, display: (6000, 4000), maximumSize: .longestSide(1600), maxLowres: 3) == 1)
        #expect(
            ThumbnailGenerator.lowresFactor(
                width: 6000, height: 4000, display: (6000, 4000), maximumSize: .unscaled, maxLowres: 3) == 0)
        #expect(
            ThumbnailGenerator.lowresFactor(
                width: 6000, height: 4000, display: (6000, 4000), maximumSize: .longestSide(320), maxLowres: 0) == 0)
    }

    @Test func atomicWriteLeavesNoTemporaryFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("a.bin").path
        try AtomicFile.write([1, 2, 3], to: target)
        try AtomicFile.write([4, 5], to: target)
        #expect(FileManager.default.contents(atPath: target) == Data([4, 5]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["a.bin"])
        #expect(throws: MediaError.self) { try AtomicFile.write([1], to: "/nonexistent-dir/x.bin") }
    }

    @Test func encodersProduceTheirFormats() throws {
        var px: [UInt8] = []
        for y in 0..<16 { for x in 0..<24 { px += [UInt8(x * 10), UInt8(y * 15), 128] } }
        let img = RGBImage(width: 24, height: 16, pixels: px)
        #expect(try img.encoded(as: .png).starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(try img.encoded(as: .jpeg).starts(with: [0xFF, 0xD8]))
        if ImageFormat.webp.isAvailable {
            #expect(Array(try img.encoded(as: .webp)[8..<12]) == Array("WEBP".utf8))
        }
    }
}

/// The extractor serves a player too: requests can go backwards.
@Suite(.enabled(if: Corpus.samplesAvailable, "needs samples/"))
struct ExtractorOrderTests {
    func extractor() throws -> FrameExtractor {
        let source = try VideoSource(
            path: Corpus.sample("h264_gop2s.mp4"), pixelLimit: MediaInspector.defaultPixelLimit)
        return try FrameExtractor(source: source, plan: DecodePlan())
    }
    let inf = MediaTime.positiveInfinity

    @Test func keyframeSeeksBackwardsLandBackwards() throws {
        let x = try extractor()
        #expect(
            try x.frame(at: MediaTime(value: 13, timescale: 2), toleranceBefore: inf, toleranceAfter: inf).time
                == MediaTime(value: 6, timescale: 1))
        #expect(
            try x.frame(at: MediaTime(value: 1, timescale: 1), toleranceBefore: inf, toleranceAfter: inf).time == .zero)
        let again = try x.frame(at: MediaTime(value: 3, timescale: 2), toleranceBefore: inf, toleranceAfter: inf)
        #expect(again.time == .zero, "got \(again.time)")
        #expect(again.reused, "same keyframe: nothing decoded")
    }

    @Test func exactSeeksBackwardsAndForwardInOneGOP() throws {
        let x = try extractor()
        let t1 = try x.frame(at: MediaTime(value: 5, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero)
        #expect(t1.time == MediaTime(value: 5, timescale: 1))
        let t2 = try x.frame(at: MediaTime(value: 3, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero)
        #expect(t2.time == MediaTime(value: 3, timescale: 1))
        let seeks = x.seeks
        let t3 = try x.frame(at: MediaTime(value: 7, timescale: 2), toleranceBefore: .zero, toleranceAfter: .zero)
        #expect(t3.time == MediaTime(value: 7, timescale: 2))
        #expect(x.seeks == seeks, "3.5 s is in the GOP being decoded: no re-seek")
        let next = try x.next()
        #expect(next?.time == MediaTime(value: 7, timescale: 2) + MediaTime(value: 1, timescale: 24))
    }
}

@Suite(.enabled(if: Corpus.samplesAvailable, "needs samples/"))
struct StillTimeTests {
    @Test func anyTimeOnAStillIsThePicture() throws {
        var g = ThumbnailGenerator(path: Corpus.sample("large_6000x4000.jpg"))
        g.maximumSize = .longestSide(300)
        let t = try g.image(at: .fraction(numerator: 1, denominator: 2))
        #expect(t.image.width == 300 && t.image.height == 200)
        #expect(t.actualTime == .zero)
        let u = try g.image(at: .absolute(MediaTime(value: 42, timescale: 1)))
        #expect(u.image == t.image)
    }
}

@Suite(.enabled(if: Corpus.available && Reference.available, "needs ../shared/media and ffmpeg"))
struct ToneMappingTests {
    /// HDR thumbnails are tone-mapped to SDR: much closer to ffmpeg's zscale+tonemap render than the raw code values.
    @Test(arguments: ["androidx-media/mp4/hlg10-color-test.mp4", "androidx-media/mp4/hdr10-av1.mp4"])
    func hdrIsToneMappedLikeAReferenceRender(file: String) throws {
        var g = ThumbnailGenerator(path: Corpus.path(file))
        g.maximumSize = .longestSide(160)
        g.setFastest()
        let mapped = try g.image(at: .absolute(.zero))
        g.toneMapsHDR = false
        let raw = try g.image(at: .absolute(.zero))
        let (w, h) = (mapped.image.width, mapped.image.height)
        let ref = Reference.render(
            Corpus.path(file), at: mapped.actualTime.seconds, width: w, height: h,
            extraFilters: "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
                + "zscale=t=bt709:m=bt709:r=tv,format=yuv420p,"
        )
        try #require(ref.count == w * h * 3, "this ffmpeg lacks zscale/tonemap")
        let dMapped = Reference.meanDifference(mapped.image.pixels, ref),
            dRaw = Reference.meanDifference(raw.image.pixels, ref)
        #expect(dMapped < dRaw * 0.7, "\(file): mapped \(dMapped) vs raw \(dRaw)")
        #expect(dMapped < 25)
    }

    @Test func sdrIsUntouched() throws {
        var g = ThumbnailGenerator(path: Corpus.path("androidx-media/mp4/sample.mp4"))
        g.setFastest()
        let a = try g.image(at: .absolute(.zero))
        g.toneMapsHDR = false
        let b = try g.image(at: .absolute(.zero))
        #expect(a.image == b.image)
    }
}

@Suite(.enabled(if: Corpus.samplesAvailable, "needs samples/"))
struct GOPDecodeOnceTests {
    /// Four exact times inside one GOP (keyframes every 2 s at 24 fps): one seek, and no frame decoded twice.
    @Test func timesInOneGOPDecodeItOnce() throws {
        let source = try VideoSource(
            path: Corpus.sample("h264_gop2s.mp4"), pixelLimit: MediaInspector.defaultPixelLimit)
        let x = try FrameExtractor(source: source, plan: DecodePlan())
        for t in [
            MediaTime(value: 21, timescale: 10), MediaTime(value: 5, timescale: 2), MediaTime(value: 3, timescale: 1),
            MediaTime(value: 39, timescale: 10),
        ] {
            #expect(try x.frame(at: t, toleranceBefore: .zero, toleranceAfter: .zero).time <= t)
        }
        #expect(x.seeks == 1)
        // Frames from 2.0 s to 3.9 s plus one look-ahead: at most 48; decoding any twice would exceed it.
        #expect(x.framesDecoded <= 48, "\(x.framesDecoded) frames decoded")
        #expect(x.framesDecoded >= 10, "non-reference frames may be skipped, but the references must be decoded")
    }
}

@Suite(.enabled(if: Corpus.available, "needs ../shared/media"))
struct CoverArtTests {
    @Test(arguments: ["androidx-media/mp3/bear-id3.mp3", "androidx-media/flac/bear_with_picture.flac"])
    func audioWithCoverArtGivesTheCover(file: String) throws {
        var g = ThumbnailGenerator(path: Corpus.path(file))
        g.maximumSize = .longestSide(100)
        let t = try g.image(at: .fraction(numerator: 1, denominator: 2))
        #expect(t.image.width > 0 && t.image.height > 0 && max(t.image.width, t.image.height) <= 100)
        #expect(t.actualTime == .zero)
        #expect(Set(t.image.pixels).count > 8, "a real picture, not a flat fill")
    }

    @Test func audioWithoutCoverIsStillAnError() {
        #expect(throws: MediaError.self) {
            try ThumbnailGenerator(path: Corpus.path("androidx-media/ogg/bear_vorbis.ogg")).image(at: .absolute(.zero))
        }
    }
}

@Suite struct PixelBudgetTests {
    @Test func hugeReservationsWaitAndRunAlone() {
        let budget = PixelBudget(capacity: 100)
        let a = budget.reserve(60)
        #expect(budget.inUse == 60)
        let started = DispatchSemaphore(value: 0)
        let t = Thread {
            let b = budget.reserve(1000)          // larger than the budget: capped, waits for everything
            started.signal()
            budget.release(b)
        }
        t.start()
        #expect(started.wait(timeout: .now() + 0.1) == .timedOut, "must wait while 60 are in use")
        budget.release(a)
        #expect(started.wait(timeout: .now() + 2) == .success)
        #expect(budget.reserve(40) == 40)
    }
}

@Suite(.enabled(if: Corpus.samplesAvailable && Reference.available, "needs samples/ and ffmpeg"))
struct BT709ColourTests {
    /// An HD clip tagged BT.709 must be converted with the BT.709 matrix (swscale would default to BT.601:
    /// greens and reds visibly off).
    @Test func bt709ClipMatchesAReferenceWithTheRightMatrix() throws {
        let file = Corpus.sample("h264_gop2s.mp4")
        var g = ThumbnailGenerator(path: file)
        g.maximumSize = .longestSide(192)
        g.setExact()
        let t = try g.image(at: .absolute(MediaTime(value: 1, timescale: 1)))
        let (w, h) = (t.image.width, t.image.height)
        let right = Reference.render(
            file, at: 1, width: w, height: h, scaleOptions: ":in_color_matrix=bt709:in_range=tv")
        let wrong = Reference.render(
            file, at: 1, width: w, height: h, scaleOptions: ":in_color_matrix=bt601:in_range=tv")
        let dRight = Reference.meanDifference(t.image.pixels, right),
            dWrong = Reference.meanDifference(t.image.pixels, wrong)
        #expect(dRight < 4, "vs BT.709 reference: \(dRight)")
        #expect(dRight < dWrong, "closer to BT.709 (\(dRight)) than to BT.601 (\(dWrong))")
    }
}

/// MPEG-TS has no index: a seek is a timestamp search that can land a GOP late. The fastest mode must still return
/// the keyframe at or before the time, and the default window never a picture after it.
@Suite(.enabled(if: Corpus.available && Reference.available, "needs ../shared/media and ffprobe"))
struct UnindexedKeyframeTests {
    let file = Corpus.path("androidx-media/ts/bbb_2500ms.ts")

    @Test func fastestModeReturnsTheKeyframeAtOrBefore() throws {
        let keyframes = Reference.keyframeTimes(file)
        #expect(keyframes.count >= 5)
        let source = try VideoSource(path: file, pixelLimit: MediaInspector.defaultPixelLimit)
        let x = try FrameExtractor(source: source, plan: DecodePlan())
        let inf = MediaTime.positiveInfinity
        for t in stride(from: 2.3, through: 3.9, by: 0.2) {
            let expected = keyframes.last { $0 <= t + 1e-6 }!
            let got = try x.frame(
                at: MediaTime(seconds: t, preferredTimescale: 90000), toleranceBefore: inf, toleranceAfter: inf
            ).time.seconds
            #expect(abs(got - expected) < 0.001, "at \(t) s: keyframe \(expected) expected, got \(got)")
        }
    }

    @Test func defaultWindowNeverReturnsALaterPicture() throws {
        var g = ThumbnailGenerator(path: file)
        g.maximumSize = .longestSide(64)
        for t in stride(from: 2.3, through: 3.9, by: 0.2) {
            let thumb = try g.image(at: .absolute(MediaTime(seconds: t, preferredTimescale: 90000)))
            #expect(thumb.actualTime.seconds <= t + 1e-6 && thumb.actualTime.seconds >= t - 1 - 1e-6,
                    "at \(t) s got \(thumb.actualTime.seconds)")
        }
    }
}

/// Several exact times: two decoders on two halves of the timeline give exactly what one decoder gives, in the same
/// ascending order, and no GOP is split between them.
@Suite(.enabled(if: Corpus.samplesAvailable, "needs samples/"))
struct ParallelDecodingTests {
    let path = Corpus.sample("h264_gop2s.mp4")
    // 0.875 … 7.875 s: every GOP (2 s) holds one or two of them.
    let times = (1...9).map { TimeExpression.absolute(MediaTime(value: Int64($0) * 7, timescale: 8)) }

    func generator(parallel: Bool) -> ThumbnailGenerator {
        var g = ThumbnailGenerator(path: path)
        g.setExact()
        g.maximumSize = .longestSide(160)
        g.allowsParallelDecoding = parallel
        return g
    }

    @Test func twoDecodersGiveTheSameFramesAsOne() throws {
        let parallel = try generator(parallel: true).generate(at: times)
        let single = try generator(parallel: false).generate(at: times)
        #expect(parallel.count == times.count && single.count == times.count)
        for (p, s) in zip(parallel, single) {
            let a = try p.result.get(), b = try s.result.get()
            #expect(a.actualTime == b.actualTime, "index \(p.index)")
            #expect(a.image == b.image, "index \(p.index): same pixels")
        }
    }

    @Test func resultsStreamInAscendingTimeOrder() async throws {
        var last = MediaTime.negativeInfinity, seen = 0
        for try await r in generator(parallel: true).images(at: times.reversed()) {
            let t = try r.result.get()
            #expect(t.requestedTime >= last)
            last = t.requestedTime
            seen += 1
        }
        #expect(seen == times.count)
    }

    @Test func theSplitFallsBetweenGOPs() throws {
        let source = try VideoSource(path: path, pixelLimit: MediaInspector.defaultPixelLimit)
        let requests = try times.enumerated().map {
            ThumbnailGenerator.Request(index: $0, expression: $1, time: try source.resolve($1))
        }
        let halves = try #require(ThumbnailGenerator.split(requests, at: source))
        #expect(!halves.0.isEmpty && !halves.1.isEmpty)
        let gop = { (r: ThumbnailGenerator.Request) in Int(r.time.seconds / 2) }
        #expect(
            gop(halves.0.last!) != gop(halves.1.first!),
            "\(halves.0.last!.time.seconds) | \(halves.1.first!.time.seconds)")
    }
}

/// An open GOP with an edit list (recovery-point I-frames, 1 fps): after a seek onto I(8) FFmpeg drops the B-frame at
/// 10 s (ffmpeg -ss 8 does too); the exact path starts a GOP earlier when frames it sent never come out.
@Suite(.enabled(if: Corpus.available, "needs ../shared/media"))
struct OpenGOPRecoveryTests {
    @Test func framesAfterAnOpenGOPKeyframeNearTheEndAreExact() throws {
        var g = ThumbnailGenerator(path: Corpus.path("androidx-media/mp4/iibbibb_editlist_videoonly.mp4"))
        g.maximumSize = .longestSide(64)
        g.setExact()
        for (asked, want) in [(9.5, 9.0), (10.0, 10.0), (10.5, 10.0), (11.0, 11.0), (12.0, 11.0)] {
            let t = try g.image(at: .absolute(MediaTime(seconds: asked, preferredTimescale: 1000)))
            #expect(abs(t.actualTime.seconds - want) < 1e-3 && t.isExact, "at \(asked): \(t.actualTime.seconds)")
        }
    }
}

/// MPEG-TS has no index and its timestamp seek lands on any packet: the keyframe before a time is found by reading
/// packet headers and sought by byte, so decoding starts on it.
@Suite(.enabled(if: Reference.available, "needs the ffmpeg CLI"))
struct TransportStreamSeekTests {
    /// 40 s at 25 fps, B-frames, a keyframe every 2 s, starting at the usual 1.4 s offset of MPEG-TS.
    static let clip: String? = {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-ts-seek-\(getpid()).ts").path
        _ = Reference.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=40",
                "-c:v", "libx264", "-g", "50", "-keyint_min", "50", "-sc_threshold", "0", "-bf", "2",
                "-pix_fmt", "yuv420p", "-f", "mpegts", out,
            ])
        return FileManager.default.fileExists(atPath: out) ? out : nil
    }()

    @Test func anExactFrameDeepInsideDecodesOnlyFromItsKeyframe() throws {
        let clip = try #require(TransportStreamSeekTests.clip)
        let frames = Reference.frameTimes(clip), keys = Reference.keyframeTimes(clip)
        let source = try VideoSource(path: clip, pixelLimit: MediaInspector.defaultPixelLimit)
        for offset in [0.0, 0.04, 1.2, 1.96] {  // on a keyframe, just after, mid-GOP, the last frame of the GOP
            let x = try FrameExtractor(source: source, plan: DecodePlan())
            let key = try #require(keys.last { $0 <= 25 })
            let t = key + offset
            let found = try x.frame(
                at: MediaTime(seconds: t, preferredTimescale: 90000), toleranceBefore: .zero, toleranceAfter: .zero)
            let want = try #require(frames.last { $0 <= t + 1e-6 })
            #expect(abs(found.time.seconds - want) < 1e-3, "at \(t): \(found.time.seconds), want \(want)")
            // From the keyframe to the time (B-frames may be skipped) plus a look-ahead and reordering delay; landing
            // inside the GOP and backing off would decode a GOP more.
            #expect(x.framesDecoded <= Int(offset * 25) + 4, "at \(t): \(x.framesDecoded) frames decoded")
            #expect(x.seeks == 1)
        }
    }
}
