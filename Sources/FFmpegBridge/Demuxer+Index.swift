import CFFmpeg
import MediaTime

/// What an MP4/MOV index tells before anything is read: where each sample lies, how big it is, and which are
/// keyframes (every sample when the header has the sample tables; the fragments read so far when it is fragmented).
/// Over HTTP this is what lets a picture cost its own bytes and nothing more
/// (``expectReading(streamIndex:from:through:)``),
/// and lets a keyframe be known to be the last one at or before a time without reading the packet after it
/// (``indexedKeyframeLasts(streamIndex:keyframe:target:)``).
extension Demuxer {
    /// Whether `streamIndex`'s index lists every sample the file has, in decode times (an MP4/MOV whose sample
    /// tables are in its header: as many entries as frames). Fragmented MP4 (samples announced fragment by fragment),
    /// and formats whose index grows while reading, are not.
    func hasCompleteIndex(streamIndex: Int) -> Bool {
        guard isMP4Family else { return false }
        let st = stream(streamIndex)
        let frames = st.pointee.nb_frames
        return frames > 0 && Int64(avformat_index_get_entries_count(st)) == frames
    }

    /// From the index alone: how far the keyframe decoded at `keyframe` (stream time base) stays the last keyframe at
    /// or before a time — at least through `target`, or nil when the index cannot tell (then packets must be read).
    /// A complete index names the next keyframe (`Int64.max`: none, the end of the stream). Otherwise (a fragmented
    /// file's index holds the fragments read so far) the samples after it are followed while each lies right after the
    /// one before in the file (the same run: nothing missing between them) to one decoded after `target` with no
    /// keyframe before it. A keyframe decoded after a time is also presented after it (MP4/MOV decode times never
    /// pass presentation times).
    public func indexedKeyframeLasts(streamIndex: Int, keyframe: Int64, target: Int64) -> Int64? {
        guard isMP4Family, keyframe < target else { return nil }
        let st = stream(streamIndex)
        if hasCompleteIndex(streamIndex: streamIndex) {
            guard let next = avformat_index_get_entry_from_timestamp(st, keyframe + 1, 0) else { return Int64.max }
            return next.pointee.timestamp > target ? next.pointee.timestamp - 1 : nil
        }
        var i = av_index_search_timestamp(st, keyframe, AVSEEK_FLAG_BACKWARD | AVSEEK_FLAG_ANY)
        guard i >= 0, var previous = avformat_index_get_entry(st, i), previous.pointee.timestamp == keyframe else {
            return nil
        }
        let count = avformat_index_get_entries_count(st)
        while i + 1 < count, let e = avformat_index_get_entry(st, i + 1),
            e.pointee.pos == previous.pointee.pos + Int64(previous.pointee.size)
        {
            if e.pointee.timestamp > target { return e.pointee.timestamp - 1 }
            if e.pointee.flags & AVINDEX_KEYFRAME != 0 { return nil }
            previous = e
            i += 1
        }
        return nil
    }

    /// Tells an HTTP source the exact bytes the next reads of `streamIndex` take, from the MP4/MOV index: its samples
    /// from the keyframe at or before `from` through the last one decoded at or before `through` (stream time base).
    /// The range then asked for is exactly those bytes (interleaved samples of other streams included). Nothing
    /// for local files or other formats.
    public func expectReading(streamIndex: Int, from: Int64, through: Int64) {
        // (A fragmented file's index holds the fragments read so far: the one just sought to is among them.)
        guard ranged != nil, isMP4Family else { return }
        let st = stream(streamIndex)
        let first = av_index_search_timestamp(st, from, AVSEEK_FLAG_BACKWARD)
        guard first >= 0, let keyframe = avformat_index_get_entry(st, first) else { return }
        var end = keyframe.pointee.pos + Int64(keyframe.pointee.size)
        var i = first + 1
        let count = avformat_index_get_entries_count(st)
        while i < count, i - first < 4096, let e = avformat_index_get_entry(st, i), e.pointee.timestamp <= through {
            end = max(end, e.pointee.pos + Int64(e.pointee.size))
            i += 1
        }
        scrub_ranged_expect(ranged, keyframe.pointee.pos, end)
    }

    /// A fragmented MP4 over HTTP, opened without probing: its header does not say when the first picture is shown
    /// (a start FFmpeg's probe learns from the first ~20 frames). The first packets say it: the smallest presentation
    /// time among those decoded before the first keyframe is shown (no later packet can be shown before it), their
    /// bytes asked for exactly from the fragment's index — for H.264 the keyframe alone (an MP4 sync sample is an IDR
    /// picture, which nothing after it is shown before). Then back to the start. Nothing for other files.
    func learnFragmentedStart() {
        for v in fragmentedVideoStreams {
            let st = stream(v)
            guard st.pointee.start_time == MediaTime.noTimestamp, let first = avformat_index_get_entry(st, 0),
                  let packet = try? Packet() else { continue }
            lookingAhead(rewinding: v) {
                discardAllStreams(except: v)
                var shown = Int64.max, earliest = Int64.max
                var sample = first
                for i in 1...16 {
                    scrub_ranged_expect(ranged, sample.pointee.pos, sample.pointee.pos + Int64(sample.pointee.size))
                    guard (try? read(into: packet)) == true, packet.streamIndex == v else { break }
                    let pts = packet.timestamp
                    guard pts != MediaTime.noTimestamp else { break }
                    if shown == .max { shown = pts }
                    earliest = min(earliest, pts)
                    // The next sample decodes at or after the keyframe's time: it and all after it are shown later.
                    guard st.pointee.codecpar.pointee.codec_id != AV_CODEC_ID_H264,
                        let next = avformat_index_get_entry(st, Int32(i)), next.pointee.timestamp < shown
                    else { break }
                    sample = next
                }
                if earliest != .max { st.pointee.start_time = earliest }
            }
        }
    }

    /// A fragmented MP4 over HTTP opened through its fragment index ('mfra'): FFmpeg has read the first fragment's
    /// header only, and takes the file to end where that fragment does. The length is what the last fragments say:
    /// the last one the index lists is sought (its header read), then the headers after it up to the end are walked
    /// with every stream discarded (no sample read) — fragments that do not start with a keyframe are not in the
    /// index.
    /// Then back to the start. Nothing for other files.
    func learnFragmentedLength() {
        guard let v = fragmentedVideoStreams.first else { return }
        let count = Int(context.pointee.nb_streams)
        lookingAhead(rewinding: v) {
            armDeadline()
            guard av_seek_frame(context, -1, Int64.max / 4, AVSEEK_FLAG_BACKWARD) >= 0, let packet = try? Packet()
            else { return }
            for i in 0..<count { stream(i).pointee.discard = AVDISCARD_ALL }
            hasRead = true
            while (try? read(into: packet)) == true {}   // (every sample discarded: only fragment headers are read)
            var end = context.pointee.duration == MediaTime.noTimestamp ? 0 : context.pointee.duration
            for i in 0..<count {
                let st = stream(i)
                guard st.pointee.duration > 0, st.pointee.duration != MediaTime.noTimestamp else { continue }
                end = max(
                    end, av_rescale_q(st.pointee.duration, st.pointee.time_base, AVRational(num: 1, den: AV_TIME_BASE)))
            }
            if end > 0 { context.pointee.duration = end }
        }
    }

    /// The video streams of a fragmented MP4 over HTTP: their header lists no sample (the fragments do), and the
    /// fragments read so far are indexed. None for any other file.
    private var fragmentedVideoStreams: [Int] {
        guard ranged != nil, isMP4Family else { return [] }
        return (0..<Int(context.pointee.nb_streams)).filter {
            let st = stream($0)
            return st.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO && st.pointee.nb_frames == 0
                && avformat_index_get_entries_count(st) > 0
        }
    }

    /// Runs `body`, a look ahead before anything is read for the caller, then puts every stream's discard setting
    /// back and rewinds stream `v`: the demuxer is left as it was found.
    private func lookingAhead(rewinding v: Int, _ body: () -> Void) {
        let keep = (0..<Int(context.pointee.nb_streams)).map { stream($0).pointee.discard }
        defer {
            for (i, d) in keep.enumerated() { stream(i).pointee.discard = d }
            rewind(streamIndex: v)
        }
        body()
    }
}
