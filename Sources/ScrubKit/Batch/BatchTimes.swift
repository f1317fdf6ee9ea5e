import MediaTime

/// Which times of a file a batch takes.
public enum BatchTimes: Sendable, Equatable {
    /// N times evenly spread over the timeline, avoiding the very first and last frames: start + d·(i+1)/(N+1).
    case count(Int)
    /// start, start + T, start + 2T, … while before the end.
    case every(MediaTime)
    /// Exactly these.
    case at([TimeExpression])

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
