import FFmpegBridge
import Foundation
import MediaTime

/// Finds the frame for each requested time, with the least decoding the tolerance allows:
/// - zero/zero (exact): seek to the keyframe at or before, decode forward by best-effort timestamps, return the
///   frame whose display interval contains the time;
/// - infinite before (fastest): the keyframe at or before, drained out of the decoder at once;
/// - a finite window: that keyframe when it lies inside the window, else the exact frame.
///
/// Requests must come in ascending time order (the generator sorts them): a later time inside the GOP being
/// decoded continues forward without re-seeking, so each GOP is decoded at most once. Not thread-safe.
final class FrameExtractor {
    let source: VideoSource
    /// The stream's decoding: decoder, reader, positioning.
    let decoding: StreamDecoder
    var reader: FrameReader { decoding.reader }
    /// Two frame slots: `last` holds the latest decoded frame at or before the current target; `peek` a decoded
    /// frame beyond it, kept for the next target. A slot's time is nil while it holds nothing.
    private(set) var last: Slot
    private(set) var peek: Slot
    /// Where the decoder stands: the one piece of state that says whether the next request can decode on.
    private(set) var state: DecodeState = .unpositioned

    /// The time of the last picture the keyframe path produced (still held in `last` if nothing else came since).
    private(set) var lastKeyframeReturned: MediaTime = .invalid
    /// The latest time for which that keyframe is still the last one at or before (what the packet scan proved).
    private(set) var lastKeyframeValidThrough: MediaTime = .invalid
    /// The presentation time of the last picture handed out. Set before the first request when another decoder has
    /// served earlier times (the second half of a parallel run), so this one never goes back before them.
    var lastReturned: MediaTime = .invalid
    /// Frames decoded since opening (for benchmarks and tests of the no-re-decode promise).
    private(set) var framesDecoded = 0
    private(set) var seeks = 0
    /// The time the next request will ask for, when known (a batch): an exact request may then stop decoding at the
    /// first packet past its time and drain the decoder (``FrameReader/Aim/drainBound``) where the next one would seek
    /// anyway (its keyframe comes after that packet), or when there is none (`.positiveInfinity`). Invalid (the
    /// default: a player decodes on from where it stands): never.
    var upcoming: MediaTime = .invalid
    /// Cancellation hook, checked between frames.
    var isCancelled: @Sendable () -> Bool = { false }

    /// An extractor of `source`'s video stream decoding as `plan` says, reading its packets from `packets` (nil: the
    /// source's own demuxer; the player: its reader's queue for the stream).
    init(source: VideoSource, plan: DecodePlan, packets: PacketSource? = nil) throws {
        self.source = source
        decoding = try StreamDecoder(
            packets ?? source.demuxer, stream: source.stream, path: source.path, threading: plan.threading,
            lowres: plan.lowres, pixelLimit: plan.pixelLimit, skipsLoopFilter: plan.skipsLoopFilter)
        decoding.reader.skipsUnneededReferences = plan.skipsUnneededReferences
        last = Slot(frame: try Frame())
        peek = Slot(frame: try Frame())
    }

    var decoder: Decoder { reader.decoder }

    /// Takes a keyframe another decoder of the same file found (``EarlyFrame``) as if this one had decoded it: a
    /// fastest-mode request at a time it is proven to answer (from `time` through `validThrough`) is served from it,
    /// decoding nothing; any other request decodes as usual.
    func adopt(keyframe frame: Frame, at time: MediaTime, validThrough: MediaTime) {
        last.frame.take(from: frame)
        last.time = time
        peek.time = nil
        lastKeyframeReturned = time
        lastKeyframeValidThrough = validThrough
        state = .unpositioned
    }

    /// Forgets where the decoder is (the packets after it were not kept: a player's chain showing no pictures): the
    /// next request seeks, and ``next()`` has nothing until one did.
    func forgetPosition() { reader.reset(); peek.time = nil; state = .unpositioned }

    /// The frame for `time` within `[time − before, time + after]` per the policies above.
    func frame(at time: MediaTime, toleranceBefore before: MediaTime, toleranceAfter after: MediaTime) throws -> Found {
        let found = try locate(time, before, after)
        lastReturned = found.time
        return found
    }

    private func locate(_ time: MediaTime, _ before: MediaTime, _ after: MediaTime) throws -> Found {
        if source.isStill { return try stillFrame() }
        let exact = before == .zero && after == .zero
        if !exact {
            // Fastest mode, a later time the last keyframe is proven to still answer: that picture again (a
            // duplicate, visible in actualTime), decoding nothing.
            if before.isPositiveInfinity, let held = last.time, held == lastKeyframeReturned, time >= held,
                keyframeStillAnswers(time)
            {
                return Found(frame: last.frame, time: held, reused: true)
            }
            let windowStart = before.isPositiveInfinity ? MediaTime.negativeInfinity : time - before
            // Moving forward (batches ask in ascending order), a finite window never goes back on or repeats the last
            // picture: while the decoder can continue forward without a seek, the exact frame costs less than a
            // keyframe seek and is always inside the window. Requests going backwards (a player) are not affected.
            let forward = lastReturned.isNumeric && time >= lastReturned
            var keyframe = reader.source.indexedKeyframe(streamIndex: source.stream.index, atOrBefore: time)
            if !before.isPositiveInfinity, !(keyframe.map { $0 >= windowStart } ?? false), !state.isPositioned,
               Demuxer.isURL(source.path), Demuxer.isMP4Family(source.facts.container) {
                // A fragmented MP4 over HTTP indexes a fragment's samples once it is sought (its header read): ask
                // again.
                try seek(to: time)
                state = .unpositioned
                keyframe = reader.source.indexedKeyframe(streamIndex: source.stream.index, atOrBefore: time)
            }
            // (Index times are the container's: decode times for MP4, a little before the presentation time.)
            let repeatsKeyframe = forward && keyframe != nil && keyframe! <= lastReturned
            let continuesForward = forward && state.isPositioned && !mustSeek(for: time)
            if before.isPositiveInfinity ||
               (!repeatsKeyframe && !continuesForward && (keyframe.map { $0 >= windowStart } ?? false)) {
                // (A finite window checks the picture's own time too: the index may be partial or in decode time.)
                if let found = try keyframeFrame(at: time),
                    before.isPositiveInfinity || (found.time >= windowStart && !(forward && found.time <= lastReturned))
                {
                    return found
                }
            }
        }
        return try exactFrame(at: time)
    }

    /// Whether the keyframe last returned is still the last one at or before `time` (later than it): the packet scan
    /// proved it that far, or an MP4/MOV index (complete, in decode times, which are never after presentation) has
    /// no keyframe entry after it up to `time`. Other indexes can be partial (built while reading).
    private func keyframeStillAnswers(_ time: MediaTime) -> Bool {
        if lastKeyframeValidThrough.isValid && time <= lastKeyframeValidThrough { return true }
        guard Demuxer.isMP4Family(source.facts.container),
            let entry = reader.source.indexedKeyframe(streamIndex: source.stream.index, atOrBefore: time)
        else { return false }
        return entry <= lastKeyframeReturned
    }

    /// The frame after the last one returned, continuing the forward decode (playback). Needs a prior exact
    /// request to have positioned the decoder; nil at the end of the stream.
    func next() throws -> Found? {
        guard state.isPositioned, !source.isStill else { return nil }
        if peek.time != nil {
            promotePeek()
        } else {
            guard let f = try decodeNext() else { state = state.ended; return nil }
            let t = time(of: f)
            last.frame.take(from: f)
            last.time = t
        }
        let t = last.time!
        lastReturned = t
        return Found(frame: last.frame, time: t, reused: false)
    }

    /// Whether forward decoding can continue from the last result (false after a keyframe-only seek).
    var canContinue: Bool { state.isPositioned }

    // MARK: - Stills

    private func stillFrame() throws -> Found {
        if last.time != nil { return Found(frame: last.frame, time: .zero, reused: true) }
        guard let f = try decodeNext() else {
            throw MediaError(.decodeFailed, path: source.path, "the image could not be decoded (truncated or corrupt)")
        }
        last.frame.take(from: f)
        last.time = .zero
        return Found(frame: last.frame, time: .zero, reused: false)
    }

    // MARK: - Keyframe path

    private func keyframeFrame(at time: MediaTime) throws -> Found? {
        let target = time.pts(timeBase: decoder.timeBase, method: .roundTowardNegativeInfinity) ?? .max
        // The decoder is drained at the end: it must be flushed before anything else is decoded.
        defer { reader.reset(); state = .unpositioned }
        try seek(to: time)
        var retreat = MediaTime(value: 1, timescale: 1)
        var outcome = try reader.keyframe(atOrBefore: target)
        // Landed past the keyframe (formats without an index seek by a timestamp search): back off and look again;
        // from the start of the file, or after backing off 8 s, take the first keyframe there is.
        while case .landedLate = outcome {
            let earlier = time - retreat
            let last = retreat.seconds > 8 || earlier <= source.start
            try seek(to: last && earlier <= source.start ? source.start - MediaTime(value: 1, timescale: 1) : earlier)
            retreat = retreat.multiplied(by: 2)
            outcome = try reader.keyframe(atOrBefore: target, acceptingLater: last)
        }
        guard case .frame(let f, let validThrough) = outcome else { return nil }
        framesDecoded += 1
        var t = decoder.time(of: f)
        if !t.isNumeric { t = time }
        last.frame.take(from: f)
        last.time = t
        peek.time = nil
        lastKeyframeReturned = t
        lastKeyframeValidThrough = validThrough == .max ? .positiveInfinity
            : MediaTime(pts: validThrough, timeBase: decoder.timeBase)
        return Found(frame: last.frame, time: t, reused: false)
    }

    // MARK: - Exact path

    private func exactFrame(at time: MediaTime) throws -> Found {
        // MPEG-PS seeks by a timestamp search that lands just before the time, on any packet: decoding starts at the
        // next keyframe, nearly always past the time, and the back-off below seeks again (twice for 2 s GOPs). Start
        // 2 s earlier at once: a DVD's GOPs are half a second, and MPEG-2 decodes cheaply.
        let lead = source.searchesByTimestamp ? FrameExtractor.timestampSearchLead : .zero
        // (The target first: a seek tells an HTTP source what will be read up to it.)
        reader.aim = time.pts(timeBase: decoder.timeBase, method: .roundTowardNegativeInfinity).map {
            FrameReader.Aim(target: $0)
        }
        if !state.isPositioned || mustSeek(for: time) { try seek(to: time - lead) }
        // (After the seek: a fragmented MP4 indexes a fragment's samples once it is sought.)
        reader.aim?.drainBound = drainBound()
        defer {
            reader.aim = nil
            if reader.drainedEarly || reader.leftReferencesOut {   // (past the time, or pictures left out: seek next)
                reader.reset()
                peek.time = nil
                state = .unpositioned
            }
        }
        var retreat = MediaTime.maximum(MediaTime(value: 1, timescale: 1), lead.multiplied(by: 2))
        var framesSinceSeek = 0
        /// Seeks further back (1, 2, 4, 8 s before the time) while that budget lasts; false when it is spent.
        func backOff() throws -> Bool {
            guard retreat.seconds <= 8 else { return false }
            try seek(to: time - retreat)
            retreat = retreat.multiplied(by: 2)
            framesSinceSeek = 0
            return true
        }
        while true {
            if isCancelled() { throw MediaError(.cancelled, path: source.path, "cancelled") }
            if peek.time == nil {
                guard let f = try decodeNext() else {
                    // Drained at the first packet past the time: every picture presented at or before it came out.
                    if reader.drainedEarly, let held = last.time {
                        if lostFramesAfterLast, !state.fromStart, try backOff() { continue }
                        return Found(frame: last.frame, time: held, reused: false, containsTime: !lostFramesAfterLast)
                    }
                    state = state.ended
                    // past the last frame: it is the answer if the video is meant to end there
                    if let held = last.time {
                        let ends = endsWithLastFrame(before: time)
                        // Frames were sent and never came out: a decoder that started on an open-GOP keyframe can
                        // drop pictures until it has recovered. Start a GOP or more earlier once more.
                        if !ends, lostFramesAfterLast, !state.fromStart, try backOff() { continue }
                        return Found(frame: last.frame, time: held, reused: false, containsTime: ends)
                    }
                    // Nothing came out after the seek (an open-GOP keyframe whose leading pictures need the GOP
                    // before): start decoding further back.
                    if framesSinceSeek == 0, try backOff() { continue }
                    throw MediaError(
                        .decodeFailed, path: source.path,
                        "no video frame could be decoded near \(MediaTime.decimalString(time.seconds)) s")
                }
                let t = self.time(of: f)
                peek.frame.take(from: f)
                peek.time = t
                framesSinceSeek += 1
            }
            let next = peek.time!
            if next <= time {
                promotePeek()
                continue
            }
            // last ≤ time < peek: the answer, unless frames between them were lost (damaged data)
            if let held = last.time {
                // (As above: lost after an open-GOP start, perhaps; one more try from further back.)
                if lostFramesAfterLast, !state.fromStart, try backOff() { continue }
                return Found(frame: last.frame, time: held, reused: false, containsTime: !lostFramesAfterLast)
            }
            // The first frame after the seek is already past the time: the seek landed late (open GOP, edit list,
            // imprecise index). Back off further and try again, a few times, before settling for this frame.
            // (MP4 indexes keyframes by decode time, so "keyframe at or before" can present after the target.)
            // The target may go below the start: the first keyframe's decode time often is.
            if framesSinceSeek == 1, !state.fromStart, try backOff() { continue }
            // The first frame decoded is past the time: the time is before the video's first frame (decoding started
            // at the beginning), or the frames around it do not decode (damaged data).
            return Found(
                frame: peek.frame, time: next, reused: false, containsTime: state.fromStart && framesSinceSeek == 1)
        }
    }

    private func seek(to time: MediaTime) throws {
        seeks += 1
        // At or before the start, before the first keyframe, or a format that cannot seek by time: from the beginning
        // (rewound by byte for MPEG-TS/PS, whose timestamp search can land on a later keyframe), so the first frame
        // decoded is the video's first.
        let fromStart = decoding.position(at: time, start: source.start)
        last.time = nil
        peek.time = nil
        state = .decoding(fromStart: fromStart)
    }

    /// The frame in `peek` becomes `last` (the decoder moved past the previous one).
    private func promotePeek() {
        swap(&last, &peek)
        peek.time = nil
    }

    /// A decoded frame's presentation time; without timestamps, frames are counted from the last one (or the start).
    private func time(of frame: Frame) -> MediaTime {
        let t = decoder.time(of: frame)
        if t.isNumeric { return t }
        return last.time.map { $0 + nominalFrameDuration } ?? source.start
    }

    private func decodeNext() throws -> Frame? {
        do {
            let f = try reader.nextFrame()
            if f != nil { framesDecoded += 1 }
            return f
        } catch let e as FFmpegError {
            throw MediaError.decoding(source.path, codec: source.stream.codecName, e)
        }
    }
}
