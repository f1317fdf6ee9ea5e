import Foundation
import MediaTime
@testable import ScrubKit
import Testing

/// Where the sound stream has nothing — a hole, an early end — the sound chain writes silence: the clock goes on
/// (the picture with it) and the sound after a hole is heard at its own time. Before, a hole made the chain wait on the
/// reader, which read on (the rest of the file, for a sound that ended early), and the clock jumped over the hole.
extension SoundTests {
    /// 8 s, a 64×36 picture; a 440 Hz tone (mono, 48 kHz) with `audioFilter` applied.
    static func toneClip(_ name: String, audioFilter: String) throws -> String {
        try #require(Reference.make(name, ["-f", "lavfi", "-i", "testsrc2=size=64x36:rate=25:duration=8",
                                           "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000:d=8", "-af", audioFilter,
                                           "-c:v", "mpeg4", "-c:a", "aac", "-ac", "1"]))
    }

    /// The first 10-ms window at or after `from` seconds whose level is (`loud`) or is not above a whisper.
    static func firstWindow(_ samples: [Int16], from: Double, loud: Bool) -> Double? {
        let windows = SoundWindow.windows(samples, rate: 48_000, seconds: 0.01)
        return windows.first { $0.start >= from && ($0.rms > 500) == loud }?.start
    }

    @Test func aHoleInTheSoundIsSilenceAndWhatFollowsKeepsItsTime() async throws {
        // No sound from 2 s to 6 s (Matroska keeps the hole in the timestamps).
        let clip = try Self.toneClip("tone-hole.mkv", audioFilter: "aselect='lt(t\\,2)+gte(t\\,6)'")
        let clock = ManualClock()
        let output = RecordingOutput(clock: clock)
        let p = try await ready(clip, SoundOptions { _, _, _ in output }, clock: clock)
        p.play()
        #expect(try await eventually { output.recorded(take: 0) >= 48_000 * 7 },
                "7 s written: \(output.recorded(take: 0))")
        p.pause()
        let take = try #require(output.takes.first)
        let quiet = try #require(Self.firstWindow(take, from: 0.5, loud: false), "the hole is silent")
        let back = try #require(Self.firstWindow(take, from: quiet, loud: true), "the tone comes back")
        #expect(abs(quiet - 2) < 0.05, "silent from 2 s: \(quiet)")
        #expect(abs(back - 6) < 0.05, "heard again at 6 s, its own time: \(back)")
    }

    @Test func soundThatEndsEarlyLetsThePictureGoOn() async throws {
        // The sound ends after 2 s of 8.
        let clip = try Self.toneClip("tone-early-end.mkv", audioFilter: "atrim=0:2")
        let clock = ManualClock()
        let output = RecordingOutput(clock: clock)
        let p = try await ready(clip, SoundOptions { _, _, _ in output }, clock: clock)
        p.play()
        #expect(try await eventually { p.currentTime.seconds >= 6 },
                "the clock goes past the sound's end: \(p.currentTime.seconds)")
        p.pause()
        let take = try #require(output.takes.first)
        #expect(abs((Self.firstWindow(take, from: 0.5, loud: false) ?? -1) - 2) < 0.05, "silence after the sound's end")
    }
}

extension SoundTests {
    /// The sound server restarts while playing (a desktop's PulseAudio or PipeWire restarted): the status says the
    /// server went away, and the sound comes back without restarting the player, where the picture is, as mpv's
    /// PulseAudio output reconnects. Before, the sound was gone for the rest of the file.
    @Test(.enabled(if: PrivatePulse.available, "needs pulseaudio and parec"))
    func soundComesBackWhenTheServerRestarts() async throws {
        let clip = try #require(Reference.make("tone-long.mp4", [
            "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25:duration=20",
            "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000:d=20", "-c:v", "mpeg4", "-c:a", "aac", "-ac", "1"]))
        let (pulse, p) = try await serverAndPlayer(clip)
        defer { pulse.stop() }
        p.play()
        #expect(try await eventually { p.currentTime.seconds > 1 })
        try pulse.restart()
        #expect(try await eventually { !p.soundStatus.isAvailable || p.currentTime.seconds > 6 },
                "the sound server's going away is seen")
        let said = p.soundStatus.problem ?? ""
        try pulse.record()
        #expect(try await eventually { p.soundStatus.isAvailable }, "the sound is back: \(p.soundStatus)")
        // (Reading the time, as a front end does each refresh, is where the player starts the new take.)
        let until = Date().addingTimeInterval(1.5)
        while Date() < until { _ = p.currentTime; try await Task.sleep(nanoseconds: 20_000_000) }
        let heard = SoundWindow.windows(pulse.recorded(), rate: PrivatePulse.rate, seconds: 0.1)
        p.pause()
        #expect(said.contains("went away"), "said: \(said)")
        #expect(heard.filter { $0.rms > 1000 && abs($0.frequency - 440) < 30 }.count >= 5,
                "the tone is heard again: \(heard.map { Int($0.rms) })")
    }
}
