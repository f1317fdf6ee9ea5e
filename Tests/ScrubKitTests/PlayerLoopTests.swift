import MediaTime
@testable import ScrubKit
import Testing

/// A-B loops on the player's own rules (a scripted pipeline and a manual clock: no decoding, no waiting).
@Suite struct PlayerLoopTests {
    func makePlayer() -> (Player, ManualClock, ScriptedPipeline) {
        let clock = ManualClock()
        let pipe = ScriptedPipeline(duration: s(10))
        let p = Player(pipeline: pipe, clock: clock)
        p.flush()
        return (p, clock, pipe)
    }

    @Test func reachingTheLoopsEndGoesBackToItsStartExactlyUntilItIsCleared() {
        let (p, clock, pipe) = makePlayer()
        p.loopRange = MediaTimeRange(start: s(2), end: s(3))
        p.seek(to: s(2), toleranceBefore: .zero, toleranceAfter: .zero)
        p.play()
        // Round and round: the player wakes at 3 s of media time and seeks (exactly) to 2.
        var seen: [Double] = []
        for _ in 0..<25 {
            clock.advance(by: 0.1)
            p.flush()
            seen.append(p.currentTime.seconds)
        }
        #expect(seen.allSatisfy { $0 >= 2 - 1e-9 && $0 < 3 + 1e-9 }, "\(seen)")
        let backs = pipe.seeks.withLock { $0.filter { $0.time == s(2) && $0.before == .zero && $0.after == .zero } }
            .count
        #expect(backs == 3, "the first seek, then back at 3 s twice in 2.5 s: \(backs)")
        // Cleared: it plays on past 3 s.
        p.loopRange = nil
        clock.advance(by: 1.5)
        p.flush()
        #expect(p.currentTime.seconds > 3, "\(p.currentTime.seconds)")
    }

    /// B set where playback is (mpv's `l` pressed the second time): back to A at once, not after the next wake.
    @Test func aLoopEndingWherePlaybackIsGoesBackAtOnce() {
        let (p, clock, pipe) = makePlayer()
        p.seek(to: s(3), toleranceBefore: .zero, toleranceAfter: .zero)
        p.play()
        p.loopRange = MediaTimeRange(start: s(1), end: s(3))
        clock.advance(by: 0.01)
        p.flush()
        #expect(pipe.seeks.withLock { $0.last?.time } == s(1), "\(pipe.seeks.withLock { $0.map(\.time.seconds) })")
        #expect(p.currentTime.seconds < 1.1, "\(p.currentTime.seconds)")
    }

    @Test func anEmptyOrBackwardRangeIsNone() {
        let (p, _, _) = makePlayer()
        p.loopRange = MediaTimeRange(start: s(3), duration: .zero)
        #expect(p.loopRange == nil)
        p.loopRange = MediaTimeRange(start: s(3), duration: s(1))
        #expect(p.loopRange == MediaTimeRange(start: s(3), duration: s(1)))
    }

    @Test func pausedItStaysPastTheEnd() {
        let (p, clock, pipe) = makePlayer()
        p.seek(to: s(5), toleranceBefore: .zero, toleranceAfter: .zero)
        p.loopRange = MediaTimeRange(start: s(1), end: s(2))
        clock.advance(by: 1)
        p.flush()
        #expect(p.currentTime == s(5) && pipe.seeks.withLock { $0.count } == 1, "paused: no loop")
    }
}
