import MediaTime

/// A chapter of a file (Matroska editions, MP4 chapter tracks, MP3's ID3 CHAP, OGG comments): where it starts and
/// ends on the timeline, and its title.
public struct Chapter: Sendable, Equatable {
    /// Where the chapter starts.
    public var start: MediaTime
    /// Where it ends (invalid when the container does not say).
    public var end: MediaTime
    /// Its title, when it has one.
    public var title: String?

    /// A chapter from `start` to `end` named `title`.
    public init(start: MediaTime, end: MediaTime, title: String?) {
        self.start = start
        self.end = end
        self.title = title
    }
}

extension Array where Element == Chapter {
    /// The chapter playing at `time`: the last one starting at or before it; nil before the first (or without
    /// chapters).
    public func index(at time: MediaTime) -> Int? {
        lastIndex { $0.start <= time }
    }

    /// Where a chapter jump from `time` lands, like mpv's PgUp/PgDn: forward, the next chapter's start (nil after the
    /// last); back, the start of the current chapter — or of the one before when `time` is within `threshold` of
    /// the current one's start (so pressing twice goes back two).
    public func jumpTarget(
        from time: MediaTime, forward: Bool, threshold: MediaTime = MediaTime(value: 5, timescale: 1)
    ) -> MediaTime? {
        guard !isEmpty else { return nil }
        if forward { return first { $0.start > time }?.start }
        guard let i = index(at: time) else { return nil }
        if time - self[i].start > threshold || i == 0 { return self[i].start }
        return self[i - 1].start
    }
}
