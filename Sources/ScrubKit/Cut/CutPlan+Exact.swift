import FFmpegBridge
import Foundation
import MediaTime

/// A smart cut's first, partial group of pictures: from the asked start to the next keyframe, decoded and encoded
/// again (``HeadEncoder``), so the cut starts on the asked frame and everything after is copied.
struct SmartHead {
    let encoder: HeadEncoder
    /// The re-encoded pictures, in order, timed in the picture stream's time base.
    var packets: [Packet]
    /// The keyframe after them, where the copy of the pictures takes over; nil when they reach the end.
    let nextKeyframe: MediaTime?
    /// Where the last of them stops being shown (its time and duration).
    let end: MediaTime
    let streamIndex: Int
    let timeBase: (num: Int32, den: Int32)
    private(set) var written = false

    init(encoder: HeadEncoder, packets: [Packet], nextKeyframe: MediaTime?, end: MediaTime, stream: StreamFacts) {
        (self.encoder, self.packets, self.nextKeyframe, self.end) = (encoder, packets, nextKeyframe, end)
        (streamIndex, timeBase) = (stream.index, stream.timeBase)
    }

    /// Writes the pictures `shift` earlier, each decoded `delay` (the stream's time base) before it is shown, as the
    /// copied pictures after them are (so decode times keep rising across the join).
    mutating func write(into copier: StreamCopier, shiftedBy shift: MediaTime, delay: Int64) throws {
        guard !written else { return }
        written = true
        // (Each shown until the next; the last until the copied keyframe or its own end: an MP4 would cut it off.)
        let last = (nextKeyframe ?? end).pts(timeBase: timeBase, method: .roundHalfAwayFromZero)
        for (i, p) in packets.enumerated() {
            let until = i + 1 < packets.count ? packets[i + 1].pts : last
            p.setTimes(decode: p.pts - max(0, delay), stream: streamIndex, duration: until.map { $0 - p.pts })
            try copier.write(p, shiftedBy: shift)
        }
    }
}

extension CutPlan {
    /// Re-encodes the pictures from `from` up to the next keyframe (or the end) — the first being the one shown at
    /// `from`, from then on — reading from where ``startingKeyframe(demuxer:video:)`` left the demuxer; the failure
    /// says why it cannot, in a few words.
    func smartHead(video: StreamFacts, path: String) -> Result<SmartHead, SmartCutRefusal> {
        let demuxer = media.demuxer
        if let why = HeadEncoder.refusal(streamIndex: video.index, of: demuxer) {
            return .failure(SmartCutRefusal(why))
        }
        // Where the copy can take over: the first keyframe after the start that starts the stream afresh (an IDR, or
        // HEVC's CRA marked BLA); an open group's H.264 keyframes before it are re-encoded with the rest (nil: the
        // whole section is).
        let join: MediaTime?
        switch firstFreshStart(demuxer: demuxer, video: video) {
        case .at(let t): join = t
        case .sectionEnds: join = nil
        case .tooFar:
            return .failure(SmartCutRefusal("no picture within \(Int(CutPlan.longestHead.seconds)) s of the start where"
                                            + " the copy could take over (an open GOP without IDR pictures)"))
        }
        _ = startingKeyframe(demuxer: demuxer, video: video)
        do {
            let decoder = try StreamDecoder(
                demuxer, stream: video, path: path, threading: .frame(ProcessInfo.processInfo.activeProcessorCount))
            var encoder: HeadEncoder? = nil
            var packets: [Packet] = []
            var next: MediaTime? = nil
            var end = from
            // The picture shown at `from` may start before it: the last one before is kept until the next one shows.
            var pending: (frame: Frame, time: MediaTime, duration: Int64)? = nil
            func encode(_ frame: Frame, at t: MediaTime, duration: Int64) throws {
                if encoder == nil { encoder = try HeadEncoder(matching: video.index, of: demuxer, frame: frame) }
                guard let pts = t.pts(timeBase: video.timeBase, method: .roundHalfAwayFromZero) else { return }
                packets += try encoder!.encode(frame, pts: pts)
                end = MediaTime.maximum(end, t + MediaTime(pts: max(1, duration), timeBase: video.timeBase))
            }
            while let frame = try decoder.nextFrame() {
                let t = decoder.time(of: frame)
                guard t.isNumeric else { continue }
                if t < from {
                    let kept = try Frame()
                    let duration = frame.duration
                    kept.take(from: frame)
                    pending = (kept, t, duration)
                    continue
                }
                if let p = pending, t > from {
                    try encode(
                        p.frame, at: from,
                        duration: p.duration
                            - ((from - p.time).pts(timeBase: video.timeBase, method: .roundHalfAwayFromZero) ?? 0))
                }
                pending = nil
                if t >= to { break }
                if let join, t >= join { next = t; break }
                try encode(frame, at: t, duration: frame.duration)
            }
            // (the last picture of the file)
            if let p = pending { try encode(p.frame, at: from, duration: p.duration) }
            guard let encoder else { return .failure(SmartCutRefusal("no picture decodes at the start")) }
            packets += try encoder.encode(nil)
            for p in packets { p.setTimes(decode: p.pts, stream: video.index) }
            return .success(SmartHead(encoder: encoder, packets: packets, nextKeyframe: next, end: end, stream: video))
        } catch {
            return .failure(SmartCutRefusal("re-encoding failed (\(error))"))
        }
    }
}

extension CutPlan {
    /// The most a smart cut re-encodes looking for where the copy can take over: past it, the cut is refused.
    static let longestHead = MediaTime(value: 30, timescale: 1)

    /// Where the copy can take over from re-encoded pictures.
    enum Join {
        /// At the picture of this time (``RandomAccessPoint/fresh``, or an HEVC CRA).
        case at(MediaTime)
        /// Nowhere before the section ends: all of it is re-encoded.
        case sectionEnds
        /// Nowhere within ``longestHead`` of the start, and the section goes on.
        case tooFar
    }

    /// The first picture after `from` where a copy can follow re-encoded pictures, reading from where the demuxer is.
    func firstFreshStart(demuxer: Demuxer, video: StreamFacts) -> Join {
        guard let packet = try? Packet() else { return .sectionEnds }
        while (try? demuxer.read(into: packet)) == true {
            guard packet.streamIndex == video.index else { continue }
            let stamp = packet.timestamp
            let decode = packet.dts != MediaTime.noTimestamp ? packet.dts : stamp
            guard stamp != MediaTime.noTimestamp else { continue }
            let decodedAt = MediaTime(pts: decode, timeBase: video.timeBase)
            if decodedAt >= to { return .sectionEnds }
            if decodedAt > from + CutPlan.longestHead { return .tooFar }
            let t = MediaTime(pts: stamp, timeBase: video.timeBase)
            // (HEVC's CRA joins too, marked BLA by HeadEncoder.preparingJoin; H.264 has no such mark for an I picture.)
            let kind = RandomAccessPoint.of(packet, streamIndex: video.index, in: demuxer)
            if t > from, kind == .fresh || (kind == .open && video.codecName == "hevc") { return .at(t) }
        }
        return .sectionEnds
    }
}

/// Why a smart cut could not be made, in a few words.
struct SmartCutRefusal: Error, CustomStringConvertible {
    let description: String
    init(_ why: String) { description = why }
}
