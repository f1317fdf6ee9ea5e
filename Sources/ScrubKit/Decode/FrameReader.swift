import FFmpegBridge
import MediaTime

/// Feeds one stream's packets to its decoder and hands out frames in presentation order.
/// Owns the decoder and reads its packet source for its lifetime; confine to one task.
final class FrameReader {
    let source: PacketSource
    let decoder: Decoder
    private let frame: Frame
    private let packet: Packet
    private var draining = false
    /// Send only keyframes to the decoder (each decodes alone): a quick look over a whole file.
    var keyframesOnly = false
    /// Whether the stream has ended: the decoder gave out its last frame (until ``reset()``).
    private(set) var isFinished = false
    /// Where an exact request heads (stream time base): decoding may skip non-reference frames that cannot be the
    /// last frame at or before ``Aim/target`` (see `send`), and with a ``Aim/drainBound`` it stops and drains once
    /// past it.
    struct Aim: Equatable {
        /// The request's time.
        var target: Int64
        /// At the first packet decoded after the target (its decode time is past it, so it and everything after it
        /// can be neither the answer nor a picture the answer refers to) and presented before this bound (`.max`:
        /// any), stop reading and drain the decoder instead, so the frames it holds come out without decoding any
        /// more (the reorder delay would otherwise decode two or three pictures past the answer). The stream is then
        /// left past the target: ``reset()`` and seek before decoding on. nil: never. Only where decode times never
        /// pass presentation times (MP4/MOV).
        var drainBound: Int64? = nil
    }
    /// The exact request being decoded for; nil: decode everything (playback, keyframes).
    var aim: Aim? = nil
    private var skipTarget: Int64? { aim?.target }
    private var drainBound: Int64? { aim?.drainBound }
    /// The largest presentation timestamp ≤ the aim's target among packets sent with skipping off: a frame known to
    /// be decoded. Any packet presented before it cannot hold the answer.
    private var latestKeptTimestamp = Int64.min
    /// The largest presentation timestamp (a real pts, not a decode time) ≤ the aim's target among packets handed to
    /// the decoder to decode since the last seek: a frame that should come out. If the frame that comes out at or
    /// before the target is older, the frames in between were lost (damaged data).
    private(set) var latestDecodedPresentation = Int64.min
    /// Packets handed to the decoder (for tests of what is not decoded).
    private(set) var packetsSent = 0
    /// The decoder was drained that way since the last reset.
    private(set) var drainedEarly = false
    /// Reference pictures are to be (or were) left out since the last reset (``ReferenceSkipPlan``): the decoder's
    /// pictures past the answer are not right, so the stream must be reset and sought before decoding on.
    var leftReferencesOut = false
    /// Reference pictures left undecoded so far (for tests).
    var referencesSkipped = 0
    /// Whether an exact request may leave out reference pictures its answer does not need (``planAhead()``); off for
    /// `--no-fast-decode`, which decodes every picture as FFmpeg would.
    var skipsUnneededReferences = true
    /// With an aim's drain bound: the packets up to the one that drains, read ahead to plan which reference pictures
    /// need no decoding (``FrameReader/planAhead()``), each with whether it is left out; served before the source.
    var ahead: [(packet: Packet, skip: Bool)] = []
    var aheadServed = 0
    /// A plan was made (or found impossible) since the last reset.
    var planned = false
    /// Whether the packet being sent was planned to be left out.
    private var sendingSkipped = false

    init(source: PacketSource, decoder: Decoder) throws {
        self.source = source
        self.decoder = decoder
        frame = try Frame()
        packet = try Packet()
        source.discardAllStreams(except: decoder.streamIndex)
    }

    /// The next decoded frame (reused object: valid until the next call), or nil at the end of the stream or
    /// after `maxPackets` packets without a frame. A read error mid-file (truncation) ends the stream gracefully.
    func nextFrame(maxPackets: Int = .max) throws -> Frame? {
        var read = 0
        while true {
            switch try decoder.receive(into: frame) {
            case .frame: return frame
            case .finished: isFinished = true; return nil
            case .needsInput: break
            }
            if draining { return nil }
            if read >= maxPackets { return nil }
            let got: Bool
            do { got = try readPacket() } catch let gap as PacketGap { throw gap } catch { got = false }
            if !got {
                draining = true
                try decoder.send(nil)
                continue
            }
            guard packet.streamIndex == decoder.streamIndex else { continue }
            if keyframesOnly && !packet.isKeyframe { continue }
            if let bound = drainBound, let target = skipTarget, packet.dts != MediaTime.noTimestamp,
                packet.dts > target,
                packet.timestamp < bound
            {
                drainedEarly = true
                draining = true
                try decoder.send(nil)
                continue
            }
            read += 1
            packetsSent += 1
            try send(packet)
        }
    }

    /// Sends a packet, letting the decoder drop it if it is a non-reference frame presented before a frame that
    /// is surely decoded and still at or before the target — such a frame can never be the answer, and no other
    /// frame depends on it, so the exact result is unchanged — or if the plan left it out.
    private func send(_ packet: Packet) throws {
        let ts = packet.timestamp
        if sendingSkipped {
            decoder.skipping = .bidirectional
            referencesSkipped += 1
        } else if let target = skipTarget, ts != MediaTime.noTimestamp {
            let skippable = latestKeptTimestamp > ts
            decoder.skipping = skippable ? .nonReference : .none
            if !skippable && ts <= target {
                latestKeptTimestamp = max(latestKeptTimestamp, ts)
                if packet.pts != MediaTime.noTimestamp {
                    latestDecodedPresentation = max(latestDecodedPresentation, packet.pts)
                }
            }
        } else if decoder.skipping != .none {
            decoder.skipping = .none
        }
        try decoder.send(packet)
    }

    /// What ``keyframe(atOrBefore:acceptingLater:)`` found.
    enum KeyframeOutcome {
        /// The keyframe's picture (reused object: valid until the next call). Call ``reset()`` afterwards.
        /// `validThrough` (stream time base): the same keyframe is also the last one at or before every time from its
        /// own up to this one (the scan saw no other keyframe before it); `.max` at the end of the stream.
        case frame(Frame, validThrough: Int64)
        /// No keyframe after the seek point is presented at or before the target: the seek landed late (an
        /// unindexed format's timestamp search, a keyframe whose decode time is before the target but not its
        /// presentation time, or past the last keyframe). Seek earlier and ask again.
        case landedLate
        /// No keyframe at all, even accepting later ones.
        case none
    }

    /// After a seek: the last keyframe presented at or before `target` (stream time base). Packets are only read,
    /// not decoded, until one is decoded after the target (no later keyframe can then qualify); that keyframe is
    /// then sent alone and the decoder drained, so its picture comes out at once (H.264/HEVC would otherwise hold
    /// it for a GOP). With `acceptingLater`, the first keyframe is taken when none qualifies.
    func keyframe(
        atOrBefore target: Int64, acceptingLater: Bool = false, maxPackets: Int = 10_000
    ) throws -> KeyframeOutcome {
        let candidate = try Packet()
        var haveCandidate = false
        var read = 0
        // How far the candidate stays the answer: unknown (just the target) unless the scan proves more.
        var validThrough = target
        while read < maxPackets {
            let got: Bool
            do { got = try source.read(into: packet) } catch let gap as PacketGap { throw gap } catch { got = false }
            if !got { validThrough = .max; break }
            guard packet.streamIndex == decoder.streamIndex else { continue }
            read += 1
            let pts = packet.timestamp
            let dts = packet.dts != MediaTime.noTimestamp ? packet.dts : pts
            if packet.isKeyframe {
                if pts == MediaTime.noTimestamp {   // nothing to compare: the first keyframe after the seek
                    candidate.take(from: packet)
                    haveCandidate = true
                    break
                }
                if pts <= target {
                    candidate.take(from: packet)
                    haveCandidate = true
                    // The index may already prove that no later keyframe qualifies: then nothing more need be read
                    // (over HTTP, not a byte past this keyframe).
                    if let lasts = source.indexedKeyframeLasts(
                        streamIndex: decoder.streamIndex, keyframe: dts, target: target)
                    {
                        validThrough = lasts
                        break
                    }
                    continue
                }
                if haveCandidate { validThrough = pts - 1; break }
                if acceptingLater { candidate.take(from: packet); haveCandidate = true }
                break
            }
            // Decoded after the target: no later keyframe can be presented at or before it (nor before this decode
            // time: a later packet decodes later, and a picture is never presented before it is decoded).
            if dts != MediaTime.noTimestamp && dts > target && (haveCandidate || !acceptingLater) {
                validThrough = dts - 1; break
            }
        }
        guard haveCandidate else { return acceptingLater ? .none : .landedLate }
        try decoder.send(candidate)
        draining = true
        try decoder.send(nil)
        while true {
            switch try decoder.receive(into: frame) {
            case .frame: return .frame(frame, validThrough: max(validThrough, target))
            case .finished, .needsInput: return .none
            }
        }
    }

    /// Seeks to the keyframe at or before `time` (stream time base) and forgets decoder state.
    func seek(to time: MediaTime) throws {
        let ts = time.pts(timeBase: decoder.timeBase, method: .roundTowardNegativeInfinity) ?? 0
        if source.seeksKeyframesByScanning, try seekToKeyframeByScanning(ts) { reset(); return }
        try source.seek(streamIndex: decoder.streamIndex, timestamp: ts)
        // What is read next: the keyframe alone, or with a target everything decoded up to it.
        source.expectReading(streamIndex: decoder.streamIndex, from: ts, through: skipTarget ?? .min)
        reset()
    }

    /// The longest distance from a time back to its keyframe seen while scanning (stream time base): the next scan
    /// starts at least that far back.
    private var keyframeDistance: Int64 = 0

    /// MPEG-TS/PS: a timestamp seek lands on any packet near the time, usually inside a GOP (so the decoder wastes
    /// the frames up to the next keyframe, and an exact frame needs seeking back again). Instead: seek by timestamp to
    /// a little before, read packet headers forward (cheap: nothing decoded) to the last keyframe at or before the
    /// time, and seek to its byte position — decoding then starts on that keyframe. Backs off up to 32 s.
    private func seekToKeyframeByScanning(_ ts: Int64) throws -> Bool {
        let tb = decoder.timeBase
        guard tb.num > 0, tb.den > 0 else { return false }
        let second = Int64(tb.den) / Int64(tb.num)
        var back = max(second * 5 / 2, keyframeDistance * 5 / 4)
        while back <= 32 * second {
            let from = ts - back
            do { try source.seek(streamIndex: decoder.streamIndex, timestamp: from) } catch { return false }
            if let k = try source.lastKeyframe(streamIndex: decoder.streamIndex, atOrBefore: ts, maxPackets: 100_000) {
                keyframeDistance = max(keyframeDistance, ts - k.timestamp)
                do { try source.seek(bytePosition: k.position) } catch { return false }
                return true
            }
            back *= 2
        }
        return false
    }

    /// The next packet: read ahead, or from the source. With a target and a drain bound, first reads ahead to plan.
    private func readPacket() throws -> Bool {
        if !planned, skipTarget != nil, drainBound != nil {
            planned = true
            planAhead()
        }
        sendingSkipped = false
        if aheadServed < ahead.count {
            packet.take(from: ahead[aheadServed].packet)
            sendingSkipped = ahead[aheadServed].skip
            aheadServed += 1
            return true
        }
        return try source.read(into: packet)
    }

    /// Forgets decoder state (after a seek or a drain).
    func reset() {
        drainedEarly = false
        leftReferencesOut = false
        ahead = []
        aheadServed = 0
        planned = false
        decoder.flush()
        draining = false
        isFinished = false
        latestKeptTimestamp = .min
        latestDecodedPresentation = .min
    }
}
