import Foundation
import Locking

/// The one clock of ScrubKit and its front end: monotonic seconds, and a wake-up at a given time. Whatever measures or
/// paces by time — the player and its chains, browse's notices and pacing, a renderer's throttle, a progress bar,
/// a benchmark, a URL's retry deadline — holds one (``SystemClock`` unless a test injects a ``ManualClock``) instead of
/// reading the time itself: `tools/house-check` fails on a direct read elsewhere.
public protocol MediaClock: AnyObject, Sendable {
    /// Monotonic seconds since an arbitrary origin.
    func now() -> Double
    /// Asks for `wake` to be called at (or soon after) host time `at`; a later request replaces an earlier one.
    func schedule(at: Double, _ wake: @escaping @Sendable () -> Void)
}

/// Real time: `CLOCK_MONOTONIC`, wake-ups from a dispatch timer.
public final class SystemClock: MediaClock, Sendable {
    /// The queue every system clock's wake-ups run on (one for all: a clock costs nothing to make).
    private static let queue = DispatchQueue(label: "scrubkit.clock")
    /// The pending wake-up's timer.
    private let timer = Locked<DispatchSourceTimer?>(nil)

    /// The monotonic clock.
    public init() {}

    /// Seconds of `CLOCK_MONOTONIC`.
    public func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Runs `wake` at `time` (at least 2 ms from now), replacing any pending wake-up.
    public func schedule(at time: Double, _ wake: @escaping @Sendable () -> Void) {
        // wake-ups at most every 2 ms, whatever is asked
        let delay = max(0.002, time - now())
        let t = DispatchSource.makeTimerSource(queue: Self.queue)
        t.schedule(deadline: .now() + delay, leeway: .milliseconds(1))
        t.setEventHandler(handler: wake)
        timer.withLock { old in
            old?.cancel()
            old = t
        }
        t.resume()
    }

    deinit { timer.withLock { $0?.cancel() } }
}

/// A clock that moves only when told: `advance(by:)` runs due wake-ups synchronously, so tests are exact.
public final class ManualClock: MediaClock {
    private struct State {
        var time: Double
        var wake: (at: Double, run: @Sendable () -> Void)?
    }
    private let state: Locked<State>

    /// A clock standing at `start` seconds.
    public init(start: Double = 0) { state = Locked(State(time: start, wake: nil)) }

    /// The time it was set or advanced to.
    public func now() -> Double { state.withLock { $0.time } }

    /// Keeps `wake` (replacing any pending one) for ``advance(by:)`` to run when `time` is reached.
    public func schedule(at time: Double, _ wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.wake = (time, wake) }
    }

    /// Moves time forward, firing the scheduled wake-up each time it falls due (it may schedule the next).
    public func advance(by seconds: Double) {
        let target = state.withLock { $0.time + seconds }
        while true {
            let due: (@Sendable () -> Void)? = state.withLock { s in
                if let w = s.wake, w.at <= target {
                    s.time = max(s.time, w.at)
                    s.wake = nil
                    return w.run
                }
                s.time = target
                return nil
            }
            guard let run = due else { return }
            run()
        }
    }
}
