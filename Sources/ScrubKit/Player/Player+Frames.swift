/// The pictures: what to show now, at what size (the pipeline decodes them; the player's clock picks them).
extension Player {
    /// The newest decoded frame for the current time, or nil when there is nothing new to show.
    public func frameForDisplay() -> VideoFrame? {
        let t = currentTime
        return pipeline.takeFrame(atOrBefore: t)
    }

    /// Sets the exact size frames are delivered at (the picture's display area in pixels, upright, aspect already
    /// fitted by the caller); frames already queued keep the size they were made at.
    public func setVideoOutputSize(width: Int, height: Int) { pipeline.setOutputSize(width: width, height: height) }

    /// Frames shown and dropped (late) so far.
    public var frameStatistics: (shown: Int, dropped: Int) { pipeline.frameStatistics }
}
