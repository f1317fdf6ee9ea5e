import Dispatch
import FFmpegBridge
import Foundation
import MediaTime
import Synchronization
import Locking

/// Two decoders on two halves of the requested times, each on its own core. Results still arrive in ascending
/// time order: the second half is held until the first is delivered.
extension ThumbnailGenerator {
    /// Splits ascending requests near the middle at a keyframe boundary (so no GOP is decoded twice), or nil
    /// when there is no such place.
    static func split(_ requests: [Request], at source: VideoSource) -> ([Request], [Request])? {
        let middle = requests.count / 2
        func keyframe(_ i: Int) -> MediaTime? {
            source.demuxer.indexedKeyframe(streamIndex: source.stream.index, atOrBefore: requests[i].time)
        }
        guard keyframe(middle) != nil else { return (Array(requests[..<middle]), Array(requests[middle...])) }
        for offset in 0..<middle {
            for m in [middle + offset, middle - offset] where m > 0 && m < requests.count {
                if keyframe(m) != keyframe(m - 1) { return (Array(requests[..<m]), Array(requests[m...])) }
            }
        }
        return nil
    }

    /// What the second decoder hands back to the caller's thread.
    private final class SecondHalf: Sendable {
        let results = Locked<[ThumbnailResult]>([])
        let failure = Locked<MediaError?>(nil)
        let cancelled = Atomic<Bool>(false)
        let done = Locked(false)
    }

    /// Serves `first` here with `source` and `second` on a thread of its own with a second open of the file,
    /// both single-threaded decoders.
    func serveInParallel(_ first: [Request], _ second: [Request], source: VideoSource,
                         isCancelled: @escaping @Sendable () -> Bool, deliver: (ThumbnailResult) -> Void) throws {
        let half = SecondHalf()
        let generator = self
        let facts = source.facts
        NamedThread.start("scrubkit.half", stackSize: 8 << 20) {   // (dav1d and libaom want a main thread's stack)
            defer { half.done.withLock { $0 = true } }
            do {
                let other = try VideoSource(
                    reopening: generator.path, facts: facts, pixelLimit: generator.pixelLimit, allowsCoverArt: true)
                // (The first half's results are at or before its last time: the second half stays after it.)
                try generator.serve(
                    second, source: other, threading: .single, lowres: 0, after: first.last?.time ?? .invalid,
                    isCancelled: { half.cancelled.load(ordering: .relaxed) || isCancelled() }
                ) { r in
                    half.results.withLock { $0.append(r) }
                }
            } catch let e as MediaError {
                half.failure.withLock { $0 = e }
            } catch {
                half.failure.withLock { $0 = MediaError(.decodeFailed, path: generator.path, "\(error)") }
            }
        }
        do {
            try serve(first, source: source, threading: .single, lowres: 0, isCancelled: isCancelled, deliver: deliver)
        } catch {
            half.cancelled.store(true, ordering: .relaxed)
            half.done.wait(until: { $0 })
            throw error
        }
        // The second thread asks `isCancelled` itself (it is Sendable): a plain wait, no polling.
        half.done.wait(until: { $0 })
        if isCancelled() { throw MediaError(.cancelled, path: path, "cancelled") }
        if half.failure.withLock({ $0 }) != nil {
            // The second open or decoder failed where the first worked: finish here, one decoder.
            let done = Set(half.results.withLock { $0.map(\.index) })
            try serve(
                second.filter { !done.contains($0.index) }, source: source, threading: .single, lowres: 0,
                after: first.last?.time ?? .invalid, isCancelled: isCancelled,
                deliver: { r in half.results.withLock { $0.append(r) } })
        }
        let order = Dictionary(uniqueKeysWithValues: second.enumerated().map { ($1.index, $0) })
        for r in half.results.withLock({ $0 }).sorted(by: { order[$0.index] ?? 0 < order[$1.index] ?? 0 }) {
            deliver(r)
        }
    }
}
