import MediaTime

/// Which times of a file a batch takes.
public enum BatchTimes: Sendable, Equatable {
    /// N times evenly spread over the timeline, avoiding the very first and last frames: start + d·(i+1)/(N+1).
    case count(Int)
    /// start, start + T, start + 2T, … while before the end.
    case every(MediaTime)
    /// Exactly these.
    case at([TimeExpression])
    /// A thumbnail track for a web player's seek bar (`--vtt` without a plan): one thumbnail per interval at its
    /// middle, the interval ``trackInterval(duration:)`` long — ~2 s for short clips up to 10 s for films, longer
    /// only past ``trackLimit`` thumbnails.
    case track

    /// At most this many thumbnails in a track (10 sprites of 10×10).
    public static let trackLimit = 1000

    /// The interval between a track's thumbnails for a file lasting `duration`: a hundredth of it, between 2 and 10 s,
    /// but never more than ``trackLimit`` thumbnails.
    public static func trackInterval(duration: MediaTime) -> MediaTime {
        let d = duration.seconds
        let seconds = max(min(max(d / 100, 2), 10), d / Double(trackLimit))
        return MediaTime(seconds: seconds, preferredTimescale: 1000)
    }

    /// The times for a file whose timeline starts at `start` and lasts `duration` (invalid when unknown).
    /// Returns nil when the plan needs a known duration and there is none.
    public func times(start: MediaTime, duration: MediaTime) -> [TimeExpression]? {
        switch self {
        case .at(let list): return list
        case .count(let n):
            guard duration.isNumeric else { return nil }
            return (0..<max(0, n)).map { i in
                .absolute(start + duration.multiplied(byRatio: Int32(i + 1), divisor: Int32(n + 1)))
            }
        case .track:
            guard duration.isNumeric, duration > .zero else { return nil }
            let step = BatchTimes.trackInterval(duration: duration)
            let n = max(1, Int((duration.seconds / step.seconds).rounded(.up)))
            // (The last interval may be shorter: its thumbnail is at its own middle.)
            return (0..<n).map { i in
                let lo = step.multiplied(by: Int32(i)),
                    hi = MediaTime.minimum(step.multiplied(by: Int32(i + 1)), duration)
                return .absolute(start + lo + (hi - lo).multiplied(byRatio: 1, divisor: 2))
            }
        case .every(let step):
            guard duration.isNumeric, step.isNumeric, step > .zero else { return nil }
            var out: [TimeExpression] = []
            var t = MediaTime.zero
            while t < duration && out.count < 100_000 {
                out.append(.absolute(start + t))
                t = t + step
            }
            return out.isEmpty ? [.absolute(start)] : out
        }
    }
}
