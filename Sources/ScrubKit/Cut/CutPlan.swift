import FFmpegBridge
import Foundation
import MediaTime

/// One lossless cut being written: which streams go, where the copy starts (the picture's keyframe at or before the
/// asked start), and which packets of each stream fall in the section.
struct CutPlan {
    let media: OpenedMedia
    let from: MediaTime
    let to: MediaTime
    let output: String
    /// Re-encode the first partial group so the cut starts on `from` (CutPlan+Exact.swift).
    var exact = false

    /// What happens to each packet of a stream, in decode order.
    private struct StreamCut {
        let kind: StreamFacts.Kind
        let timeBase: (num: Int32, den: Int32)
        /// Pictures after the end in presentation but before it in decode order: written only if a picture before the
        /// end follows them (they are its references), dropped at the end.
        var held: [Packet] = []
        var started = false
        var done = false
    }

    /// Writes the cut and says what it wrote.
    func write(path: String) throws -> LosslessCut.Result {
        let demuxer = media.demuxer, facts = media.facts
        var notes: [String] = []
        var copied: [Int] = []
        for s in facts.streams where s.index != facts.coverPicture?.index {
            guard [.video, .audio, .subtitle].contains(s.kind) else {
                notes.append("stream \(s.index) (\(s.kind.rawValue)) left out"); continue
            }
            // (Where the muxer cannot say, a picture or sound is tried; a subtitle goes only where it is known to.)
            guard StreamCopier.container(named: output, holds: s.index, of: demuxer) ?? (s.kind != .subtitle) else {
                notes.append(
                    "stream \(s.index) (\(s.kind.rawValue), \(s.codecName)) left out: a "
                        + ".\(URL(fileURLWithPath: output).pathExtension) file cannot hold it"
                )
                continue
            }
            copied.append(s.index)
        }
        guard !copied.isEmpty else {
            throw MediaError(
                .unsupported, path: path,
                "has no stream a .\(URL(fileURLWithPath: output).pathExtension) file can hold; another container may, "
                    + "such as .mkv"
            )
        }
        // (Only the copied streams are read, every packet of them: opening may have left keyframes-only reading on.)
        demuxer.discardAllStreams(except: Set(copied))
        if let v = facts.video, copied.contains(v.index), v.reorders,
            keyframeLacksPresentationTime(demuxer: demuxer, video: v)
        {
            throw MediaError(
                .unsupported, path: path,
                "its pictures are reordered (B-pictures) and carry no presentation"
                    + " times (as AVI keeps them): where a copy starts cannot be said exactly; remux it first"
                    + " (ffmpeg -fflags +genpts -i IN -c copy OUT.mkv)")
        }
        var start = startingKeyframe(demuxer: demuxer, video: facts.video)
        // A smart cut: the pictures from `from` to the next keyframe re-encoded, the rest copied, all from `from`.
        var head: SmartHead? = nil
        if exact, start < from, let video = facts.video, copied.contains(video.index) {
            switch smartHead(video: video, path: path) {
            case .success(let h): head = h; start = from
            case .failure(let why):
                notes.append("--exact: \(why); the cut starts on the keyframe at \(start.formatted(fractionDigits: 3))")
            }
            // (Back where the copy reads from, every copied stream read again: the decoder let only its own through.)
            demuxer.discardAllStreams(except: Set(copied))
            _ = startingKeyframe(demuxer: demuxer, video: facts.video)
        }
        let chapters = facts.chapters.compactMap { c -> (start: MediaTime, end: MediaTime, title: String?)? in
            let cEnd = c.end.isNumeric ? c.end : to
            guard c.start < to, cEnd > start else { return nil }
            return (MediaTime.maximum(c.start, start) - start, MediaTime.minimum(cEnd, to) - start, c.title)
        }
        let file = TemporaryOutput(output)
        let ext = URL(fileURLWithPath: output).pathExtension
        do {
            let copier = try StreamCopier(
                path: file.temporary!, named: output, streams: copied, from: demuxer, chapters: chapters)
            var written = try copy(
                demuxer: demuxer, streams: copied, facts: facts, into: copier, start: start, head: head)
            written += head?.packets.count ?? 0
            guard written > 0 else {
                let section = "\(from.formatted(fractionDigits: 3)) and \(to.formatted(fractionDigits: 3))"
                throw MediaError(.corrupt, path: path, "nothing to copy between \(section)")
            }
            try copier.finish()
            try file.commit()
        } catch let e as MediaError {
            throw e
        } catch let e as FFmpegError where e.operation == "open" {
            throw MediaError(.writeFailed, path: output, "cannot be created (\(e.message))")
        } catch let e as FFmpegError {
            let other = ext.lowercased() == "mkv" ? "" : "; another container may, such as .mkv"
            throw MediaError(
                .writeFailed, path: output,
                "a .\(ext) file cannot take these streams as they are (FFmpeg: \(e))\(other)")
        } catch {
            throw MediaError(.writeFailed, path: output, "\(error)")
        }
        var result = LosslessCut.Result(output: output, start: start, end: to, requestedStart: from,
                                        streams: copied.count,
                                        chapters: chapters.count, notes: notes)
        if let head { result.reencoded = MediaTime.minimum(head.nextKeyframe ?? head.end, to) - from }
        return result
    }

    /// The picture's keyframe at or before the start: the last one read before the start after a backward seek
    /// (which lands on a keyframe at or before it, or earlier where the index is coarse), going further back while
    /// there is none; without a picture, the start itself. The demuxer is left where that reading began.
    func startingKeyframe(demuxer: Demuxer, video: StreamFacts?) -> MediaTime {
        guard let v = video else {
            seek(demuxer, to: from, stream: nil)
            return from
        }
        let origin = media.facts.start.isNumeric ? media.facts.start : .zero
        var back = 0.0
        while true {
            let at = from - MediaTime(seconds: back, preferredTimescale: 1000)
            if at > origin { seek(demuxer, to: at, stream: v) } else { demuxer.rewind() }
            if let k = lastKeyframe(demuxer: demuxer, video: v) {
                // (Back to where it was found: a seek to the keyframe's own time may land past it, as MPEG-TS's do.)
                if at > origin { seek(demuxer, to: at, stream: v) } else { demuxer.rewind() }
                return k
            }
            // (Before the first keyframe: the copy starts at the first one.)
            if at <= origin { demuxer.rewind(); return from }
            back = back == 0 ? 2 : back * 2
        }
    }

    /// The last keyframe of `video` at or before the start, reading on from where the demuxer is until its pictures
    /// are past the start; nil when none is.
    private func lastKeyframe(demuxer: Demuxer, video: StreamFacts) -> MediaTime? {
        guard let packet = try? Packet() else { return nil }
        var found: MediaTime? = nil
        while (try? demuxer.read(into: packet)) == true {
            // (Presentation time, else decode time: an AVI's pictures have only the latter.)
            let stamp = packet.timestamp
            guard packet.streamIndex == video.index, stamp != MediaTime.noTimestamp else { continue }
            let t = MediaTime(pts: stamp, timeBase: video.timeBase)
            // (Only where decoding can start: an intra-refresh recovery point is flagged but shows nothing whole.)
            if packet.isKeyframe, t <= from,
               RandomAccessPoint.of(packet, streamIndex: video.index, in: demuxer) != .none {
                found = t
            }
            // (A keyframe past the start, or a decode time past it: nothing later is shown before it.)
            let decode = packet.dts != MediaTime.noTimestamp ? MediaTime(pts: packet.dts, timeBase: video.timeBase) : t
            if (packet.isKeyframe && t > from) || decode > from { break }
        }
        return found
    }

    /// Whether the first keyframe of `video` has no presentation time (only a decode time: AVI's way); the demuxer is
    /// left at the start.
    private func keyframeLacksPresentationTime(demuxer: Demuxer, video: StreamFacts) -> Bool {
        defer { demuxer.rewind() }
        demuxer.rewind()
        guard let packet = try? Packet() else { return false }
        while (try? demuxer.read(into: packet)) == true {
            if packet.streamIndex == video.index && packet.isKeyframe { return packet.pts == MediaTime.noTimestamp }
        }
        return false
    }

    private func seek(_ demuxer: Demuxer, to time: MediaTime, stream: StreamFacts?) {
        let index = stream?.index ?? media.facts.streams.first?.index ?? 0
        let base = media.facts.streams.first { $0.index == index }?.timeBase ?? (1, 1_000_000)
        guard let ts = time.pts(timeBase: base, method: .roundTowardNegativeInfinity),
              (try? demuxer.seek(streamIndex: index, timestamp: ts)) != nil else { demuxer.rewind(); return }
    }

    /// Reads from where the demuxer is and writes each copied stream's packets in the section, shifted so the copy
    /// starts at 0, until every stream is past the end. With a smart cut's `head`, its pictures go first and the
    /// picture's packets are copied from the keyframe after them. Returns how many packets it copied.
    private func copy(demuxer: Demuxer, streams: [Int], facts: MediaFacts, into copier: StreamCopier, start: MediaTime,
                      head: SmartHead?) throws -> Int {
        var head = head
        // (The copied pictures start at the keyframe after the re-encoded ones; with none before the end, none are.)
        let videoStart = head.map { $0.nextKeyframe ?? .positiveInfinity } ?? start
        var written = 0
        var cuts: [Int: StreamCut] = [:]
        for s in facts.streams where streams.contains(s.index) {
            cuts[s.index] = StreamCut(kind: s.kind, timeBase: s.timeBase)
        }
        let videoIndex = facts.video.flatMap { streams.contains($0.index) ? $0.index : nil }
        var packet = try Packet()
        while cuts.values.contains(where: { !$0.done }), try demuxer.read(into: packet) {
            // (Writing empties the packet, its stream number too: it is noted first.)
            let index = packet.streamIndex
            guard var cut = cuts[index], !cut.done else { continue }
            let time = MediaTime(
                pts: packet.timestamp, timeBase: cut.timeBase)
            let decode = MediaTime(
                pts: packet.dts != MediaTime.noTimestamp ? packet.dts : packet.pts, timeBase: cut.timeBase)
            guard time.isNumeric else { continue }
            if index == videoIndex {
                // Pictures from the starting keyframe on; after the end (in decode order) nothing more.
                // (Pictures shown before the start that follow the keyframe in decode order, an open group's leading
                // pictures, refer to the group before: they are left out.)
                if !cut.started {
                    // (none to copy: the head was all)
                    if decode >= to { cut.done = true; cuts[index] = cut; continue }
                    guard packet.isKeyframe, time >= videoStart,
                          RandomAccessPoint.of(packet, streamIndex: index, in: demuxer) != .none else { continue }
                    cut.started = true
                    if var h = head {
                        // The re-encoded pictures first, decoded as far ahead of their times as the copy's are.
                        try h.write(
                            into: copier, shiftedBy: start,
                            delay: packet.pts != MediaTime.noTimestamp && packet.dts != MediaTime.noTimestamp
                                ? packet.pts - packet.dts : 0)
                        try h.encoder.preparingJoin(at: packet)
                        head = h
                    }
                }
                guard time >= videoStart else { continue }
                if decode >= to { cut.done = true; cut.held.removeAll() }
                else if time >= to { cut.held.append(packet); packet = try Packet() }
                else {
                    for h in cut.held { try copier.write(h, shiftedBy: start) }
                    written += cut.held.count + 1
                    cut.held.removeAll()
                    try copier.write(packet, shiftedBy: start)
                }
            } else {
                // Sound and subtitles from the start on (nothing before it: the copy's timeline starts at 0).
                if time >= to { cut.done = true }
                else if time >= start {
                    try copier.write(packet, shiftedBy: start, endingBy: cut.kind == .subtitle ? to : nil)
                    written += 1
                }
            }
            cuts[index] = cut
        }
        // (No keyframe after the re-encoded pictures before the end: they are the whole picture.)
        if var h = head, !h.written { try h.write(into: copier, shiftedBy: start, delay: 0) }
        return written
    }
}
