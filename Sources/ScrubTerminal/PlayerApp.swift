import Foundation
import MediaTime
import ScrubKit
import Synchronization
import Locking

/// `scrubkit play`: a full-screen scrubber. Keys and mouse drive a `Player`; a render loop draws the newest frame
/// and the slider bar ~30 times a second (only what changed). A ``Playlist``'s entries play in turn, each with a
/// player of its own (PlayerApp+Playlist.swift).
// unchecked: UI state on the run loop's thread only; the input thread shares `events`/`quit` (Locked, Atomic)
public final class PlayerApp: @unchecked Sendable {
    /// How `scrubkit play` starts.
    public struct Options: Sendable {
        /// Forced graphics (`--graphics`); nil: detect from the environment and the terminal.
        public var graphics: GraphicsKind?   // nil = auto-detect
        /// Land keyboard and mouse seeks on exact frames.
        public var exactSeeks = false
        /// Start over at the end instead of pausing.
        public var loop = false
        /// Sound (the default: PulseAudio's default sink); nil: silent.
        public var sound: SoundOptions? = SoundOptions()
        /// At other speeds than 1×, keep the sound's pitch (the default) or let it follow the speed.
        public var keepsPitch = true
        /// Where `c` writes the A-B section; nil: beside the file (a URL's in the current folder).
        public var cutDirectory: String? = nil
        /// Where `s` saves the frame on screen; nil: the current folder (as mpv).
        public var screenshotDirectory: String? = nil
        /// Which subtitle track is shown first (`--sid`).
        public var subtitles = SubtitleChoice.automatic
        /// How much later subtitles show, in seconds (`--sub-delay`; negative: earlier).
        public var subtitleDelay = 0.0
        /// Subtitle files offered besides the file's own and those beside it (`--sub-file`).
        public var subtitleFiles: [String] = []
        /// The defaults: detect graphics, keyframe seeks, pause at the end.
        public init() {}
    }

    /// The entries to play and the one playing.
    var playlist: Playlist
    /// The file or URL playing.
    var path: String { playlist.current }
    let options: Options
    let terminal = RawTerminal(input: PlayerApp.keyboard(), output: 1)
    /// Reads the keyboard on a thread of its own.
    lazy var keyboardThread = KeyboardThread(terminal: terminal)
    /// The current entry's player (a new one for each entry).
    var player: Player
    var renderer: FrameRenderer = NoGraphicsRenderer()
    /// The renderer pictures go to, chosen once for the terminal (`renderer` is it for an entry with a picture).
    var pictureRenderer: FrameRenderer = NoGraphicsRenderer()
    var composer: PlayerFrameComposer!
    let events = Locked<[InputEvent]>([])
    let quit = Atomic<Bool>(false)
    let resized = Atomic<Bool>(true)
    var exact: Bool
    var layout = PlayerLayout(columns: 80, rows: 24)
    var cellPixels = (w: 8, h: 16)
    var lastStatus = ""
    var dragging = false
    var rates: [Double] = [0.25, 0.5, 1, 1.5, 2, 4]
    /// What the status line says about graphics ("sixel", "blocks256 (tmux/screen: …)").
    var graphicsLabel = ""
    /// Frame pacing: when the last picture was written and how long the write took. A terminal slower than the
    /// video gets fewer pictures (dropped here), never a backlog that delays keys.
    var lastPictureAt = 0.0
    var lastPictureCost = 0.0
    var rateIndex = 2
    /// Until when the status line gives the whole reason there is no sound (then just "no sound").
    var soundNoticeUntil = 0.0
    var soundProblemSeen: String? = nil
    /// The loudness strip's buckets as the background scan delivers them, and how many had arrived when last drawn.
    var loudness = Locked(LoudnessStrip(count: PlayerApp.loudnessBuckets))
    var loudnessDrawn = -1
    /// For a file with only sound (no picture, no cover): what the big loudness picture last showed (buckets
    /// measured, played columns).
    var tallDrawn: (measured: Int, played: Int)? = nil
    var loudnessScan: Task<Void, Never>? = nil
    /// Whether the strip is shown (media with sound of a known length).
    var showsLoudness = false
    /// Buckets over the whole timeline (columns take the loudest of theirs).
    static let loudnessBuckets = 1000
    /// Hover previews: pictures from a second decoder (nil without video or graphics), where the pointer is over the
    /// bar (nil: not over it), what is on screen now, and the last main picture (drawn again where a preview was).
    var hover: HoverThumbnails? = nil
    var hoverPreview = HoverPreview()
    var lastImage: RGBImage? = nil
    /// The presentation time of ``lastImage`` (what `s` saves).
    var lastImageTime: MediaTime? = nil
    var lastImageUnpainted = false
    /// Subtitles: shown or hidden (`v`), their delay (`z`/`Z`, kept from entry to entry as mpv keeps it), and what
    /// their rows last showed (nil: draw them again).
    var subtitlesVisible = true
    var subtitleDelay = 0.0
    var subtitleDrawn: SubtitleText? = nil
    /// The time the status line last showed (what `l` marks).
    var shownTime: MediaTime? = nil
    /// The bitmap subtitles drawn into the picture on screen (their starts).
    var bitmapsDrawn: [MediaTime] = []
    /// The A-B loop's marks (`l`), and a passing notice for the status line (a cut written or failed), set from the
    /// cut's thread too.
    var loopMarks = LoopMarks()
    let notice = Locked<(text: String, until: Double)?>(nil)
    /// Which entry played to its end (from the player's callback queue): the ``entrySerial`` it had, -1 for none.
    let endedEntry = Atomic<Int>(-1)
    /// Counts the entries opened (a late end of the last one is not taken for this one's).
    var entrySerial = 0
    /// `<`, `>` or Enter pressed: the entry to move by.
    var requestedMove: Int? = nil
    /// The entries that could not be played, a line each (`scrubkit: PATH: why`), for after the screen is restored.
    public internal(set) var failures: [String] = []

    /// A player app for `path`; nothing happens until ``run()``.
    public convenience init(path: String, options: Options) {
        self.init(playlist: Playlist(entries: [path]), options: options)
    }

    /// A player app playing `playlist`'s entries in turn from its current one; nothing happens until ``run()``.
    public init(playlist: Playlist, options: Options) {
        self.playlist = playlist
        self.options = options
        self.exact = options.exactSeeks
        self.subtitleDelay = options.subtitleDelay
        self.player = PlayerApp.makePlayer(for: playlist.current, options: options, strip: loudness)
    }

    /// A player for `path`: sound as `options` say, a URL's loudness measured into `strip` as it plays.
    static func makePlayer(for path: String, options: Options, strip: Locked<LoudnessStrip>) -> Player {
        var sound = options.sound
        sound?.meter = PlayerApp.loudnessMeter(for: path, strip: strip)
        let player = Player(path: path, sound: sound, subtitleFiles: options.subtitleFiles)
        if !options.keepsPitch { player.audioTimePitchAlgorithm = .varispeed }
        return player
    }

    /// Runs until the user quits. Throws (with the terminal restored) when the only file cannot be played; of a
    /// playlist's entries, those that cannot be played are skipped (``failures``) and the result is 1 if any were.
    public func run() throws -> Int32 {
        // One file that cannot be played is said before the screen changes: its open began with the app, and most
        // failures (no such file, not media) come within milliseconds. A longer open goes on while the terminal is
        // asked what it shows (the first picture comes no later than the slower of the two).
        if playlist.entries.count == 1, case .failed(let e) = player.waitUntilReady(timeout: 0.1) {
            throw TerminalError(e.reason)
        }
        return try FullScreen.run("play", terminal: terminal, forced: options.graphics,
                                  renderer: { [unowned self] in renderer },
                           resized: { [weak self] in self?.resized.store(true, ordering: .relaxed) }) { choice in
            graphicsLabel = choice.kind.rawValue + (choice.reason.map { " (\($0))" } ?? "")
            pictureRenderer = choice.renderer
            defer { loudnessScan?.cancel(); hover?.close(); keyboardThread.stop() }
            startInputThread()
            return try playAll()
        }
    }

    func handleResize(_ info: PlayerMediaInfo?) {
        guard resized.exchange(false, ordering: .relaxed) else { return }
        if let s = TerminalOutput.size(1) {
            layout = PlayerLayout(
                columns: s.columns, rows: s.rows, hasLoudnessStrip: showsLoudness, subtitles: showsSubtitles)
            if s.pixelWidth > 0 && s.pixelHeight > 0 {
                cellPixels = (max(1, s.pixelWidth / s.columns), max(1, s.pixelHeight / s.rows))
            }
        }
        terminal.write(renderer.clear() + "\u{1B}[0m\u{1B}[2J")
        lastStatus = ""
        subtitleDrawn = nil
        loudnessDrawn = -1
        tallDrawn = nil
        let aspect = aspectRatio(info)
        let g = composer.pictureGeometry(layout: layout, cellPixels: cellPixels, aspect: aspect)
        player.setVideoOutputSize(width: g.width, height: g.height)
        hoverPreview.screenCleared()
        if info?.hasVideo == true, renderer.drawsPictures {
            let box = hoverBox(pointerColumn: 0, pictures: true, info)
            let size = MaximumSize.box(width: box.pixelWidth, height: box.pixelHeight)
            if box.pixelWidth == 0 {
                hover?.close(); hover = nil
            } else if hover?.maximumSize != size {
                hover?.close(); hover = HoverThumbnails(path: path, maximumSize: size)
            }
            if let p = hoverPreview.pointer { hover?.request(p.time) }
        }
        // Redecode the current picture at the new size (also when paused).
        player.seek(to: player.currentTime, toleranceBefore: .zero, toleranceAfter: .zero)
    }

    func aspectRatio(_ info: PlayerMediaInfo?) -> Double {
        guard let i = info, i.displayWidth > 0, i.displayHeight > 0 else { return 16.0 / 9.0 }
        return Double(i.displayWidth) / Double(i.displayHeight)
    }

    // MARK: - Input

    func handle(_ e: InputEvent, _ info: PlayerMediaInfo?) {
        switch e {
        case .character("q"), .character("Q"), .escape, .interrupt: quit.store(true, ordering: .relaxed)
        case .character(" "): player.rate == 0 ? player.play() : player.pause()
        case .suspend:
            // Ctrl-Z: stopped like any job; playback holds its place meanwhile and goes on when continued.
            let playing = player.rate > 0
            if playing { player.pause() }
            terminal.suspend()
            resized.store(true, ordering: .relaxed)
            if playing { player.play() }
        // Keys jump loosely and the player makes the place exact once they rest (Player+Scrubbing.swift).
        case .left: player.jump(by: -5, exact: exact)
        case .right: player.jump(by: 5, exact: exact)
        case .down: player.jump(by: -60, exact: exact)
        case .up: player.jump(by: 60, exact: exact)
        case .character(","): player.cancelSettle(); player.step(byFrames: -1)
        case .character("."): player.cancelSettle(); player.step(byFrames: 1)
        case .home: player.jump(toFraction: 0)
        case .end: player.jump(toFraction: 1)
        case .character("["): setRate(index: rateIndex - 1)
        case .character("]"): setRate(index: rateIndex + 1)
        case .character("e"), .character("E"): exact.toggle(); lastStatus = ""
        case .pageUp, .pageDown:
            let chapters = info?.chapters ?? []
            if let t = chapters.jumpTarget(from: player.currentTime, forward: e == .pageDown) {
                player.cancelSettle()
                player.seek(to: t, toleranceBefore: .zero, toleranceAfter: .zero)
            }
        case .character("m"), .character("M"): player.isMuted.toggle()
        case .character("a"), .character("A"): player.playsScrubSound.toggle(); lastStatus = ""
        case .character("#"):
            if let n = player.selectNextAudioStream(), showsLoudness { startLoudness(streamNumber: n) }
        case .character("l"), .character("L"):
            // (The time the status line shows: while a jump settles on its exact frame, the player's own time is still
            // the keyframe it landed on first.)
            player.loopRange = loopMarks.press(at: shownTime ?? player.currentTime)
            lastStatus = ""
        case .character("c"), .character("C"): cutLoop()
        case .character("s"): screenshot(info)
        case .character("S"): screenshot(info, withSubtitles: true)
        case .character("v"): toggleSubtitles()
        case .character("j"): cycleSubtitles(by: 1)
        case .character("J"): cycleSubtitles(by: -1)
        case .character("z"): shiftSubtitles(by: -0.1)
        case .character("Z"): shiftSubtitles(by: 0.1)
        case .character("<"): if playlist.loops || playlist.index > 0 { requestedMove = -1 }
        case .character(">"), .character("\r"), .character("\n"):
            if playlist.loops || playlist.index + 1 < playlist.entries.count { requestedMove = 1 }
        case .character("/"): player.volume = ((player.volume - 0.1) * 10).rounded() / 10
        case .character("*"): player.volume = ((player.volume + 0.1) * 10).rounded() / 10
        case .character(let c) where c.isWholeNumber:
            player.jump(toFraction: Double(c.wholeNumberValue ?? 0) / 10)
        case .mouse(let button, let column, let row, let pressed):
            let onBar = row == layout.barRow && layout.bar.contains(column: column)
            if button & 32 != 0 && button & 3 == 3 {   // the pointer moved, no button held (any-event tracking)
                hoverMoved(to: onBar ? column : nil)
                return
            }
            if pressed { hoverMoved(to: nil) }   // a click or drag shows the main picture itself
            if pressed && (button == 0 && onBar || button == 32 && dragging) {
                player.cancelSettle()   // the mouse takes over from a key jump still settling
                dragging = true
                if player.duration.isNumeric {
                    player.seek(toFraction: layout.bar.fraction(forColumn: column), dragging: true)
                }
            } else if !pressed && dragging {
                dragging = false
                if player.duration.isNumeric {
                    player.seek(toFraction: layout.bar.fraction(forColumn: column), dragging: false)
                } else {
                    player.jump(toFraction: layout.bar.fraction(forColumn: column))
                }
            }
        default: break
        }
    }

    /// The pointer is over the bar at `column` (nil: it left): ask for that time's picture, without touching playback.
    func hoverMoved(to column: Int?) {
        let span = player.seekableSpan
        guard let column, span.isNumeric, span > .zero else { hoverPreview.pointer = nil; return }
        let time = MediaTime.time(
            atFraction: layout.bar.fraction(forColumn: column),
            of: MediaTimeRange(start: player.startTime, duration: span))
        guard hoverPreview.pointer?.time != time || hoverPreview.pointer?.column != column else { return }
        hoverPreview.pointer = (column, time)
        hover?.request(time)
    }

    func setRate(index: Int) {
        rateIndex = min(max(index, 0), rates.count - 1)
        if player.rate > 0 { player.rate = rates[rateIndex] } else { player.rate = rates[rateIndex]; player.pause() }
        lastStatus = ""
    }
}
