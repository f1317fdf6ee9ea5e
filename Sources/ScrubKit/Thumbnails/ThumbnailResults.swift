import Dispatch
import Foundation
import MediaTime
import Locking

/// Thumbnails as they are made (``ThumbnailGenerator/images(at:)``): an async sequence in ascending time order.
///
/// Each iteration decodes on a thread of its own — not the cooperative pool, which blocking FFmpeg calls would
/// starve — and stays at most ``lookahead`` results ahead of the consumer (back-pressure: a slow consumer never makes
/// the decoder hold a growing backlog of pictures). Leaving the loop, or cancelling the consuming task, stops the
/// decoding at the next frame. Nothing is decoded until iteration starts.
public struct ThumbnailResults: AsyncSequence, Sendable {
    /// One result per requested time.
    public typealias Element = ThumbnailResult

    /// How many results the decoder may have ready before the consumer takes them.
    public static let lookahead = 2

    let generator: ThumbnailGenerator
    let times: [TimeExpression]

    /// Starts decoding (a thread of its own) and returns the iterator that hands the results over.
    public func makeAsyncIterator() -> Iterator {
        let channel = Channel(capacity: ThumbnailResults.lookahead)
        let generator = self.generator, times = self.times
        NamedThread.start("scrubkit.thumbs", stackSize: 8 << 20) {   // (dav1d and libaom want a main thread's stack)
            var delivered = 0
            defer { generator.streamProbe?(delivered, true) }
            do {
                try generator.run(times, isCancelled: { channel.isCancelled }) { result in
                    guard channel.send(result) else { return }
                    delivered += 1
                    generator.streamProbe?(delivered, false)
                }
                channel.finish(nil)
            } catch {
                channel.finish(error)
            }
        }
        return Iterator(channel: channel)
    }

    /// Hands the results over; dropping it (leaving the loop) stops the decoding.
    public final class Iterator: AsyncIteratorProtocol {
        let channel: Channel
        init(channel: Channel) { self.channel = channel }
        deinit { channel.cancel() }

        /// The next result; nil after the last (or once cancelled); throws when the file could not be opened.
        public func next() async throws -> ThumbnailResult? {
            try await withTaskCancellationHandler {
                try await channel.receive()
            } onCancel: { [channel] in
                channel.cancel()
            }
        }
    }

    /// A bounded hand-over from the decoding thread to the consumer.
    final class Channel: Sendable {
        private struct State {
            var buffer: [ThumbnailResult] = []
            var waiter: CheckedContinuation<ThumbnailResult?, Error>? = nil
            var ended = false
            var failure: Error? = nil
            var cancelled = false
            /// Free places: the decoder takes one before handing a result over, the consumer gives it back.
            var free: Int
        }
        private let state: Locked<State>

        init(capacity: Int) { state = Locked(State(free: capacity)) }

        var isCancelled: Bool { state.withLock { $0.cancelled } }

        /// Decoder side: waits for a free place, then hands `result` over. False once the consumer has gone.
        func send(_ result: ThumbnailResult) -> Bool {
            while true {
                enum Step { case gone, handOver(CheckedContinuation<ThumbnailResult?, Error>?), wait }
                let step = state.withLock { s -> Step in
                    if s.cancelled { return .gone }
                    if let w = s.waiter { s.waiter = nil; return .handOver(w) }   // taken at once: no place used
                    if s.free > 0 { s.free -= 1; s.buffer.append(result); return .handOver(nil) }
                    return .wait
                }
                switch step {
                case .gone: return false
                case .handOver(let waiter): waiter?.resume(returning: result); return true
                // a place freed, or the consumer gone
                case .wait: state.wait { $0.cancelled || $0.waiter != nil || $0.free > 0 }
                }
            }
        }

        /// Decoder side: no more results (`error`: why the whole request failed).
        func finish(_ error: Error?) {
            let waiter = state.withLock { s -> CheckedContinuation<ThumbnailResult?, Error>? in
                s.ended = true
                s.failure = error
                defer { s.waiter = nil }
                return s.waiter
            }
            if let waiter {
                if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
            }
        }

        /// Consumer side: the consumer has gone (or its task was cancelled): the decoder stops at its next check.
        func cancel() {
            let waiter = state.withLock { s -> CheckedContinuation<ThumbnailResult?, Error>? in
                guard !s.cancelled else { return nil }
                s.cancelled = true   // (a decoder waiting for a place sees it)
                s.buffer.removeAll()
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume(returning: nil)
        }

        /// Consumer side: the next result, waiting for the decoder when none is ready.
        func receive() async throws -> ThumbnailResult? {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<ThumbnailResult?, Error>) in
                enum Outcome { case result(ThumbnailResult), end, failure(Error), wait }
                let outcome = state.withLock { s -> Outcome in
                    if !s.buffer.isEmpty {
                        s.free += 1   // (a decoder waiting for a place sees it)
                        return .result(s.buffer.removeFirst())
                    }
                    if s.cancelled { return .end }
                    if s.ended {
                        if let f = s.failure { s.failure = nil; return .failure(f) }
                        return .end
                    }
                    s.waiter = c
                    return .wait
                }
                switch outcome {
                case .result(let r): c.resume(returning: r)
                case .end: c.resume(returning: nil)
                case .failure(let e): c.resume(throwing: e)
                case .wait: break
                }
            }
        }
    }
}
