import Foundation
import Locking
import MediaTime
import ScrubKit

/// `scrubkit play --bench`: plays to a null terminal in real time (with a pause at a third and an exact seek 2 s ahead
/// at two thirds, which sync must survive), then runs scripted seeks, then moves a pointer over the bar while playing
/// (hover previews), and reports frames shown/dropped, seek → frame-painted and pointer move → preview-painted latency
/// percentiles. Everything a real screen costs is done (decode, scale, compose escape
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
    }

    /// Plays `path` for `seconds` on a null terminal of `columns × rows` with `kind` graphics (sound as `sound`
    /// says; nil: silent), then `seeks` keyframe and `seeks` exact seeks, then a sweep and `hovers` jumps of the pointer
    /// over the bar while playing; throws when the file cannot be played.
    public static func run(path: String, seconds: Double, columns: Int, rows: Int, kind: GraphicsKind, seeks: Int = 20,
                           hovers: Int = 40, sound: SoundOptions? = nil) throws -> Report {
        let player = Player(path: path, sound: sound)
        let clock = player.clock   // (the player's one clock times everything here, as in `scrubkit play`)
        _ = player.waitUntilReady(timeout: 30)
        if case .failed(let e) = player.status { throw e }
        guard let info = player.mediaInfo, info.hasVideo else { throw MediaError(.noVideo, path: path, "no video to play") }
        let layout = PlayerLayout(columns: columns, rows: rows)
        let composer = PlayerFrameComposer(renderer: kind.renderer, color: true)
        let aspect = info.displayHeight > 0 ? Double(info.displayWidth) / Double(info.displayHeight) : 16.0 / 9.0
        let g = composer.pictureGeometry(layout: layout, cellPixels: (8, 16), aspect: aspect)
        player.setVideoOutputSize(width: g.width, height: g.height)
        var bytes = 0
        var painted = 0
        var paints: [Paint] = []
        var playing = false
        // The same painting path as `scrubkit play` (a frame of another size is scaled, not dropped).
        func paint(_ f: VideoFrame) {
            let n = composer.paint(f.image, geometry: g, cellPixels: (8, 16)).utf8.count
            bytes += n
            if n > 0 { painted += 1 }
            if playing { paints.append(Paint(at: clock.now(), time: f.time)) }
        }

        // 1. Real-time playback, with a pause and a seek on the way.
        _ = waitSeek(player) { player.seek(to: info.start, toleranceBefore: .zero, toleranceAfter: .zero, completion: $0) }
        let start = clock.now()
        let pause = min(0.5, seconds / 10)
        var paused = false, sought = false
        playing = true
        player.play()
        while (clock.now() - start) < seconds {
            let t = (clock.now() - start)
            if !paused && t >= seconds / 3 {
                paused = true
                player.pause()
                usleep(UInt32(pause * 1_000_000))
                player.play()
            }
            if !sought && t >= seconds * 2 / 3 {
                sought = true
                let target = player.currentTime + MediaTime(value: 2, timescale: 1)
                if info.duration.isNumeric, target < info.start + info.duration - MediaTime(value: 1, timescale: 1) {
                    player.seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero)
                }
            }
            if let f = player.frameForDisplay() { paint(f) }
            usleep(4_000)
        }
        player.pause()
        playing = false
        let elapsed = (clock.now() - start)
        let stats = player.frameStatistics
        let fps = info.frameDuration.isNumeric ? 1 / info.frameDuration.seconds : 30
        let expected = Int((min(elapsed - pause, info.duration.isNumeric ? info.duration.seconds : elapsed) * fps).rounded())

        // 2. Scripted seeks, paused: from the call until the new picture is painted.
        var rng = SplitMix(seed: 42)
        // An indefinite duration (live, raw streams): seek within what has been played.
        let span = info.duration.isNumeric ? info.duration : MediaTime(seconds: max(0.1, elapsed), preferredTimescale: 1000)
        func measure(exact: Bool) -> [Double] {
            var out: [Double] = []
            for _ in 0..<seeks {
                let f = Double(rng.next() % 10_000) / 10_000
                let target = MediaTime.time(atFraction: f, of: MediaTimeRange(start: info.start, duration: span))
                let t0 = clock.now()
                player.seek(to: target, toleranceBefore: exact ? .zero : .positiveInfinity, toleranceAfter: exact ? .zero : .positiveInfinity)
                while (clock.now() - t0) < 5 {
                    if !player.isSeeking, let frame = player.frameForDisplay() { paint(frame); break }
                    usleep(500)
                }
                out.append((clock.now() - t0) * 1000)
            }
            return out
        }
        let keyframe = measure(exact: false)
        let exactTimes = measure(exact: true)
        var report = Report(seconds: elapsed, shown: stats.shown, dropped: stats.dropped, expectedFrames: expected,
                            keyframeSeeks: keyframe, exactSeeks: exactTimes, bytesPerSecond: Double(bytes) / elapsed, painted: painted,
                            paints: paints, sound: player.soundStatus)

        // 3. Hover previews while playing: the same pictures, boxes and overlay drawing as `scrubkit play`.
        let box = HoverPreviewBox(layout: layout, renderer: kind.renderer, cellPixels: (8, 16), aspect: aspect, pointerColumn: 0)
        guard hovers > 0, box.pixelWidth > 0 else { return report }
        // Each pattern starts with nothing kept (a fresh decoder), as when the pointer first reaches the bar.
        var hover = HoverThumbnails(path: path, maximumSize: .box(width: box.pixelWidth, height: box.pixelHeight))
        defer { hover.close() }
        let range = MediaTimeRange(start: info.start, duration: span)
        func time(at column: Int) -> MediaTime { MediaTime.time(atFraction: layout.bar.fraction(forColumn: column), of: range) }
        var shownSerial = -1
        var pending: [(time: MediaTime, at: Double)] = []
        /// Paints what is due (a video frame, a new preview); a preview answering a pending move settles it and the
        /// moves before it.
        func pump(into out: inout [Double]) {
            if let f = player.frameForDisplay() { paint(f) }
            guard let a = hover.newest, a.serial != shownSerial else { return }
            shownSerial = a.serial
            bytes += composer.renderer.drawOverlay(a.thumbnail.image, column: box.column, row: box.pictureRow, cellPixels: (8, 16)).utf8.count
            guard let k = pending.lastIndex(where: { $0.time == a.requested }) else { return }
            let now = clock.now()
            out += pending[...k].map { now - $0.at }
            pending.removeFirst(k + 1)
        }
        func settle(into out: inout [Double]) {
            let end = clock.now() + 5
            while !pending.isEmpty && clock.now() < end && hover.failure == nil { pump(into: &out); usleep(1_000) }
            out += pending.map { clock.now() - $0.at }   // (never answered: counted as waited)
            pending.removeAll()
        }
        player.play()
        var sweep: [Double] = [], jumps: [Double] = []
        var last = MediaTime.invalid
        for column in layout.bar.origin..<(layout.bar.origin + layout.bar.width) {
            let t = time(at: column), moved = clock.now()
            if t != last { pending.append((t, moved)); hover.request(t); last = t }
            while (clock.now() - moved) < 0.016 { pump(into: &sweep); usleep(1_000) }
        }
        settle(into: &sweep)
        hover.close()
        hover = HoverThumbnails(path: path, maximumSize: hover.maximumSize)
        shownSerial = -1
        for _ in 0..<hovers {
            var t = last
            while t == last { t = time(at: layout.bar.origin + Int(rng.next() % UInt64(layout.bar.width))) }
            last = t
            pending.append((t, clock.now()))
            hover.request(t)
            settle(into: &jumps)
            let pause = clock.now()
            while (clock.now() - pause) < 0.03 { pump(into: &jumps); usleep(1_000) }
        }
        player.pause()
        report.hoverSweep = sweep.map { $0 * 1000 }
        report.hoverJumps = jumps.map { $0 * 1000 }
        return report
    }

    private static func waitSeek(_ player: Player, _ start: (@escaping @Sendable (Bool) -> Void) -> Void) -> Bool {
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
