import Foundation
import MediaTime
import ScrubKit
import Synchronization
import Locking

/// `scrubkit browse`: a folder as a grid of tiles — thumbnail, name and length — that come in as they are made
/// (``TileLoader``), move (the selected tile plays its preview in place; the pointer across a tile scrubs through
/// it), and open in the player with the folder as its playlist.
// unchecked: UI state on the run loop's thread only; the keyboard thread shares `events`/`quit`/`resized` (Locked,
// Atomic)
public final class BrowseApp: @unchecked Sendable {
    /// How `scrubkit browse` starts.
    public struct Options: Sendable {
        /// Forced graphics (`--graphics`); nil: detect.
        public var graphics: GraphicsKind? = nil
        /// Every playable file under the folder, flattened (no folder tiles).
        public var recursive = false
        /// Where tiles' facts are kept (scrubkit's cache); nil: none kept.
        public var cache: ThumbnailCache? = nil
        /// The desktop's thumbnail cache, where tile pictures are read from and stored; nil: made every time.
        public var desktop: DesktopThumbnailer? = nil
        /// How files open in the player (Enter).
        public var player = PlayerApp.Options()
        /// The lines `i` shows for a file (`scrubkit info`'s).
        public var describe: @Sendable (String) -> [String] = { [$0] }
        /// About how wide a tile is, in pixels (pixel protocols; half blocks take cells).
        public var tilePixels = 192
        /// Whether the selected tile plays its preview after a pause on it.
        public var movingPreviews = true
        /// What notices, pacing and the benchmark are timed on.
        public var clock: MediaClock = SystemClock()
        /// The defaults: detect graphics, the folder's own files and folders, no caches.
        public init() {}
    }

    let options: Options
    let terminal = RawTerminal(input: PlayerApp.keyboard(), output: 1)
    lazy var keyboard = KeyboardThread(terminal: terminal)
    let events = Locked<[InputEvent]>([])
    let quit = Atomic<Bool>(false)
    let resized = Atomic<Bool>(true)
    var renderer: FrameRenderer = NoGraphicsRenderer()
    var cellPixels = (w: 8, h: 16)
    var screen = (columns: 80, rows: 24)
    /// What is browsed: the folder (nil: the files named), its listing, and the tiles shown (ordered, filtered).
    var folder: String?
    var listing: BrowseListing
    var entries: [BrowseEntry] = []
    var order = BrowseOrder.name
    var filter = ""
    /// `/` typing a filter.
    var filtering = false
    var layout = BrowseLayout(columns: 80, rows: 24, cell: CellGeometry(width: 8, height: 16, wholeCells: false))
    var selection = BrowseSelection(count: 0)
    var loader: TileLoader? = nil
    /// What each slot on screen shows (redrawn when it changes), the header, the info line and the frame drawn.
    var drawnSlots: [Int: String] = [:]
    var drawnHeader = "", drawnInfo = "", drawnFrame: Int? = nil
    var loaderChanges = -1
    /// The tiles on screen when the loader was last told what is wanted.
    var wantedFor: Range<Int> = 0..<0
    /// `i`: the lines shown over the grid until a key.
    var infoPanel: [String]? = nil
    /// A passing notice on the info line, and until when.
    var notice: (text: String, until: Double)? = nil
    /// Scrubbing by hover: the tile under the pointer, where across it, and the decoder of its pictures.
    var scrub: (index: Int, fraction: Double)? = nil
    var scrubPictures: HoverThumbnails? = nil
    /// The selected tile's moving preview.
    lazy var motion = TileMotion(cache: options.cache)
    /// Folders gone into (Backspace comes back), with the tile to select again.
    var trail: [(folder: String, name: String)] = []
    /// Lines for after the screen is restored (files the player could not play).
    public internal(set) var failures: [String] = []

    /// A grid of `folder`'s files and subfolders; nothing happens until ``run()``. Throws when it cannot be read.
    public init(folder: String, options: Options) throws {
        self.options = options
        self.folder = folder
        listing = try BrowseListing(folder: folder, recursive: options.recursive)
    }

    /// A grid of these files, in this order.
    public init(paths: [String], options: Options) {
        self.options = options
        folder = nil
        listing = BrowseListing(paths: paths)
    }

    /// Runs until the user quits; 1 when a file opened from the grid could not be played.
    public func run() throws -> Int32 {
        try FullScreen.run(
            "browse", terminal: terminal, forced: options.graphics, renderer: { [unowned self] in renderer },
            resized: { [weak self] in self?.resized.store(true, ordering: .relaxed) }
        ) { choice in
            renderer = choice.renderer
            defer { loader?.close(); scrubPictures?.close(); motion.stop(); keyboard.stop() }
            return loop()
        }
    }

    /// Keys, drawing and tiles until the user quits.
    func loop() -> Int32 {
        startKeyboard()
        refreshEntries(keeping: nil)
        while !quit.load(ordering: .relaxed) {
            if resized.exchange(false, ordering: .relaxed) { relayout() }
            let pending = events.withLock { e in defer { e = [] }; return e }
            for e in pending where !quit.load(ordering: .relaxed) { handle(e) }
            if quit.load(ordering: .relaxed) { break }
            draw()
            events.wait(
                until: { !$0.isEmpty },
                timeout: motion.isPlaying || scrub != nil || (loader?.pending ?? 0) > 0 ? 0.03 : 0.1)
        }
        return failures.isEmpty ? 0 : 1
    }

    func startKeyboard() {
        keyboard.start(foreground: { [self] in resized.store(true, ordering: .relaxed) },
                       deliver: { [self] evs in
                           if evs.contains(.interrupt) { quit.store(true, ordering: .relaxed) }
                           events.withLock { $0 += evs }
                       },
                       closed: { [self] in quit.store(true, ordering: .relaxed) })
    }

    /// The window's size read again, the grid laid out for it, and a loader for the new tile size.
    func relayout() {
        if let s = TerminalOutput.size(1) {
            screen = (s.columns, s.rows)
            if s.pixelWidth > 0 && s.pixelHeight > 0 {
                cellPixels = (max(1, s.pixelWidth / s.columns), max(1, s.pixelHeight / s.rows))
            }
        }
        // Tiles are laid out in the screen's own pixels; their pictures have the renderer's (kitty over SSH sends
        // half).
        let cell =
            renderer.drawsPictures
            ? renderer.cellGeometry(cellPixels) : CellGeometry(width: 1, height: 2, wholeCells: true)
        let screenCell =
            cell.wholeCells ? cell : CellGeometry(width: cellPixels.w, height: cellPixels.h, wholeCells: false)
        layout = BrowseLayout(
            columns: screen.columns, rows: screen.rows, cell: screenCell, tilePixels: options.tilePixels)
        let size = layout.pictureSize(cell: cell)
        if loader?.maximumSize != size {
            loader?.close()
            loader = TileLoader(
                maximumSize: size, cache: options.cache, desktop: options.desktop,
                memoryBudget: layout.pictureBudget(cell: cell))
        }
        selection.update(count: entries.count, layout: layout)
        stopMotion()
        invalidate()
    }

    /// Everything drawn again (the screen cleared first).
    func invalidate() {
        terminal.write(renderer.clearTiles() + "\u{1B}[0m\u{1B}[2J")
        drawnSlots = [:]
        (drawnHeader, drawnInfo, drawnFrame, loaderChanges) = ("", "", nil, -1)
    }

    /// The tiles shown again after the order, the filter or the folder changed; the selection stays on `keeping`'s
    /// path (else on the first tile).
    func refreshEntries(keeping path: String?) {
        let was = path ?? (entries.indices.contains(selection.index) ? entries[selection.index].path : nil)
        let loader = self.loader
        entries = listing.entries(order: order, filter: filter, duration: { loader?.facts(for: $0)?.duration })
        selection.update(count: entries.count, layout: layout)
        if let was, let i = entries.firstIndex(where: { $0.path == was }) { selection.select(i, in: layout) }
        else { selection.select(0, in: layout) }
        stopMotion()
        invalidate()
    }
}
