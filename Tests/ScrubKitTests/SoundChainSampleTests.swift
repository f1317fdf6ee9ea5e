@testable import ScrubKit
import Testing
import MediaTime

/// Where a decoded chunk of sound goes in its take: what is before the take's time or already played is dropped, a
/// take whose queue starts late, or a gap in the stream, is led by silence; and the level with its fades.
@Suite struct SoundChainSampleTests {
    func t(_ x: Double) -> MediaTime { MediaTime(seconds: x, preferredTimescale: 1000) }
    let ramp = (0..<50).map { Int16($0 + 1) }   // 50 frames of mono at 100 Hz: half a second

    /// ``ramp`` placed as the sound chain places a chunk.
    func placedRamp(start: MediaTime, expected: MediaTime,
                    maximumSilence: Int = 200) -> (chunk: [Int16], start: MediaTime, next: MediaTime)? {
        SoundChain.placed(ramp, channels: 1, rate: 100, start: start, expected: expected,
                          maximumSilence: maximumSilence)
    }

    @Test func samplesBeforeTheTakesTimeAreDropped() throws {
        let p = try #require(placedRamp(start: t(0.9), expected: t(1.0)))
        #expect(p.chunk == Array(ramp[10...]) && p.start == t(1.0) && p.next == t(1.4))
        #expect(placedRamp(start: t(0.2), expected: t(1.0)) == nil,
                "a chunk wholly before is not played")
    }

    @Test func theSamePacketsAgainAreNotPlayedTwice() throws {
        // Played up to 1.4 s; the reader went back to a keyframe and 1.0 s comes again.
        let p = try #require(placedRamp(start: t(1.0), expected: t(1.4)))
        #expect(p.chunk == Array(ramp[40...]) && p.start == t(1.4) && p.next == t(1.5))
    }

    @Test func aTakeWhoseSoundStartsLateIsLedBySilence() throws {
        let p = try #require(placedRamp(start: t(1.2), expected: t(1.0)))
        #expect(p.chunk == [Int16](repeating: 0, count: 20) + ramp && p.start == t(1.0) && p.next == t(1.7))
        // Within a take too (a gap in the stream is heard as silence: what follows keeps its time), not past the limit.
        let within = try #require(placedRamp(start: t(1.2), expected: t(1.0), maximumSilence: 30))
        #expect(within.chunk == [Int16](repeating: 0, count: 20) + ramp && within.start == t(1.0))
        let far = try #require(placedRamp(start: t(5), expected: t(1.0)))
        #expect(far.start == t(5), "past the limit the chunk keeps its own time")
        #expect(far.chunk == ramp && far.start == t(5))
    }

    @Test func stereoIsCutOnWholeFrames() throws {
        let stereo = (0..<20).map { Int16($0) }   // 10 frames
        let p = try #require(SoundChain.placed(stereo, channels: 2, rate: 10, start: t(0), expected: t(0.3),
                                               maximumSilence: 20))
        #expect(p.chunk == Array(stereo[6...]) && p.next == t(1.0))
    }

    @Test func fadesAndGain() {
        var chunk = [Int16](repeating: 1000, count: 10)
        SoundChain.shape(&chunk, channels: 1, position: 0, count: 10, gain: 1, fade: 4, snippetLength: nil)
        #expect(chunk == [0, 250, 500, 750, 1000, 1000, 1000, 1000, 1000, 1000], "fade-in at a take's start")
        var muted = [Int16](repeating: 1000, count: 4)
        SoundChain.shape(&muted, channels: 1, position: 100, count: 4, gain: 0, fade: 4, snippetLength: nil)
        #expect(muted == [0, 0, 0, 0])
        var end = [Int16](repeating: 1000, count: 4)
        SoundChain.shape(&end, channels: 1, position: 96, count: 4, gain: 1, fade: 4, snippetLength: 100)
        #expect(end == [1000, 500, 250, 0], "fade-out to nothing at a snippet's end")
    }
}
