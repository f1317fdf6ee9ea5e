import Foundation
import MediaTime
@testable import ScrubKit
import Testing
import Locking

/// `images(at:)`: back-pressure, cancellation from the loop or the task, errors, and a decoder that never outlives
/// its consumer.
@Suite struct ThumbnailResultsTests {
    struct Progress: Sendable { var delivered = 0; var finished = false }

    static func generator(_ path: String, probe: Locked<Progress>) -> ThumbnailGenerator {
        var g = ThumbnailGenerator(path: path)
        g.maximumSize = .longestSide(64)
        g.setExact()
        g.streamProbe = { delivered, finished in
            probe.withLock {
                $0.delivered = delivered; $0.finished = $0.finished || finished
            }
        }
        return g
    }

    static func waitUntilFinished(_ probe: Locked<Progress>) async throws -> Progress {
        for _ in 0..<600 where !probe.withLock({ $0.finished }) { try await Task.sleep(for: .milliseconds(50)) }
        return probe.withLock { $0 }
    }

    static let times = (0..<40).map { TimeExpression.fraction(numerator: Int32($0), denominator: 40) }

    @Test func aSlowConsumerHoldsTheDecoderToTheLookahead() async throws {
        let probe = Locked(Progress())
        let g = Self.generator(Corpus.sample("h264_gop2s.mp4"), probe: probe)
        var taken = 0
        for try await _ in g.images(at: Self.times) {
            taken += 1
            if taken == 1 {
                try await Task.sleep(for: .milliseconds(400))   // the decoder could make many in this time
                let ahead = probe.withLock { $0.delivered }
                #expect(ahead <= 1 + ThumbnailResults.lookahead, "\(ahead) handed over while the consumer held one")
            }
        }
        #expect(taken == Self.times.count)
        #expect(try await Self.waitUntilFinished(probe).finished)
    }

    @Test func cancellingTheConsumingTaskStopsTheDecoder() async throws {
        let probe = Locked(Progress())
        let g = Self.generator(Corpus.sample("h264_gop2s.mp4"), probe: probe)
        let consumer = Task {
            var n = 0
            for try await _ in g.images(at: Self.times) {
                n += 1; if n == 2 { try await Task.sleep(for: .seconds(30)) }
            }
            return n
        }
        while probe.withLock({ $0.delivered }) < 2 { try await Task.sleep(for: .milliseconds(10)) }
        consumer.cancel()
        _ = await consumer.result
        let end = try await Self.waitUntilFinished(probe)
        #expect(end.finished && end.delivered < Self.times.count, "\(end.delivered) of \(Self.times.count)")
    }

    /// A still answers every time in one loop: after the consumer leaves, no hand-over may wait for a place forever.
    @Test func aStillWithManyTimesEndsWhenTheConsumerLeaves() async throws {
        let probe = Locked(Progress())
        let g = Self.generator(Corpus.sample("large_6000x4000.jpg"), probe: probe)
        for try await _ in g.images(at: Self.times) { break }
        let end = try await Self.waitUntilFinished(probe)
        #expect(end.finished, "the decoding thread ended")
        #expect(end.delivered <= 1 + ThumbnailResults.lookahead + 1)
    }

    @Test func aFileThatCannotBeOpenedThrowsFromTheLoop() async throws {
        let g = ThumbnailGenerator(path: "/nonexistent/clip.mp4")
        await #expect(throws: MediaError.self) { for try await _ in g.images(at: Self.times) {} }
    }
}
