import FFmpegBridge
import Foundation

/// The policy for opening a URL whose connection breaks: try again after a pause that doubles (0.25 s, 0.5 s, 1 s…),
/// all inside one deadline (``Demuxer/networkTimeout``) for the whole open. A connection that timed out is not tried
/// again (its time is spent); local files get one attempt.
struct NetworkRetry {
    /// Seconds the whole open may take.
    var timeout: Double
    /// The first pause; each later one is twice the one before.
    var firstPause = 0.25
    /// The clock the deadline is kept on.
    var clock: MediaClock = SystemClock()
    /// Waits this many seconds (a test passes one that only records).
    var pause: (Double) -> Void = { Thread.sleep(forTimeInterval: $0) }

    /// Runs `attempt` with the seconds left until it opens, fails for another reason, times out, or the next pause
    /// would pass the deadline; a timeout reports the whole wait and every attempt.
    func run<T>(_ attempt: (_ timeLeft: Double) throws -> T) throws -> T {
        let began = clock.now()
        var attempts = 0
        var wait = firstPause
        while true {
            do {
                attempts += 1
                return try attempt(timeout - (clock.now() - began))
            } catch let broken as Demuxer.ConnectionBroken {
                guard clock.now() - began + wait < timeout else { throw broken.failure }
                pause(wait)
                wait *= 2
            } catch let late as Demuxer.TimedOut {
                throw Demuxer.TimedOut(seconds: clock.now() - began, attempts: attempts - 1 + late.attempts)
            }
        }
    }
}
