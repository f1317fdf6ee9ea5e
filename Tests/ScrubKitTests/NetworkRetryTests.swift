@testable import FFmpegBridge
@testable import ScrubKit
import Testing

/// The URL open's retry policy, on a fake clock: broken connections are tried again after doubling pauses inside
/// one deadline; a timeout is final and reports every attempt.
struct NetworkRetryTests {
    /// A clock that the recorded pauses and each attempt's cost move forward.
    final class FakeTime: @unchecked Sendable {
        let clock = ManualClock()
        var pauses: [Double] = []
        /// Moves the clock on.
        func pass(_ seconds: Double) { clock.advance(by: seconds) }
    }

    func policy(_ time: FakeTime, timeout: Double = 20) -> NetworkRetry {
        NetworkRetry(timeout: timeout, clock: time.clock, pause: { time.pauses.append($0); time.pass($0) })
    }

    static let reset = FFmpegError(-104, "open")

    @Test func brokenConnectionsAreTriedAgainAfterDoublingPauses() throws {
        let time = FakeTime()
        var given: [Double] = []
        let value = try policy(time).run { left -> Int in
            given.append(left)
            time.pass(1)
            if given.count < 3 { throw Demuxer.ConnectionBroken(failure: Self.reset) }
            return 7
        }
        #expect(value == 7)
        #expect(time.pauses == [0.25, 0.5])
        #expect(given == [20, 18.75, 17.25])   // each attempt gets what is left of the one deadline
    }

    @Test func noPauseRunsPastTheDeadlineAndTheLastFailureIsReported() {
        let time = FakeTime()
        var attempts = 0
        #expect {
            try policy(time, timeout: 3).run { left -> Int in
                attempts += 1
                time.pass(min(1, left))   // an attempt ends by its deadline
                throw Demuxer.ConnectionBroken(failure: Self.reset)
            }
        } throws: { ($0 as? FFmpegError)?.code == -104 }
        #expect(time.pauses == [0.25, 0.5])   // attempts end at 1, 2.25 and 3 s; a pause of 1 s would pass 3 s
        #expect(attempts == 3)
        #expect(time.clock.now() == 3)
    }

    @Test func aTimeoutIsNotTriedAgainAndCountsEveryAttempt() {
        let time = FakeTime()
        var attempts = 0
        #expect {
            try policy(time).run { _ -> Int in
                attempts += 1
                time.pass(2)
                if attempts == 1 { throw Demuxer.ConnectionBroken(failure: Self.reset) }
                throw Demuxer.TimedOut(seconds: 2, attempts: 3)   // FFmpeg reconnected twice inside this attempt
            }
        } throws: { error in
            guard let late = error as? Demuxer.TimedOut else { return false }
            return late.attempts == 4 && late.seconds == 4.25
        }
        #expect(attempts == 2)
    }

    @Test func otherFailuresAreFinal() {
        let time = FakeTime()
        var attempts = 0
        #expect(throws: FFmpegError.self) {
            try policy(time).run { _ -> Int in attempts += 1; throw FFmpegError(-2, "open") }
        }
        #expect(attempts == 1)
        #expect(time.pauses.isEmpty)
    }
}
