import Foundation
import MediaTime
import ScrubKit

/// One `play --bench` run: the player, the painting path of `scrubkit play` on a null terminal, and what painting
/// cost — shared by the phases (playback, seeks, hover previews), each a method. Not thread-safe.
final class BenchSession {
    let player: Player
    /// The player's one clock, which times everything here, as in `scrubkit play`.
    let clock: MediaClock
    let info: PlayerMediaInfo
    let path: String
    let kind: GraphicsKind
    let layout: PlayerLayout
    let composer: PlayerFrameComposer
    let geometry: (width: Int, height: Int, column: Int, row: Int)
    let aspect: Double
    /// Escape-sequence bytes a terminal would have taken.
    private(set) var bytes = 0
    /// Pictures turned into escape sequences.
    private(set) var painted = 0
    /// Each picture painted during real-time playback.
    private(set) var paints: [PlayerBenchmark.Paint] = []
    private var playing = false
    /// The subtitle track shown (as `scrubkit play` chooses it), what each painted picture spent on subtitles, and how
    /// many had one.
    private(set) var subtitleTrack: String? = nil
    private(set) var subtitleCosts: [Double] = []
    private(set) var subtitled = 0

    /// A player ready on `path`, its pictures sized for a `columns × rows` terminal of `kind` graphics.
    init(path: String, columns: Int, rows: Int, kind: GraphicsKind, sound: SoundOptions?) throws {
        player = Player(path: path, sound: sound)
        clock = player.clock
        _ = player.waitUntilReady(timeout: 30)
        if case .failed(let e) = player.status { throw e }
        guard let info = player.mediaInfo, info.hasVideo else {
            throw MediaError(.noVideo, path: path, "no video to play")
        }
        self.info = info
        self.path = path
        self.kind = kind
        let tracks = player.subtitleTracks
        player.subtitleTrack = SubtitleTrack.preferred(in: tracks)
        subtitleTrack = player.subtitleTrack.map { tracks[$0].label }
        layout = PlayerLayout(columns: columns, rows: rows, subtitles: player.subtitleTrack != nil)
        composer = PlayerFrameComposer(renderer: kind.renderer, color: true)
        aspect = info.displayHeight > 0 ? Double(info.displayWidth) / Double(info.displayHeight) : 16.0 / 9.0
        geometry = composer.pictureGeometry(layout: layout, cellPixels: (8, 16), aspect: aspect)
        player.setVideoOutputSize(width: geometry.width, height: geometry.height)
    }

    /// Paints a frame the way `scrubkit play` does (a frame of another size is scaled, not dropped).
    func paint(_ f: VideoFrame) {
        var image = f.image, rows = ""
        if subtitleTrack != nil {
            // What `scrubkit play` does for subtitles each picture: bitmaps into the picture, text into the rows.
            let began = clock.now()
            let cues = player.subtitles(at: f.time).cues
            let bitmaps = cues.filter { !$0.pictures.isEmpty }
            if !bitmaps.isEmpty { image = image.drawing(bitmaps, text: false) }
            rows = SubtitleText(cues.flatMap(\.lines), width: layout.columns - 2, maxRows: layout.subtitleRows).render(
                layout: layout, color: true)
            if playing { subtitleCosts.append(clock.now() - began); if !cues.isEmpty { subtitled += 1 } }
        }
        let n = composer.paint(image, geometry: geometry, cellPixels: (8, 16)).utf8.count + rows.utf8.count
        bytes += n
        if n > 0 { painted += 1 }
        if playing { paints.append(PlayerBenchmark.Paint(at: clock.now(), time: f.time)) }
    }

    /// Plays from the start for `seconds` in real time, pausing at a third and seeking 2 s ahead at two thirds;
    /// returns the seconds it took and the pause's length.
    func play(seconds: Double) -> (elapsed: Double, pause: Double) {
        _ = PlayerBenchmark.waitSeek(player) {
            player.seek(to: info.start, toleranceBefore: .zero, toleranceAfter: .zero, completion: $0)
        }
        let start = clock.now()
        let pause = min(0.5, seconds / 10)
        var paused = false, sought = false
        playing = true
        player.play()
        while (clock.now() - start) < seconds {
            let t = clock.now() - start
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
        return (clock.now() - start, pause)
    }

    /// `count` seeks to random places of `span` while paused: milliseconds from each call to its picture painted.
    func seeks(_ count: Int, exact: Bool, span: MediaTime, rng: inout SplitMix) -> [Double] {
        var out: [Double] = []
        for _ in 0..<count {
            let f = Double(rng.next() % 10_000) / 10_000
            let target = MediaTime.time(atFraction: f, of: MediaTimeRange(start: info.start, duration: span))
            let t0 = clock.now()
            player.seek(
                to: target, toleranceBefore: exact ? .zero : .positiveInfinity,
                toleranceAfter: exact ? .zero : .positiveInfinity)
            while (clock.now() - t0) < 5 {
                if !player.isSeeking, let frame = player.frameForDisplay() { paint(frame); break }
                usleep(500)
            }
            out.append((clock.now() - t0) * 1000)
        }
        return out
    }

    /// While playing, a sweep of the pointer along the bar, then `count` jumps to random columns: seconds from each
    /// move to a hover preview painted for it (nil when the terminal has no room for one).
    func hovers(_ count: Int, span: MediaTime, rng: inout SplitMix) -> (sweep: [Double], jumps: [Double])? {
        let box = HoverPreviewBox(
            layout: layout, renderer: kind.renderer, cellPixels: (8, 16), aspect: aspect, pointerColumn: 0)
        guard count > 0, box.pixelWidth > 0 else { return nil }
        // Each pattern starts with nothing kept (a fresh decoder), as when the pointer first reaches the bar.
        var hover = HoverThumbnails(path: path, maximumSize: .box(width: box.pixelWidth, height: box.pixelHeight))
        defer { hover.close() }
        let range = MediaTimeRange(start: info.start, duration: span)
        func time(at column: Int) -> MediaTime {
            MediaTime.time(atFraction: layout.bar.fraction(forColumn: column), of: range)
        }
        var shownSerial = -1
        var pending: [(time: MediaTime, at: Double)] = []
        /// Paints what is due (a video frame, a new preview); a preview answering a pending move settles it and the
        /// moves before it.
        func pump(into out: inout [Double]) {
            if let f = player.frameForDisplay() { paint(f) }
            guard let a = hover.newest, a.serial != shownSerial else { return }
            shownSerial = a.serial
            bytes +=
                composer.renderer.drawOverlay(
                    a.thumbnail.image, column: box.column, row: box.pictureRow, cellPixels: (8, 16)
                ).utf8.count
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
        defer { player.pause() }
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
        for _ in 0..<count {
            var t = last
            while t == last { t = time(at: layout.bar.origin + Int(rng.next() % UInt64(layout.bar.width))) }
            last = t
            pending.append((t, clock.now()))
            hover.request(t)
            settle(into: &jumps)
            let pause = clock.now()
            while (clock.now() - pause) < 0.03 { pump(into: &jumps); usleep(1_000) }
        }
        return (sweep, jumps)
    }
}
