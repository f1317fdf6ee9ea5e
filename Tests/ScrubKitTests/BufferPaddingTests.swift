import FFmpegBridge
@testable import ScrubKit
import Foundation
import Glibc
import Testing

/// Buffers handed to swscale need not be padded: its SIMD readers load past a row's end, which must stay inside our
/// memory. Pixels are placed so they end exactly at an inaccessible guard page: any over-read is a SIGSEGV.
@Suite struct BufferPaddingTests {
    /// Runs `body` with `count` bytes (filled with a pattern) that end exactly where a PROT_NONE page begins.
    func withGuardedBytes<R>(_ count: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let dataPages = (count + page - 1) / page
        let total = (dataPages + 1) * page
        guard let base = mmap(nil, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            base != MAP_FAILED
        else {
            throw POSIXError(.ENOMEM)
        }
        defer { munmap(base, total) }
        let guardPage = base + dataPages * page
        #expect(mprotect(guardPage, page, PROT_NONE) == 0)
        let start = (guardPage - count).assumingMemoryBound(to: UInt8.self)
        for i in 0..<count { start[i] = UInt8(truncatingIfNeeded: i &* 7 &+ i >> 9) }
        return try body(UnsafeBufferPointer(start: start, count: count))
    }

    /// The sizes that crashed (1796×2395 grey JPEG decoded to RGB), odd widths, and tiny pictures whose whole
    /// buffer is smaller than swscale's over-read.
    @Test(arguments: [(1796, 2395, 240, 320), (1796, 2395, 320, 427), (1001, 667, 320, 213), (3, 5, 2, 3), (1, 1, 1, 1),
                      (33, 17, 64, 33), (449, 599, 449, 600)])
    func resizeNeverReadsPastTheEnd(w: Int, h: Int, ow: Int, oh: Int) throws {
        let out = try withGuardedBytes(w * h * 3) { src in
            try Scaler.resizeRGB(src, width: w, height: h, toWidth: ow, height: oh)
        }
        #expect(out.count == ow * oh * 3)
    }

    /// Scaling in slices (the tail from a padded copy) gives the same pixels as one pass over a padded buffer.
    @Test func slicedResizeMatchesOnePass() throws {
        let (w, h) = (640, 480)
        var picture = RGBImage(width: w, height: h)
        for i in picture.pixels.indices {
            picture.pixels[i] = UInt8(truncatingIfNeeded: (i % (w * 3)) / 3 ^ (i / (w * 3)))
        }
        let guarded = try withGuardedBytes(w * h * 3) { src -> [UInt8] in
            let p = UnsafeMutablePointer(mutating: src.baseAddress!)
            picture.pixels.withUnsafeBufferPointer { p.update(from: $0.baseAddress!, count: $0.count) }
            return try Scaler.resizeRGB(src, width: w, height: h, toWidth: 160, height: 120)
        }
        // Reference: the average of each 4×4 block, which SWS_AREA computes for an exact 1/4 shrink.
        var worst = 0
        for y in 0..<120 { for x in 0..<160 { for c in 0..<3 {
            var sum = 0
            for dy in 0..<4 { for dx in 0..<4 { sum += Int(picture.pixels[((y * 4 + dy) * w + x * 4 + dx) * 3 + c]) } }
            worst = max(worst, abs(Int(guarded[(y * 160 + x) * 3 + c]) - (sum + 8) / 16))
        } } }
        #expect(worst <= 2, "largest difference from the 4×4 box average: \(worst)")
    }
}
