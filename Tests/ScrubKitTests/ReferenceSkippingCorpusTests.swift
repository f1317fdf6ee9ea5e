import FFmpegBridge
import Foundation
import MediaTime
@testable import ScrubKit
import Testing

/// The H.264 reference-skipping shortcut (``ReferenceSkipPlan``) kept only behind proof: on every H.264 file of the
/// corpus in MP4/MOV (where it is used), exact pictures with it are the very pictures decoded without it, byte for
/// byte, or both fail alike. (`tools/conformance` checks the same on its matrix of generated structures.)
@Suite(.enabled(if: Corpus.available, "needs the shared corpus"))
struct ReferenceSkippingCorpusTests {
    /// The corpus' MP4/MOV files with H.264 (from MANIFEST.tsv).
    static let files: [String] = {
        guard let text = try? String(contentsOfFile: Corpus.path("MANIFEST.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard f.count > 3, f[3].hasPrefix("mov"), f[3].contains("h264") else { return nil }
            return String(f[0])
        }
    }()

    /// The exact picture at `time` as RGB at its own size, its time and how many reference pictures were left out;
    /// nil when it cannot be had.
    static func picture(_ path: String, at time: MediaTime, skipping: Bool) -> (MediaTime, [UInt8], Int)? {
        guard let source = try? VideoSource(path: path, pixelLimit: MediaInspector.defaultPixelLimit),
              let x = try? FrameExtractor(source: source, plan: DecodePlan(skipsUnneededReferences: skipping))
        else { return nil }
        x.upcoming = .positiveInfinity   // (a single request: the drain bound, and with it the plan)
        guard let found = try? x.frame(at: time, toleranceBefore: .zero, toleranceAfter: .zero),
              let rgb = try? Scaler().rgb(from: found.frame, width: found.frame.width, height: found.frame.height)
        else { return nil }
        return (found.time, rgb.pixels, x.reader.referencesSkipped)
    }

    @Test func everyExactPictureIsTheSameWithoutTheShortcut() throws {
        try #require(Self.files.count >= 10, "H.264 MP4/MOV files in the corpus: \(Self.files.count)")
        var compared = 0, skipped = 0
        for file in Self.files {
            let path = Corpus.path(file)
            guard let source = try? VideoSource(path: path, pixelLimit: MediaInspector.defaultPixelLimit) else {
                continue
            }
            let minute = MediaTime(value: 60, timescale: 1)
            let length = source.duration.isNumeric ? MediaTime.minimum(source.duration, minute)
                : MediaTime(value: 1, timescale: 1)
            for share in [3, 6, 9] {
                let time = source.start + length.multiplied(byRatio: Int32(share), divisor: 10)
                let with = Self.picture(path, at: time, skipping: true)
                let without = Self.picture(path, at: time, skipping: false)
                let times = "\(String(describing: with?.0)) against \(String(describing: without?.0))"
                #expect(with?.0 == without?.0, "\(file) at \(time.seconds): \(times)")
                let samePixels = with?.1 == without?.1   // (compared aside: a failure would print both pictures)
                #expect(samePixels, "\(file) at \(time.seconds): other pixels with the shortcut")
                if with != nil { compared += 1 }
                skipped += with?.2 ?? 0
            }
        }
        #expect(compared >= 30, "pictures compared: \(compared)")
        #expect(skipped > 0, "the shortcut was used: \(skipped) reference pictures left out")
    }
}
