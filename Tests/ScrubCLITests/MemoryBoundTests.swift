import Foundation
import Testing

/// Memory bounded by the output, not the source (issue 19): an 8K thumbnail's peak RSS, measured on a child process
/// (`wait4`'s rusage), stays under a bound proportional to one decoded frame — what the decoder itself must hold —
/// plus a fixed allowance for the process and FFmpeg's libraries. Frame threads (each holding frames) or a full-size
/// RGB copy of the frame would break it.
@Suite(.enabled(if: Scrub.corpusAvailable, "needs ../shared/media"),
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs GNU time (Debian: time)"))
struct MemoryBoundTests {
    /// Peak RSS in MiB of `scrubkit ARGS` (exit status must be 0), as GNU time reports it. (Not this process's own
    /// wait4: posix_spawn starts the child sharing this process's memory until exec, and Linux then counts this
    /// test process's — much larger — peak as the child's.)
    func peakRSS(_ args: [String]) throws -> Double {
        let r = try Scrub.execute("/usr/bin/time", ["-f", "peak %M", Scrub.binary] + args)
        #expect(r.status == 0, "scrubkit \(args.joined(separator: " ")): \(r.stderr)")
        let kib = r.stderr.split(separator: "\n").last { $0.hasPrefix("peak ") }.flatMap { Double($0.dropFirst(5)) }
        return try #require(kib) / 1024
    }

    @Test(arguments: [["--at", "0"], []])
    func anEightKThumbnailHoldsAboutOneFrame(timeArgs: [String]) throws {
        let clip = Scrub.media.appendingPathComponent("androidx-media/mp4/8k24fps_300ms.mp4").path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-8k-\(UUID().uuidString).jpg")
            .path
        defer { unlink(out) }
        // The base: the same binary making a thumbnail of a 320×180 clip (process, Swift runtime, FFmpeg's libraries).
        let small = Scrub.packageRoot.appendingPathComponent("samples/h264_gop2s.mp4").path
        let base = try peakRSS(["thumb", small, "-s", "320", "-o", out] + timeArgs)
        let peak = try peakRSS(["thumb", clip, "-s", "320", "-o", out] + timeArgs)
        // One 8K 4:2:0 frame is 7680 × 4320 × 1.5 bytes = 47.5 MiB; HEVC's decoder keeps it with its side tables
        // (~82 MiB above the base here): at most 2 frames above the base — a full-size RGB copy (95 MiB) breaks it.
        let frame = 7680.0 * 4320 * 1.5 / 1_048_576
        #expect(
            peak - base <= 2 * frame,
            "8K peak \(Int(peak)) MiB, base \(Int(base)) MiB: \(Int(peak - base)) MiB above, bound \(Int(2 * frame))")
        #expect(peak - base > 0.5 * frame, "the measure sees the frame at all (\(Int(peak - base)) MiB)")
    }
}
