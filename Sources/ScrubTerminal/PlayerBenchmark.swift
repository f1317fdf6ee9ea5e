import Foundation
import Locking
import MediaTime
import ScrubKit

/// `scrubkit play --bench`: plays to a null terminal in real time (with a pause at a third and an exact seek 2 s ahead
/// at two thirds, which sync must survive), then runs scripted seeks, then moves a pointer over the bar while playing
/// (hover previews), and reports frames shown/dropped, seek → frame-painted and pointer move → preview-painted
/// latency percentiles. Everything a real screen costs is done (decode, scale, compose escape
/// sequences) except the write to a terminal. With sound, the sound plays (and leads the clock) as in `scrubkit play`.
public enum PlayerBenchmark {
    /// One picture painted during playback: when (the monotonic clock, seconds) and which frame (its media time).
    /// Against a recording of the sound this gives the A/V offset.
    public struct Paint: Sendable {
        /// Monotonic seconds (CLOCK_MONOTONIC, as other processes read it).
        public var at: Double
        /// The frame's presentation time.
        public var time: MediaTime
    }

    /// What a headless run measured.
    public struct Report: Sendable {
        /// Seconds of playback.
        public var seconds: Double
        /// Frames painted during playback.
        public var shown: Int
        /// Frames dropped (late).
        public var dropped: Int
        /// Frames the media has in that time.
        public var expectedFrames: Int
        /// Seconds from each keyframe seek to its picture painted.
        public var keyframeSeeks: [Double]
        /// Seconds from each exact seek to its picture painted.
        public var exactSeeks: [Double]
        /// Escape-sequence bytes per second that a terminal would have to take.
        public var bytesPerSecond: Double
        /// Pictures actually turned into escape sequences (0 would mean a blank screen).
        public var painted: Int
        /// Each picture painted during real-time playback.
        public var paints: [Paint]
        /// What the sound did.
        public var sound: SoundStatus
        /// Seconds from each pointer move of a sweep along the bar (a column every 16 ms, left to right) to a hover
        /// preview painted for it or for a later move (moves made while one decodes are skipped to the newest).
        public var hoverSweep: [Double] = []
        /// Seconds from each pointer jump to a random column to its hover preview painted (30 ms apart; started
        /// with nothing kept, so early jumps decode and later ones may land in a stretch already decoded).
        public var hoverJumps: [Double] = []
        /// The subtitle track shown while playing (the one `scrubkit play` shows first), nil: none.
        public var subtitleTrack: String? = nil
        /// Milliseconds each painted picture spent on its subtitles (reading the cues, drawing bitmap ones into the
        /// picture, laying out the text rows).
        public var subtitleCosts: [Double] = []
        /// How many painted pictures had a subtitle.
        public var subtitled = 0
    }

    /// Plays `path` for `seconds` on a null terminal of `columns × rows` with `kind` graphics (sound as `sound`
    /// says; nil: silent), then `seeks` keyframe and `seeks` exact seeks, then a sweep and `hovers` jumps of the
    /// pointer over the bar while playing; throws when the file cannot be played.
    public static func run(path: String, seconds: Double, columns: Int, rows: Int, kind: GraphicsKind, seeks: Int = 20,
                           hovers: Int = 40, sound: SoundOptions? = nil) throws -> Report {
        let run = try BenchSession(path: path, columns: columns, rows: rows, kind: kind, sound: sound)
        // 1. Real-time playback, with a pause and a seek on the way.
        let (elapsed, pause) = run.play(seconds: seconds)
        let info = run.info, stats = run.player.frameStatistics
        let fps = info.frameDuration.isNumeric ? 1 / info.frameDuration.seconds : 30
        let expected = Int(
            (min(elapsed - pause, info.duration.isNumeric ? info.duration.seconds : elapsed) * fps).rounded())
        // 2. Scripted seeks, paused: from the call until the new picture is painted. An indefinite duration (live,
        // raw streams): seeks within what has been played.
        var rng = SplitMix(seed: 42)
        let span =
            info.duration.isNumeric ? info.duration : MediaTime(seconds: max(0.1, elapsed), preferredTimescale: 1000)
        let keyframe = run.seeks(seeks, exact: false, span: span, rng: &rng)
        let exact = run.seeks(seeks, exact: true, span: span, rng: &rng)
        var report = Report(seconds: elapsed, shown: stats.shown, dropped: stats.dropped, expectedFrames: expected,
                            keyframeSeeks: keyframe, exactSeeks: exact, bytesPerSecond: Double(run.bytes) / elapsed,
                            painted: run.painted, paints: run.paints, sound: run.player.soundStatus)
        report.subtitleTrack = run.subtitleTrack
        (report.subtitleCosts, report.subtitled) = (run.subtitleCosts.map { $0 * 1000 }, run.subtitled)
        // 3. Hover previews while playing: the same pictures, boxes and overlay drawing as `scrubkit play`.
        if let (sweep, jumps) = run.hovers(hovers, span: span, rng: &rng) {
            report.hoverSweep = sweep.map { $0 * 1000 }
            report.hoverJumps = jumps.map { $0 * 1000 }
        }
        return report
    }

    static func waitSeek(_ player: Player, _ start: (@escaping @Sendable (Bool) -> Void) -> Void) -> Bool {
        let landed = Locked(false)
        start { _ in landed.withLock { $0 = true } }
        return landed.wait(until: { $0 }, timeout: 10)
    }

    /// p-th percentile (0…100) by nearest rank.
    public static func percentile(_ xs: [Double], _ p: Double) -> Double {
        guard !xs.isEmpty else { return .nan }
        let s = xs.sorted()
        let rank = Int((p / 100 * Double(s.count)).rounded(.up)) - 1
        return s[min(max(rank, 0), s.count - 1)]
    }
}

/// A small deterministic generator for reproducible seek scripts.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
