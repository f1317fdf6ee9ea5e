import Foundation
import MediaTime

/// `scrubkit bench --cache FILE`: what the thumbnail cache saves inside one process — a decoded thumbnail vs a
/// memory-tier hit vs a disk-tier hit — and whether disk lookups stay flat as the cache grows to 10,000 entries.
public enum CacheBenchmark {
    /// One measured figure.
    public struct Figure: Sendable {
        /// What was measured.
        public var name: String
        /// Median seconds per operation.
        public var seconds: Double
        /// How many operations the median is over.
        public var operations: Int
    }

    /// Runs every measurement on `path` (a thumbnail at 50 %, `maximumSize`), with scratch caches in `scratch`.
    public static func run(path: String, maximumSize: MaximumSize = .longestSide(320), scratch: String,
                           progress: (String) -> Void = { _ in }) throws -> [Figure] {
        var figures: [Figure] = []
        var gen = ThumbnailGenerator(path: path)
        gen.maximumSize = maximumSize
        let time = TimeExpression.fraction(numerator: 1, denominator: 2)
        progress("decoding (no cache)…")
        figures.append(
            Figure(name: "decode (miss)", seconds: try median(runs: 7) { _ = try gen.image(at: time) }, operations: 7))

        let dir = (scratch as NSString).appendingPathComponent("tier")
        try? FileManager.default.removeItem(atPath: dir)
        gen.cache = ThumbnailCache(directory: dir)
        _ = try gen.image(at: time)  // fills both tiers
        figures.append(
            Figure(
                name: "memory-tier hit", seconds: try median(runs: 2000) { _ = try gen.image(at: time) },
                operations: 2000))
        gen.cache = ThumbnailCache(memoryBudget: 0, directory: dir)  // disk only
        figures.append(
            Figure(
                name: "disk-tier hit", seconds: try median(runs: 500) { _ = try gen.image(at: time) }, operations: 500))

        // Lookups as the directory grows (16 KiB entries, the size of a 320 px JPEG).
        let grow = (scratch as NSString).appendingPathComponent("grow")
        try? FileManager.default.removeItem(atPath: grow)
        defer { try? FileManager.default.removeItem(atPath: grow) }
        let disk = DiskCache(directory: grow, budget: 1 << 30)
        let payload = [UInt8](repeating: 0x5A, count: 16 << 10)
        var stored = 0
        for target in [100, 1_000, 10_000] {
            progress("filling the disk tier to \(target) entries…")
            while stored < target { disk.store(payload, for: "entry-\(stored)"); stored += 1 }
            var rng = SystemRandomNumberGenerator()
            let t = try median(runs: 2000) { _ in
                let k = Int.random(in: 0..<stored, using: &rng)
                guard disk.bytes(for: "entry-\(k)") != nil else { throw CocoaError(.fileReadCorruptFile) }
            }
            figures.append(Figure(name: "disk lookup, \(target) entries", seconds: t, operations: 2000))
        }
        try? FileManager.default.removeItem(atPath: dir)
        return figures
    }

    private static func median(runs: Int, _ body: (Int) throws -> Void) throws -> Double {
        var times: [Double] = []
        times.reserveCapacity(runs)
        let clock = SystemClock()
        for i in 0..<runs {
            let t0 = clock.now()
            try body(i)
            times.append(clock.now() - t0)
        }
        return times.sorted()[runs / 2]
    }

    private static func median(runs: Int, _ body: () throws -> Void) throws -> Double {
        try median(runs: runs) { (_: Int) in try body() }
    }
}
