import Foundation
import MediaTime
import ScrubKit
import Testing

/// Facts `scrubkit info` must get right on the real-world corpus (issue: foundation).
@Suite(.enabled(if: Corpus.available, "needs ../shared/media"))
struct InspectionTests {
    let inspector = MediaInspector()
    func info(_ p: String) -> MediaInfo { inspector.inspect(path: Corpus.path(p)) }

    @Test func pixel7RotationIs180() {
        let i = info("androidx-media/mp4/pixel7_videoOnly_cleaned.mp4")
        #expect(i.error == nil)
        #expect(i.video?.rotation == 180)
        #expect(i.video?.displayWidth == 1920)
    }

    @Test func portrait4kIsRotated90AndDisplayedUpright() {
        let v = info("androidx-media/mp4/portrait_4k60.mp4").video
        #expect(v?.rotation == 90)
        #expect(v?.displayWidth == 2160 && v?.displayHeight == 3840)
    }

    @Test func rotateAndReflectIsMirrored() {
        #expect(info("androidx-media/mp4/sample_rotate_and_reflect.mp4").video?.mirrored == true)
        #expect(info("androidx-media/mp4/portrait_4k60.mp4").video?.mirrored == false)
    }

    @Test func pyramidSAR() {
        let v = info("androidx-media/mp4/bbb_800x640_768kbps_30fps_avc_pyramid_3b.mp4").video
        #expect(v?.sar.num == 64 && v?.sar.den == 45)
        #expect(v?.displayWidth == 1138 && v?.displayHeight == 640)
    }

    @Test func containerAspectRatioWinsOverTheBitstreams() {
        // 'pasp' says 1:1; the H.263 bitstream says 12:11 (the CIF default), the slow-motion H.264's VUI 27:64.
        let h263 = info("androidx-media/3gp/bbb_176x144_128kbps_15fps_h263.3gp").video
        #expect(h263?.sar.num == 1 && h263?.sar.den == 1 && h263?.displayWidth == 176)
        let sef = info("androidx-media/mp4/sample_sef_slow_motion.mp4").video
        #expect(sef?.sar.num == 1 && sef?.sar.den == 1 && sef?.displayWidth == 320)
    }

    @Test func firstPtsTenSeconds() {
        let i = info("androidx-media/mp4/bbb_800x640_768kbps_30fps_avc_2b_firstpts_10_sec.mp4")
        #expect(abs(i.startTime.seconds - 10) < 0.05)
    }

    @Test func hlgIsTenBitHLG() {
        let v = info("androidx-media/mp4/hlg10-color-test.mp4").video
        #expect(v?.bitDepth == 10)
        #expect(v?.hdr == .hlg)
    }

    @Test func stillsAreStill() {
        for p in [
            "androidx-media/jpeg/london.jpg", "androidx-media/png/first_frame_1920x1080.png",
            "androidx-media/webp/ic_launcher_round.webp",
        ] {
            let i = info(p)
            #expect(i.isStill, "\(p)")
            #expect(i.error == nil, "\(p): \(String(describing: i.error))")
            #expect(i.durationKind == .unknown)
        }
        #expect(!info("sharp-fixtures/animated-loop-3.gif").isStill)
    }

    @Test func exifOrientationOfStillsIsReported() {
        let six = info("exif-orientation/Landscape_6.jpg").video
        #expect(six?.rotation == 90 && six?.mirrored == false)
        #expect(six?.displayWidth == 1800 && six?.displayHeight == 1200)
        let five = info("exif-orientation/Landscape_5.jpg").video
        #expect(five?.rotation == 270 && five?.mirrored == true)
        #expect(info("exif-orientation/Landscape_0.jpg").video?.rotation == 0)
    }

    @Test func mp3WithCoverHasNoVideoAndOnePicture() {
        let i = info("androidx-media/mp3/bear-id3.mp3")
        #expect(i.video == nil)
        #expect(i.attachedPictures == 1)
        #expect(i.audio.count == 1)
        #expect(i.error == nil)
    }

    @Test func picksTheRealVideoStream() {
        let empty = info("androidx-media/mp4/sample_empty_track.mp4")
        #expect(empty.video?.streamIndex == 0)
        #expect(empty.error == nil)
        let topShots = info("androidx-media/mp4/mv_with_2_top_shots.mp4")
        #expect(topShots.video?.streamIndex == 0)
        #expect(topShots.video?.frameCount == 53)
    }

    @Test func vvcIsUnsupported() {
        let i = info("androidx-media/mp4/sample_vvc.mp4")
        #expect(i.error?.kind == .unsupported)
        #expect(i.error?.description.contains("sample_vvc.mp4") == true)
    }

    @Test func fragmentedMP4DurationIsNotTheBogusHeader() {
        let i = info("androidx-media/mp4/sample_fragmented.mp4")
        #expect(i.durationKind == .known)
        #expect(i.duration.seconds < 5 && i.duration.seconds > 0.5)
    }

    @Test func webmDurationComesFromContainer() {
        let i = info("androidx-media/vp9/bear-vp9.webm")
        #expect(i.durationKind == .known)
        #expect(abs(i.duration.seconds - 2.703) < 0.01)
    }

    @Test func keyframeIntervalEstimated() {
        let v = info("androidx-media/mp4/sample_vvc.mp4").video
        #expect(v?.keyframeInterval == 1)
        let trim = info("androidx-media/mp4/trim_optimization_failure.mp4").video
        #expect(trim?.keyframeInterval != nil)
    }

    @Test(arguments: ["smallest/AudioVideoInterleave.avi", "smallest/FlashVideo.flv", "smallest/Mpeg4.mp4",
                      "smallest/jpeg.jpg", "smallest/png-truncated.png", "smallest/webp.webp", "smallest/gif.gif",
                      "header-only/Pentax.avi", "header-only/RIFF.avi", "header-only/M2TS.mts",
                      "androidx-media/mp4/sample_malformed_free_box.mp4", "androidx-media/vp9/invalid-bitstream.webm",
                      "sharp-fixtures/corrupt-header.jpg", "sharp-fixtures/giant-image.jpg",
                      "sharp-fixtures/65536-uint32-limit.png",
                      "header-only/LICENSE-from-README.txt"])
    func badFilesFailWithAMessageNamingTheFile(path: String) {
        let i = info(path)
        #expect(i.error != nil, "\(path) should fail")
        #expect(i.error?.description.hasPrefix(Corpus.path(path) + ": ") == true)
        #expect(i.error?.description.contains("\n") == false)
    }

    @Test func missingFileAndDirectory() {
        #expect(inspector.inspect(path: "/nonexistent/x.mp4").error?.kind == .notFound)
        #expect(inspector.inspect(path: Corpus.media.path).error?.kind == .unreadable)
    }

    @Test func everyCorpusFileGivesAnAnswer() throws {
        // No crash, no hang: every file either inspects cleanly or reports an error naming it.
        let files = try FileManager.default.subpathsOfDirectory(atPath: Corpus.media.path)
            .filter { !$0.hasSuffix(".tsv") && !$0.hasSuffix(".md") }
            .filter {
                var d: ObjCBool = false;
                return FileManager.default.fileExists(atPath: Corpus.path($0), isDirectory: &d) && !d.boolValue
            }
        #expect(files.count > 100)
        for f in files {
            let i = MediaInspector(verifiesDecoding: false).inspect(path: Corpus.path(f))
            if let e = i.error { #expect(e.description.hasPrefix(Corpus.path(f))) }
            else { #expect(i.video != nil || !i.audio.isEmpty, "\(f) has neither video nor audio but no error") }
        }
    }
}

/// Pure policies that need no corpus.
@Suite struct GeometryTests {
    @Test func displaySizeAppliesSARThenRotation() {
        let (w, h) = VideoInfo.displaySize(width: 800, height: 640, sar: (64, 45), rotation: 0)
        #expect(w == 1138 && h == 640)
        let (rw, rh) = VideoInfo.displaySize(width: 3840, height: 2160, sar: (1, 1), rotation: 90)
        #expect(rw == 2160 && rh == 3840)
    }
}

@Suite(.enabled(if: Corpus.available, "needs ../shared/media"))
struct QuirkTests {
    @Test func htcRotationInTheTrackName() {
        let v = MediaInspector().inspect(
            path: Corpus.path("androidx-media/mkv/sample_with_htc_rotation_track_name.mkv")
        ).video
        #expect(v?.rotation == 90)
        #expect(v?.displayWidth == 720 && v?.displayHeight == 1080)
    }
}

/// Files without an index whose timeline starts late (MPEG-TS at 6.4 s with one keyframe): after `scrubkit info` has
/// scanned the packets, going back to the start must find the keyframe again (a timestamp search landed past it).
@Suite(.enabled(if: Corpus.samplesAvailable, "needs samples/"))
struct LateStartTransportStreamTests {
    @Test func infoDecodesTheFirstFrameAfterScanning() {
        let i = MediaInspector().inspect(path: Corpus.sample("ts_late_start.ts"))
        #expect(i.error == nil, "\(String(describing: i.error))")
        #expect(abs(i.startTime.seconds - 6.4) < 0.05, "start \(i.startTime.seconds)")
        #expect(i.video?.width == 320 && i.video?.height == 240)
    }

    @Test func thumbnailsAtTheStartAndMiddleAreExact() throws {
        var g = ThumbnailGenerator(path: Corpus.sample("ts_late_start.ts"))
        g.requestedTimeToleranceBefore = .zero
        g.requestedTimeToleranceAfter = .zero
        let first = try g.image(at: .fraction(numerator: 0, denominator: 1))
        #expect(abs(first.actualTime.seconds - 6.4) < 0.001, "first frame \(first.actualTime.seconds)")
        let middle = try g.image(at: .fraction(numerator: 1, denominator: 2))
        #expect(
            abs(middle.actualTime.seconds - 7.88) < 0.001,
            "50 % → 6.4 + 1.5 s, frame at 7.88: \(middle.actualTime.seconds)")
    }
}
