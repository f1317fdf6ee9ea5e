import FFmpegBridge
import Foundation
import MediaTime
@testable import ScrubKit
import Synchronization
import Testing

/// Contact sheets replace blank tiles (a fade from black) by a nearby frame that shows something.
@Suite struct BlankFrameTests {
    func picture(_ fill: (Int, Int) -> (UInt8, UInt8, UInt8), width: Int = 160, height: Int = 96) -> RGBImage {
        var img = RGBImage(width: width, height: height)
        for y in 0..<height { for x in 0..<width {
            let (r, g, b) = fill(x, y), i = (y * width + x) * 3
            img.pixels[i] = r; img.pixels[i + 1] = g; img.pixels[i + 2] = b
        } }
        return img
    }

    @Test func flatPicturesAreBlankAndPicturesAreNot() {
        #expect(BlankFrames.isBlank(picture { _, _ in (0, 0, 0) }))
        #expect(BlankFrames.isBlank(picture { _, _ in (128, 128, 128) }))
        #expect(BlankFrames.isBlank(picture { x, _ in (UInt8(x % 3), 0, 0) }), "codec noise on black is still black")
        #expect(!BlankFrames.isBlank(picture { x, y in (UInt8(x), UInt8(y * 2), 90) }))
    }

    func records(_ path: String, skipping: Bool) throws -> [BatchRecord] {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("blank-out-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        var options = BatchOptions(outputDirectory: out)
        options.sheet = (columns: 3, rows: 1)
        options.skipsBlankFrames = skipping
        options.jobs = 1
        let runner = try BatchRunner(options: options)
        let found = Mutex<[BatchRecord]>([])
        runner.run(
            sources: [path], allSources: [path], onStart: { _ in },
            onFinish: { r in found.withLock { $0 += r.records } })
        return found.withLock { $0 }
    }

    @Test func aSheetSkipsTheFadeIn() throws {
        // 4 s at 10 fps: black for the first 1.5 s, then a moving pattern.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fade-\(getpid()).mp4").path
        defer { unlink(path) }
        let writer = try VideoWriter(path: path, width: 160, height: 96, fps: 10, gop: 10)
        for i in 0..<40 {
            try writer.append(
                (i < 15
                    ? picture { _, _ in (0, 0, 0) } : picture { x, y in (UInt8((x + i * 4) % 256), UInt8(y * 2), 90) })
                    .packed)
        }
        try writer.finish()
        let kept = try records(path, skipping: false)
        #expect(kept.count == 3)
        #expect(
            kept.contains { $0.actualTime < 1.5 },
            "a tile falls in the fade: \(kept.map { ($0.requestedTime, $0.actualTime) })")
        let skipped = try records(path, skipping: true)
        #expect(skipped.count == 3)
        #expect(
            skipped.allSatisfy { $0.actualTime >= 1.5 },
            """
            no tile in the fade: \(skipped.map { ($0.requestedTime, $0.actualTime) }) \
            (kept: \(kept.map { ($0.requestedTime, $0.actualTime) }))
            """
        )
        #expect(zip(skipped, skipped.dropFirst()).allSatisfy { $0.actualTime < $1.actualTime }, "still in time order")
    }
}
