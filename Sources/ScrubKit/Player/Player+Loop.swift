import MediaTime

/// A-B loops (mpv's `ab-loop-a`/`ab-loop-b`): while a range is set and the player plays, reaching its end goes back to
/// its start (an exact seek; the sound starts again there). Reaching the range's end is one of the times the player
/// wakes for, as an observer's boundary is.
extension Player {
    /// The section played over and over; nil (the default): none. A range that is not numeric or empty is none.
    public var loopRange: MediaTimeRange? {
        get { withCore { $0.loopRange } }
        set {
            withCore { c in
                if let r = newValue, r.start.isNumeric, r.end.isNumeric, r.end > r.start {
                    c.loopRange = r
                } else {
                    c.loopRange = nil
                }
                c.scheduleWake()
            }
        }
    }
}

extension PlayerCore {
    /// At `t` (playing), past the loop's end: back to its start. Whether it went back. (Under the player's lock.)
    func loopBackIfDue(_ t: MediaTime) -> Bool {
        guard let r = loopRange, rate > 0, !seeking, t >= r.end else { return false }
        // (Marked as seeking first: the seek brings the timeline up to date, which would come back here.)
        seeking = true
        startSeek(r.start, .zero, .zero, nil)   // (the sound starts again where it lands)
        return true
    }
}
