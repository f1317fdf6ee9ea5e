import CFFmpeg

/// What a complete MP4/MOV index tells before anything is read: where each sample lies, and which are keyframes.
/// Over HTTP this is what lets a picture cost its own bytes and nothing more (``expectReading(streamIndex:from:through:)``),
/// and lets a keyframe be known to be the last one at or before a time without reading the packet after it.
extension Demuxer {
    /// Whether `streamIndex`'s index lists every sample the file has, in decode times (an MP4/MOV whose sample
    /// tables are in its header: as many entries as frames). Fragmented MP4 (samples announced fragment by fragment),
    /// and formats whose index grows while reading, are not.
    public func hasCompleteIndex(streamIndex: Int) -> Bool {
        guard formatName.hasPrefix("mov,") else { return false }
        let st = stream(streamIndex)
        let frames = st.pointee.nb_frames
        return frames > 0 && Int64(avformat_index_get_entries_count(st)) == frames
    }

    /// The decode time (stream time base) of the first keyframe after `timestamp` in a complete index: `Int64.max`
    /// when there is none; nil when the index is not complete (nothing can be told without reading).
    /// A keyframe decoded after a time is also presented after it (MP4/MOV decode times never pass presentation times).
    public func completeIndexKeyframe(streamIndex: Int, after timestamp: Int64) -> Int64? {
        guard timestamp < Int64.max, hasCompleteIndex(streamIndex: streamIndex) else { return nil }
        guard let entry = avformat_index_get_entry_from_timestamp(stream(streamIndex), timestamp + 1, 0) else { return Int64.max }
        return entry.pointee.timestamp
    }

    /// Tells an HTTP source the exact bytes the next reads of `streamIndex` take, from a complete index: its samples
    /// from the keyframe at or before `from` through the last one decoded at or before `through` (stream time base).
    /// The range then asked for is exactly those bytes (interleaved samples of other streams included). Nothing
    /// for local files or without a complete index.
    public func expectReading(streamIndex: Int, from: Int64, through: Int64) {
        guard ranged != nil, hasCompleteIndex(streamIndex: streamIndex) else { return }
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
}
