import FFmpegBridge
import Foundation
import MediaTime

/// Extraction: the frames that answer the planned requests (exact, keyframe or within tolerance; representative
/// frames scored around a time), made into thumbnails at the output size.
extension ThumbnailGenerator {
    /// Serves `requests` (ascending) from `source` with one decoder.
    /// `after`: the latest time already served by another decoder (results never go back before it). `early`: the
    /// picture for the one request, looked for on another core (taken where it answers it).
    func serve(
        _ requests: [Request], source: VideoSource, threading: DecoderThreading, lowres: Int,
        after: MediaTime = .invalid,
        early: EarlyFrame? = nil, isCancelled: @escaping @Sendable () -> Bool, deliver: (ThumbnailResult) -> Void
    ) throws {
        let facts = source.stream
        let extractor = try FrameExtractor(
            source: source, plan: decodePlan(for: source, threading: threading, lowres: lowres))
        extractor.isCancelled = isCancelled
        extractor.lastReturned = after
        var earlyFound: FrameExtractor.Found? = nil
        if !source.isStill, requests.count == 1,
           let e = early?.answer(for: requests[0].time, streamIndex: facts.index, timeBase: extractor.decoder.timeBase,
                                 keyframesOnly: requestedTimeToleranceBefore.isPositiveInfinity) {
            if e.keyframeValidThrough.isValid {
                extractor.adopt(keyframe: e.frame, at: e.time, validThrough: e.keyframeValidThrough)
            } else {
                earlyFound = FrameExtractor.Found(
                    frame: e.frame, time: e.time, reused: false, containsTime: e.containsTime)
            }
        }
        let scaler = Scaler()
        var cache: (time: MediaTime, thumb: Thumbnail)? = nil
        for (k, r) in requests.enumerated() {
            if isCancelled() { throw MediaError(.cancelled, path: path, "cancelled") }
            do {
                if selectsRepresentativeFrames && !source.isStill {
                    let gaps = [
                        k > 0 ? r.time - requests[k - 1].time : nil,
                        k + 1 < requests.count ? requests[k + 1].time - r.time : nil,
                    ]
                    .compactMap { $0 }.filter { $0 > .zero }
                    var window = representativeWindow.width(duration: source.duration, gapToNearest: gaps.min())
                    // The slot: up to halfway to the neighbouring requested times (the file's ends for the first and
                    // last), where the search may go on when nothing in the window passes.
                    var slot = (
                        k > 0
                            ? r.time - (r.time - requests[k - 1].time).multiplied(byRatio: 1, divisor: 2)
                            : source.start,
                        k + 1 < requests.count
                            ? r.time + (requests[k + 1].time - r.time).multiplied(byRatio: 1, divisor: 2)
                            : (source.duration.isNumeric ? source.start + source.duration : r.time + window)
                    )
                    // A scene: window and slot are the scene (less its last millisecond: the next scene's first frame).
                    if case .within(let ranges) = representativeWindow,
                       let scene = ranges.first(where: { r.time >= $0.start && r.time < $0.end }) {
                        let last = scene.end - MediaTime(value: 1, timescale: 1000)
                        window = MediaTime.minimum(r.time - scene.start, last - r.time).multiplied(by: 2)
                        slot = (scene.start, last)
                    }
                    var thumb = try representativeFrame(
                        near: r.time, window: window, slot: slot, source: source, extractor: extractor,
                        scaler: scaler)
                    thumb.requestedTime = r.time
                    deliver(ThumbnailResult(index: r.index, request: r.expression, result: .success(thumb)))
                    continue
                }
                extractor.upcoming = k + 1 < requests.count ? requests[k + 1].time : .positiveInfinity
                let found = try earlyFound ?? extractor.frame(at: r.time, toleranceBefore: requestedTimeToleranceBefore,
                                                              toleranceAfter: requestedTimeToleranceAfter)
                var thumb: Thumbnail
                if let c = cache, (found.reused || source.isStill) && c.time == found.time {
                    thumb = c.thumb
                } else {
                    thumb = try makeThumbnail(found, scaler: scaler, facts: facts)
                    cache = (found.time, thumb)
                }
                thumb.requestedTime = r.time
                let satisfied = source.isStill || found.containsTime || inWindow(found.time, of: r.time)
                if !satisfied && !acceptsApproximateFrames {
                    throw MediaError.frameNotFound(path, at: r.time, nearest: found.time, exact: isExact)
                }
                thumb.isExact = isExact && !source.isStill && satisfied
                thumb.isApproximate = !satisfied
                deliver(ThumbnailResult(index: r.index, request: r.expression, result: .success(thumb)))
            } catch let e as MediaError {
                if e.kind == .cancelled { throw e }
                deliver(ThumbnailResult(index: r.index, request: r.expression, result: .failure(e)))
            }
        }
    }

    /// Whether a frame at `actual` is inside the tolerance window around `requested`.
    func inWindow(_ actual: MediaTime, of requested: MediaTime) -> Bool {
        (requestedTimeToleranceBefore.isPositiveInfinity || actual >= requested - requestedTimeToleranceBefore) &&
            (requestedTimeToleranceAfter.isPositiveInfinity || actual <= requested + requestedTimeToleranceAfter)
    }

    /// The representative frame around `time` (see ``selectsRepresentativeFrames``): the best-scoring frame that passes
    /// ``frameCriteria`` in the window, else the first that passes further out in `slot`, else the best seen. Only the
    /// best picture so far is kept, at the output size.
    func representativeFrame(
        near time: MediaTime, window: MediaTime, slot: (lo: MediaTime, hi: MediaTime), source: VideoSource,
        extractor: FrameExtractor, scaler: Scaler
    ) throws -> Thumbnail {
        let half = window.multiplied(byRatio: 1, divisor: 2)
        var lo = time - half, hi = time + half
        if lo < source.start { lo = source.start }
        let end = source.duration.isNumeric ? source.start + source.duration : MediaTime.positiveInfinity
        if hi > end { hi = end }
        if hi < lo { hi = lo }
        var best: (passes: Bool, score: FrameScore, thumb: Thumbnail)? = nil
        var candidates: [FrameCandidate] = []
        var seen: Set<MediaTime> = []
        /// Scores a frame once; true when it passes.
        func consider(_ found: FrameExtractor.Found) throws -> Bool {
            guard seen.insert(found.time).inserted else { return false }
            let thumb = try makeThumbnail(found, scaler: scaler, facts: source.stream)
            let score = FrameScore(thumb.image)
            let rejections = frameCriteria.rejections(score)
            candidates.append(FrameCandidate(time: found.time, score: score, rejections: rejections))
            let passes = rejections.isEmpty
            if let b = best, b.passes && !passes || (b.passes == passes && !(b.score < score)) { return passes }
            best = (passes, score, thumb)
            return passes
        }
        // 1. Keyframes across the window (cheap: one frame decoded each); the best that passes wins.
        let steps = 4
        let step = (hi - lo).multiplied(byRatio: 1, divisor: Int32(steps))
        for i in 0...steps {
            let c = lo + (hi - lo).multiplied(byRatio: Int32(i), divisor: Int32(steps))
            guard let found = try? extractor.frame(at: c, toleranceBefore: .positiveInfinity, toleranceAfter: .zero),
                  found.time >= lo, found.time <= hi else { continue }
            _ = try consider(found)
        }
        // 2. None passes: keep looking, nearest first — between those points, then past the window up to the slot's
        // ends (forward, then back) — and stop at the first frame that passes. A point whose keyframe was seen
        // already is decoded exactly (a long GOP may hold the only frames that show anything).
        if best?.passes != true {
            let stride = MediaTime.maximum(step, MediaTime(value: 1, timescale: 4))
            var points: [MediaTime] = (0..<steps).map { lo + step.multiplied(byRatio: Int32(2 * $0 + 1), divisor: 2) }
            var t = hi + stride
            while t < MediaTime.minimum(slot.hi, end), points.count < 24 { points.append(t); t = t + stride }
            t = lo - stride
            while t >= MediaTime.maximum(slot.lo, source.start), points.count < 36 { points.append(t); t = t - stride }
            var tried = 0
            let allowed = (
                MediaTime.minimum(lo, MediaTime.maximum(slot.lo, source.start)),
                MediaTime.maximum(hi, MediaTime.minimum(slot.hi, end))
            )
            for c in points where tried < 12 {
                guard let key = try? extractor.frame(at: c, toleranceBefore: .positiveInfinity, toleranceAfter: .zero)
                else { continue }
                let found =
                    seen.contains(key.time) || key.time < allowed.0 || key.time > allowed.1
                    ? try? extractor.frame(at: c, toleranceBefore: .zero, toleranceAfter: .positiveInfinity)
                    : key
                guard let found, !seen.contains(found.time), found.time >= allowed.0, found.time <= allowed.1 else {
                    continue
                }
                tried += 1
                if try consider(found) { break }
            }
        }
        // 3. Still nothing that shows anything: the frame at the time, under the same rule as plain frames (outside
        // its window only when the data there is damaged, and then only when approximate frames are accepted).
        if best == nil || best!.score.isBlank {
            let found = try extractor.frame(
                at: time, toleranceBefore: requestedTimeToleranceBefore, toleranceAfter: requestedTimeToleranceAfter)
            if found.containsTime || inWindow(found.time, of: time) || acceptsApproximateFrames {
                _ = try consider(found)
            } else if best == nil {
                throw MediaError.frameNotFound(path, at: time, nearest: found.time, exact: isExact)
            }
        }
        var thumb = best!.thumb
        thumb.isExact = false
        thumb.isApproximate = false
        thumb.candidates = candidates
        return thumb
    }

    /// Scales straight from the decoder's YUV to the output size in one pass, then rotates the small picture.
    func makeThumbnail(_ found: FrameExtractor.Found, scaler: Scaler, facts: StreamFacts) throws -> Thumbnail {
        let (image, orientation) = try FramePicture.render(
            found.frame, facts: facts, scaler: scaler, maximumSize: maximumSize,
            allowsUpscaling: allowsUpscaling, appliesTransform: appliesPreferredTrackTransform,
            toneMapsHDR: toneMapsHDR, path: path)
        return Thumbnail(
            requestedTime: found.time, actualTime: found.time, image: image, orientation: orientation, isExact: false,
            isApproximate: false)
    }
}
