import MediaTime

/// Keyboard and bar scrubbing — the seek policy a front end would otherwise write for itself, in the player, on its
/// clock: keys jump loosely (keyframes, coalesced while they repeat) and the place is made exact once they rest; an
/// absolute place (a digit, Home, End) is always made exact ("50 %" means 50 %, as mpv's precise absolute seeks); media
/// of unknown length (raw streams, live) is sought by time over what has been seen so far.
extension Player {
    /// How long keys must rest before a jump is made exact.
    public static let settleDelay = 0.2

    /// A jump by `seconds` from the current time (←/→, ↑/↓): loose at once and, when `exact`, exact once the
    /// keys rest for ``settleDelay``.
    public func jump(by seconds: Double, exact: Bool) {
        withCore { c in
            guard let info = c.info else { return }
            let start = info.start.isNumeric ? info.start : .zero
            let target = c.now() + MediaTime(seconds: seconds, preferredTimescale: 1000)
            guard info.duration.isNumeric, info.duration > .zero else {
                // Unknown length: by time, from the start on.
                c.scrubbing.settle = nil
                let tolerance: MediaTime = exact ? .zero : .positiveInfinity
                c.startSeek(MediaTime.maximum(target, start), tolerance, tolerance, nil)
                return
            }
            c.scrubLoosely(toFraction: (target - start).fraction(of: info.duration), exactAfter: exact)
        }
    }

    /// A jump to `fraction` of the bar (0–9, Home, End; the end of a drag on media of unknown length): loose at once,
    /// exact once the keys rest.
    public func jump(toFraction fraction: Double) {
        withCore { c in
            guard let info = c.info else { return }
            guard info.duration.isNumeric else {
                // Unknown length: a fraction of what has been seen, exactly.
                c.scrubbing.settle = nil
                let span = c.seekableSpanNow()
                guard span.isNumeric, span > .zero else { return }
                let start = info.start.isNumeric ? info.start : .zero
                c.startSeek(
                    start + MediaTime(seconds: span.seconds * fraction, preferredTimescale: 1000), .zero, .zero, nil)
                return
            }
            c.scrubLoosely(toFraction: fraction, exactAfter: true)
        }
    }

    /// Forgets a jump still waiting to be made exact (a frame step, a chapter or the mouse took over).
    public func cancelSettle() { withCore { $0.scrubbing.settle = nil } }

    /// The bar's extent: the duration, or for media of unknown length the part seen so far.
    public var seekableSpan: MediaTime { withCore { $0.seekableSpanNow() } }

    /// Everything a front end draws, read at one instant: the picture and the bar never come from different times.
    /// With `takingFrame`, the newest decoded frame at or before that time is taken (``frameForDisplay()``).
    public func snapshot(takingFrame: Bool) -> PlayerSnapshot {
        withCore { c in
            let t = c.now()
            let start = c.info?.start ?? .zero
            return PlayerSnapshot(
                time: t, start: start, duration: c.info?.duration ?? .indefinite, seekableSpan: c.seekableSpanNow(),
                rate: c.rate, isSeeking: c.seeking, frame: takingFrame ? pipeline.takeFrame(atOrBefore: t) : nil)
        }
    }

}

/// The scrubbing rules (under the player's lock).
extension PlayerCore {
    func scrubLoosely(toFraction fraction: Double, exactAfter: Bool) {
        sliderSeek(fraction, true)
        scrubbing.settle = exactAfter ? (fraction, clock.now() + Player.settleDelay) : nil
        scheduleWake()
    }

    /// Makes the last jump exact once the keys have rested (called by the clock's wake-up and on every read of the
    /// time).
    func settleIfDue() {
        guard let s = scrubbing.settle, clock.now() >= s.at else { return }
        scrubbing.settle = nil
        sliderSeek(s.fraction, false)
    }

    /// A slider seek, coalesced: at most one in flight, newer positions wait as one chase target.
    func sliderSeek(_ fraction: Double, _ dragging: Bool) {
        guard case .readyToPlay = status, let info, info.duration.isNumeric else {
            pendingFraction = (fraction, dragging)   // applied when the duration is known
            return
        }
        let range = MediaTimeRange(start: info.start.isNumeric ? info.start : .zero, duration: info.duration)
        let t = MediaTime.time(atFraction: fraction, of: range)
        guard t.isValid else { return }
        let (before, after): (MediaTime, MediaTime) = dragging ? (.positiveInfinity, .positiveInfinity) : (.zero, .zero)
        if sliderSeekInFlight {
            chase = (t, before, after)
            return
        }
        issueSliderSeek(t, before, after)
    }

    func issueSliderSeek(_ t: MediaTime, _ before: MediaTime, _ after: MediaTime) {
        sliderSeekInFlight = true
        startSeek(t, before, after, nil, internal: { [unowned self] landed in
            // Under the lock: the running slider seek ended. Landed: go to the chase target. Replaced by
            // another seek: that seek wins, the stale chase is dropped.
            self.sliderSeekInFlight = false
            guard landed else { self.chase = nil; return }
            if let c = self.chase {
                self.chase = nil
                self.issueSliderSeek(c.time, c.before, c.after)
            }
        })
    }

    func seekableSpanNow() -> MediaTime {
        if let d = info?.duration, d.isNumeric { return d }
        let start = info?.start ?? .zero
        return scrubbing.seenEnd.isNumeric ? scrubbing.seenEnd - (start.isNumeric ? start : .zero) : .invalid
    }
}

/// What the player's keyboard scrubbing keeps between calls.
struct ScrubbingState {
    /// The fraction a loose jump went to, and when (on the player's clock) it is made exact.
    var settle: (fraction: Double, at: Double)? = nil
    /// The latest time seen: the bar's extent for media of unknown length.
    var seenEnd = MediaTime.invalid
}

/// The player at one instant, for drawing.
public struct PlayerSnapshot: Sendable {
    /// The current time.
    public var time: MediaTime
    /// The media's first presentation time.
    public var start: MediaTime
    /// The length; indefinite when unknown.
    public var duration: MediaTime
    /// The bar's extent (``Player/seekableSpan``).
    public var seekableSpan: MediaTime
    /// The rate (0: paused).
    public var rate: Double
    /// Whether a seek is in flight.
    public var isSeeking: Bool
    /// The picture for `time`, when one was taken and a new one was there.
    public var frame: VideoFrame?

    /// Where `time` is on the bar, 0…1 (0 when the span is unknown).
    public var fraction: Double {
        guard seekableSpan.isNumeric, seekableSpan > .zero, time.isNumeric else { return 0 }
        return max(0, min(1, (time - start).fraction(of: seekableSpan)))
    }
}
