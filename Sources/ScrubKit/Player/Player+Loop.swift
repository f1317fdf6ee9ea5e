import MediaTime

/// A-B loops (mpv's `ab-loop-a`/`ab-loop-b`): while a range is set and the player plays, reaching its end goes back to
/// its start (an exact seek; the sound starts again there). Reaching the range's end is one of the times the player
/// wakes for, as an observer's boundary is.
extension Player {
    /// The section played over and over; nil (the default): none. A range that is not numeric or empty is none.
    public var loopRange: MediaTimeRange? {
        get { core.sync { _loopRange } }
        set {
            core.sync {
                if let r = newValue, r.start.isNumeric, r.end.isNumeric, r.end > r.start {
                    _loopRange = r
                } else {
                    _loopRange = nil
                }
                scheduleWake()
            }
        }
    }

    /// At `t` (playing), past the loop's end: back to its start. Whether it went back. (On `core`.)
    func loopBackIfDue(_ t: MediaTime) -> Bool {
        guard let r = _loopRange, _rate > 0, !seeking, t >= r.end else { return false }
        // (Marked as seeking first: the seek brings the timeline up to date, which would come back here.)
        seeking = true
        startSeek(r.start, .zero, .zero, nil)   // (the sound starts again where it lands)
        return true
    }
}
