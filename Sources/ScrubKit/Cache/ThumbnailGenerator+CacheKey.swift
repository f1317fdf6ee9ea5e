import FFmpegBridge
import Foundation
import MediaTime

/// The cache in front of the engine: hits delivered at once, misses generated together and kept; and the one
/// builder of what decides the pixels (the cache key, the batch signature).
extension ThumbnailGenerator {
    func run(
        _ times: [TimeExpression], isCancelled: @escaping @Sendable () -> Bool, deliver: (ThumbnailResult) -> Void
    ) throws {
        guard let cache, let identity = SourceIdentity(path: path) else {
            return try run(times, plan: nil, isCancelled: isCancelled, deliver: deliver)
        }
        // Hits are delivered at once; the misses are generated together (one open) and kept.
        var misses: [(index: Int, time: TimeExpression)] = []
        for (i, t) in times.enumerated() {
            if let hit = cache.thumbnail(for: cacheKey(for: t, identity: identity)) {
                deliver(ThumbnailResult(index: i, request: t, result: .success(hit)))
            } else {
                misses.append((i, t))
            }
        }
        if misses.isEmpty { return }
        try run(misses.map(\.time), plan: nil, isCancelled: isCancelled) { r in
            let original = misses[r.index]
            if case .success(let t) = r.result { cache.store(t, for: cacheKey(for: original.time, identity: identity)) }
            deliver(ThumbnailResult(index: original.index, request: original.time, result: r.result))
        }
    }

    /// The cache key of the thumbnail at `time` of the file whose identity is `identity`: the identity and every
    /// setting that changes the pixels or the frame chosen (size, upscaling, transform, tolerances, tone mapping,
    /// shrink-on-load, fast decoding, approximate frames, representative frames and their window). Settings that only
    /// change speed (parallel decoding, the pixel limit) are left out.
    public func cacheKey(for time: TimeExpression, identity: SourceIdentity) -> CacheKey {
        CacheKey(.thumbnail, identity: identity, parts: [time.description] + settingsKey)
    }

    /// The settings that change the pixels or the frame chosen, in a fixed order: the one builder behind
    /// ``cacheKey(for:identity:)`` and the batch's resume and cache signature (a new such setting goes here only).
    var settingsKey: [String] {
        [maximumSize.key, allowsUpscaling ? "up" : "-",
         appliesPreferredTrackTransform ? "rot" : "norot", requestedTimeToleranceBefore.description,
         requestedTimeToleranceAfter.description, toneMapsHDR ? "tm" : "notm", allowsShrinkOnLoad ? "sol" : "-",
         allowsFastDecoding ? "fd" : "-", acceptsApproximateFrames ? "approx" : "-",
         selectsRepresentativeFrames ? "best:\(representativeWindow.description):\(frameCriteria.key)" : "-"]
    }
}
