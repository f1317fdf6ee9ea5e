import MediaTime

/// One chapter as the container states it: Swift values only.
public struct ChapterFacts: Sendable, Equatable {
    /// Where the chapter starts on the container's timeline.
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
