import FFmpegBridge
import Foundation
import MediaTime
@testable import ScrubKit
import Testing

/// Which frame each mode returns, for whole lists of times (several in one GOP, equal times, times just before the
/// next keyframe), checked against ffprobe's own list of frames and key frames.
@Suite(
    .enabled(
        if: Corpus.available && Corpus.samplesAvailable && Reference.available,
        "needs ../shared/media, samples/ and ffprobe"))
struct FrameChoiceTests {
    static let files = [
        "samples/h264_gop2s.mp4", "samples/ts_late_start.ts", "samples/vfr.mp4",
        "androidx-media/ts/sample_h265_rps_pred.ts", "androidx-media/ts/sample_h264.ts",
        "androidx-media/ts/bbb_2500ms.ts",
        "androidx-media/flv/sample.flv", "androidx-media/mkv/sample.mkv", "androidx-media/mp4/sample.mp4",
        "androidx-media/mp4/trim_optimization_failure.mp4",
        "androidx-media/mp4/bbb_800x640_768kbps_30fps_avc_pyramid_3b.mp4",
        "androidx-media/vp9/bear-vp9.webm", "androidx-media/mp4/sample_no_bframes.mp4", "androidx-media/avi/sample.avi",
    ]

    static func path(_ name: String) -> String {
        name.hasPrefix("samples/") ? Corpus.sample(String(name.dropFirst(8))) : Corpus.path(name)
    }

    /// Times around every key frame (just after it, inside its GOP, just before the next) and a few seeded random
    /// ones, sorted, some repeated.
    static func times(frames: [Double], keyframes: [Double]) -> [Double] {
        var out: [Double] = []
        for (i, k) in keyframes.enumerated() {
            let next = i + 1 < keyframes.count ? keyframes[i + 1] : (frames.last ?? k)
            out += [k, k + 0.3 * (next - k), k + 0.6 * (next - k), next - 0.01]
        }
        var seed: UInt64 = 0x5eed
        for _ in 0..<8 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let f = Double(seed >> 11) / Double(1 << 53)
            out.append(frames.first! + f * (frames.last! - frames.first!))
        }
        out.append(out[out.count / 2])
        // ffprobe prints times rounded to the microsecond: a time on a frame's printed time may be just before the
        // real one. Half a millisecond after it is unambiguous.
        return out.filter { $0 >= frames.first! }.map { t in frames.contains { abs($0 - t) < 0.0005 } ? t + 0.0005 : t }
            .sorted()
    }

    func generator(_ path: String, _ configure: (inout ThumbnailGenerator) -> Void) -> ThumbnailGenerator {
        var g = ThumbnailGenerator(path: path)
        g.maximumSize = .longestSide(48)
        configure(&g)
        return g
    }

    func run(_ g: ThumbnailGenerator, _ times: [Double]) throws -> [Double] {
        try g.generate(at: times.map { .absolute(MediaTime(seconds: $0, preferredTimescale: 90000)) }).map {
            try $0.result.get().actualTime.seconds
        }
    }

    @Test(arguments: files)
    func everyModeAgreesWithFFprobe(file: String) throws {
        let path = Self.path(file)
        let frames = Reference.frameTimes(path), keyframes = Reference.keyframeTimes(path)
        try #require(!frames.isEmpty && !keyframes.isEmpty, "ffprobe lists frames of \(file)")
        let times = Self.times(frames: frames, keyframes: keyframes)
        let eps = 0.0015
        func atOrBefore(_ list: [Double], _ t: Double) -> Double { list.last { $0 <= t + 1e-6 } ?? list[0] }

        let fast = try run(generator(path) { $0.setFastest() }, times)
        for (t, got) in zip(times, fast) {
            #expect(
                abs(got - atOrBefore(keyframes, t)) < eps,
                "\(file) --fast at \(t): keyframe \(atOrBefore(keyframes, t)) expected, got \(got)")
        }
        let exact = try run(generator(path) { $0.setExact() }, times)
        for (t, got) in zip(times, exact) {
            #expect(
                abs(got - atOrBefore(frames, t)) < eps,
                "\(file) --exact at \(t): frame \(atOrBefore(frames, t)) expected, got \(got)")
        }
        let window = try run(generator(path) { _ in }, times)
        var previous = -Double.infinity
        for (t, got) in zip(times, window) {
            let key = atOrBefore(keyframes, t), frame = atOrBefore(frames, t)
            let allowed = [frame] + (t - key <= 1 + 1e-6 ? [key] : [])
            #expect(
                allowed.contains { abs($0 - got) < eps },
                "\(file) default window at \(t): one of \(allowed) expected, got \(got)")
            #expect(got >= previous - eps, "\(file) default window at \(t): went back from \(previous) to \(got)")
            previous = got
        }
    }

    /// The async sequence gives the same keyframes as the batch call.
    @Test func fastModeThroughTheAsyncSequence() async throws {
        let path = Corpus.sample("h264_gop2s.mp4")
        let times = [3.99, 5.685, 5.9, 6.0]
        var got: [Double] = []
        for try await r in generator(path, { $0.setFastest() }).images(
            at: times.map { .absolute(MediaTime(seconds: $0, preferredTimescale: 1000)) })
        {
            got.append(try r.result.get().actualTime.seconds)
        }
        #expect(got == [2, 4, 4, 6])
    }
}

/// A frame that does not satisfy the request is an error for that time (or, when asked, a flagged approximate
/// result), never a silent success: damaged data in the middle, and a file cut short of its declared duration.
@Suite(.enabled(if: Reference.available, "needs ffmpeg"))
struct DamagedDataTests {
    /// A 12 s 30 fps clip with a keyframe every 2 s: intact, with bytes 35–60 % overwritten, and cut at 40 %.
    static let clips: (intact: String, damaged: String, cut: String) = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-damaged-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let intact = dir.appendingPathComponent("clip.mp4").path
        _ = Reference.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30", "-t", "12", "-c:v", "libx264",
                "-g", "60", "-pix_fmt", "yuv420p", "-movflags", "+faststart", intact,
            ])
        var bytes = [UInt8](FileManager.default.contents(atPath: intact) ?? Data())
        let cutBytes = Data(bytes.prefix(bytes.count * 4 / 10))
        var x: UInt32 = 12345
        for i in (bytes.count * 35 / 100)..<(bytes.count * 60 / 100) {
            x = x &* 1103515245 &+ 12345; bytes[i] = UInt8(truncatingIfNeeded: x >> 16)
        }
        let damaged = dir.appendingPathComponent("damaged.mp4").path, cut = dir.appendingPathComponent("cut.mp4").path
        #expect(FileManager.default.createFile(atPath: damaged, contents: Data(bytes)))
        #expect(FileManager.default.createFile(atPath: cut, contents: cutBytes))
        return (intact, damaged, cut)
    }()

    func results(
        _ path: String, _ times: [Double], configure: (inout ThumbnailGenerator) -> Void
    ) throws -> [Result<Thumbnail, MediaError>] {
        var g = ThumbnailGenerator(path: path)
        g.maximumSize = .longestSide(64)
        configure(&g)
        return try g.generate(at: times.map { .absolute(MediaTime(seconds: $0, preferredTimescale: 1000)) }).map(
            \.result)
    }

    static let times = [1.0, 3.0, 5.5, 6.5, 7.5, 9.0, 11.0]

    @Test(arguments: [true, false])
    func everySuccessSatisfiesItsRequest(exact: Bool) throws {
        for path in [Self.clips.intact, Self.clips.damaged, Self.clips.cut] {
            let frames = Reference.frameTimes(Self.clips.intact)
            for (t, r) in zip(Self.times, try results(path, Self.times) { if exact { $0.setExact() } }) {
                guard case .success(let thumb) = r else { continue }
                let expected = frames.last { $0 <= t + 1e-6 }!
                if exact {
                    #expect(
                        abs(thumb.actualTime.seconds - expected) < 0.001,
                        "\(path) at \(t): got \(thumb.actualTime.seconds)")
                } else {
                    #expect(
                        thumb.actualTime.seconds <= t + 1e-6 && thumb.actualTime.seconds >= t - 1 - 1e-6,
                        "\(path) at \(t): got \(thumb.actualTime.seconds)")
                }
                #expect(!thumb.isApproximate)
            }
        }
        #expect(
            try results(Self.clips.intact, Self.times) { if exact { $0.setExact() } }.allSatisfy {
                (try? $0.get()) != nil
            }, "the intact clip gives every time")
    }

    @Test func aCutFileFailsTheTimesItNoLongerHas() throws {
        let r = try results(Self.clips.cut, Self.times) { $0.setExact() }
        #expect((try? r[0].get()) != nil, "1 s is still in the file")
        for case .failure(let e) in r.suffix(3) {
            #expect(e.description.contains("truncated or damaged") && e.description.hasPrefix(Self.clips.cut), "\(e)")
        }
        #expect(r.suffix(3).allSatisfy { (try? $0.get()) == nil }, "7.5, 9 and 11 s are past where the data stops")
    }

    @Test func damagedTimesFailUnlessApproximateFramesAreAccepted() throws {
        let strict = try results(Self.clips.damaged, Self.times) { $0.setExact() }
        let failed = strict.indices.filter { (try? strict[$0].get()) == nil }
        #expect(!failed.isEmpty, "overwritten data must fail some times")
        let loose = try results(Self.clips.damaged, Self.times) { $0.setExact(); $0.acceptsApproximateFrames = true }
        for i in failed {
            guard case .success(let thumb) = loose[i] else { continue }
            #expect(thumb.isApproximate && !thumb.isExact, "at \(Self.times[i])")
        }
        #expect(failed.contains { (try? loose[$0].get()) != nil }, "an approximate frame is returned when asked for")
    }
}

/// A stream without timestamps or a stated length (raw H.264): frames are counted at the nominal rate, and a plan
/// of N times counts the packets for the length.
@Suite(.enabled(if: Reference.available, "needs ffmpeg"))
struct TimestamplessStreamTests {
    static let raw: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("raw-\(getpid()).h264").path
        _ = Reference.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25", "-t", "6", "-c:v", "libx264",
                "-g", "25", "-f", "h264", path,
            ])
        return path
    }()

    @Test func exactTimesCountFramesAndPlansCountPackets() throws {
        var g = ThumbnailGenerator(path: Self.raw)
        g.setExact()
        g.maximumSize = .longestSide(64)
        let r = try g.generate(at: [1, 3, 5.5].map { .absolute(MediaTime(seconds: $0, preferredTimescale: 1000)) }).map
        { try $0.result.get() }
        #expect(r.map(\.actualTime.seconds) == [1, 3, 5.48], "frame n at n/25 s")
        #expect(r[0].image != r[1].image, "different frames, not the first one again")
        // The picture at 3 s is frame 75, as ffmpeg (which assumes the same rate) renders it.
        let ours = try {
            var h = g; h.maximumSize = .box(width: 64, height: 48);
            return try h.image(at: .absolute(MediaTime(value: 3, timescale: 1))).image.pixels
        }()
        let at75 = Reference.render(Self.raw, at: nil, width: 64, height: 48, extraFilters: "select=eq(n\\,75),")
        let at50 = Reference.render(Self.raw, at: nil, width: 64, height: 48, extraFilters: "select=eq(n\\,50),")
        #expect(Reference.meanDifference(ours, at75) < Reference.meanDifference(ours, at50))
        let (timeline, planned) = try g.generate(planning: { _ in
            [1, 2, 3].map { .fraction(numerator: $0, denominator: 4) }
        })
        #expect(
            abs(timeline.duration.seconds - 6) < 0.05, "length from 150 packets at 25 fps: \(timeline.duration.seconds)"
        )
        #expect(try planned.map { try $0.result.get().actualTime.seconds } == [1.48, 3, 4.48])
    }
}
