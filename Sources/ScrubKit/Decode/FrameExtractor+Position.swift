import FFmpegBridge
import Foundation
import MediaTime

/// Where decoding stands against the stream: whether the last picture is what a later time shows, whether pictures
/// were lost on the way, and whether the next request continues or seeks (or may drain before it).
extension FrameExtractor {
    /// Distance beyond which, without a container index, jumping ahead is cheaper as a seek than decoding forward.
    static let forwardDecodeLimit = MediaTime(value: 3, timescale: 1)

    /// How far before the time an exact request seeks in MPEG-PS (see ``VideoSource/searchesByTimestamp``).
    static let timestampSearchLead = MediaTime(value: 2, timescale: 1)

    /// Packets sent to the decoder since opening (tests).
    var packetsSent: Int { reader.packetsSent }

    /// Whether the last frame decoded (at `lastTime`, the stream over) is what a time past it shows: it stays on
    /// screen to the end, unless there is evidence that frames after it exist but could not be read — the container's
    /// index lists a packet after it, at or before the time (a file cut short: MP4 indexes every sample, by decode
    /// time, never after its presentation), or packets after it went to the decoder and never came out (damaged).
    func endsWithLastFrame(before time: MediaTime) -> Bool {
        if lastFrameCovers(time) { return true }
        if lostFramesAfterLast { return false }
        if let indexed = reader.source.indexedPacket(streamIndex: source.stream.index, atOrBefore: time),
           let held = last.time, indexed > held + nominalFrameDuration.multiplied(byRatio: 1, divisor: 2) {
            return false
        }
        return true
    }

    /// Whether a packet presented after `lastTime` but at or before the target went to the decoder and its frame never
    /// came out (frames come out in presentation order): the data there is damaged. Packets without a presentation
    /// timestamp say nothing.
    var lostFramesAfterLast: Bool {
        let sent = reader.latestDecodedPresentation
        guard sent != .min, let held = last.time?.pts(timeBase: decoder.timeBase, method: .roundHalfAwayFromZero) else {
            return false
        }
        return sent > held
    }

    /// Whether `time` (at or after `lastTime`) falls within the display interval of the frame in `last`: its own
    /// duration (the container's, e.g. MP4's stts, so variable frame rates are right) or, when unknown, a few nominal
    /// frame durations; with half a frame of slack for rounding. A later time before the next decoded frame means
    /// frames in between did not decode.
    func lastFrameCovers(_ time: MediaTime) -> Bool {
        let nominal = nominalFrameDuration
        guard let held = last.time else { return false }
        let own = decoder.duration(of: last.frame)
        let span =
            own.isNumeric && own > .zero
            ? MediaTime.maximum(own, nominal) + nominal.multiplied(byRatio: 1, divisor: 2)
            : nominal.multiplied(by: 4)
        return time < held + span
    }

    /// One frame at the stream's average (else nominal) frame rate; 0.1 s when neither is known.
    var nominalFrameDuration: MediaTime {
        let rate = source.stream.averageFrameRate.num > 0 ? source.stream.averageFrameRate : source.stream.frameRate
        guard rate.num > 0, rate.den > 0 else { return MediaTime(value: 1, timescale: 10) }
        return MediaTime(value: Int64(rate.den), timescale: rate.num)
    }

    /// For an exact request: the ``FrameReader/Aim/drainBound`` that lets it drain the decoder once past its time only
    /// where the next request would seek anyway (see ``upcoming``): a packet presented before the next request's
    /// keyframe could still be where decoding on would pass, so nothing is left undecoded that the next one might use.
    func drainBound() -> Int64? {
        guard Demuxer.isMP4Family(source.facts.container), upcoming.isValid else { return nil }
        if upcoming.isPositiveInfinity { return .max }
        guard let keyframe = reader.source.indexedKeyframe(streamIndex: source.stream.index, atOrBefore: upcoming)
        else { return nil }
        return keyframe.pts(timeBase: decoder.timeBase, method: .roundTowardNegativeInfinity)
    }

    /// Whether reaching `time` from the current decode position is better done by seeking.
    func mustSeek(for time: MediaTime) -> Bool {
        if let held = last.time, time < held { return true }
        if case .ended = state { return last.time.map { time < $0 } ?? true }
        let position = peek.time ?? last.time ?? source.start
        if let keyframe = reader.source.indexedKeyframe(streamIndex: source.stream.index, atOrBefore: time) {
            return keyframe > position
        }
        return time - position > FrameExtractor.forwardDecodeLimit
    }
}
