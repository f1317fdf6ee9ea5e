import Foundation
import MediaTime
import ScrubKit

/// `scrubkit browse --bench`: the grid without a terminal. How long the first screen of tiles takes (listing
/// included), the memory held while paging through the folder, and pointer move → picture while scrubbing a tile.
public enum BrowseBenchmark {
    /// What was measured.
    public struct Report: Sendable {
        /// Files and folders listed.
        public var entries = 0
        /// Tiles on the first screen.
        public var tilesOnScreen = 0
        /// Seconds from the start (listing included) until every tile of the first screen was ready or failed.
        public var firstScreen = 0.0
        /// Of the first screen's tiles: made (opened and decoded), served from the caches.
        public var made = 0, fromCache = 0
        /// Screens paged through after the first.
        public var pages = 0
        /// The seconds a paged screen took to fill: median and slowest.
        public var pageMedian = 0.0, pageSlowest = 0.0
        /// Resident memory at the end and its peak, and the most bytes of tile pictures kept (bytes).
        public var rss = 0, peakRSS = 0, keptBytes = 0
        /// The memory budget of tile pictures.
        public var budget = 0
        /// Pointer moves across one tile, each timed to its picture (milliseconds).
        public var scrubMoves: [Double] = []
        /// The file scrubbed.
        public var scrubFile = ""

        /// One JSON object.
        public var json: String {
            func r(_ x: Double) -> String { String(format: "%.4f", x) }
            func ms(_ p: Double) -> String {
                scrubMoves.isEmpty ? "null" : String(format: "%.1f", PlayerBenchmark.percentile(scrubMoves, p))
            }
            return
                "{\"entries\": \(entries), \"tilesOnScreen\": \(tilesOnScreen), \"firstScreenSeconds\": "
                    + "\(r(firstScreen)), "
                + "\"made\": \(made), \"fromCache\": \(fromCache), \"pages\": \(pages), \"pageMedianSeconds\": "
                    + "\(r(pageMedian)), "
                + "\"pageSlowestSeconds\": \(r(pageSlowest)), \"rssBytes\": \(rss), \"peakRSSBytes\": \(peakRSS), "
                + "\"keptPictureBytes\": \(keptBytes), \"pictureBudgetBytes\": \(budget), \"scrubMoves\": "
                    + "\(scrubMoves.count), "
                + "\"scrubP50Ms\": \(ms(50)), \"scrubP95Ms\": \(ms(95)), \"scrubMaxMs\": "
                    + "\(scrubMoves.max().map { String(format: "%.1f", $0) } ?? "null")}"
        }
    }

    /// Measures `folder` on a `columns × rows` terminal with 10×20-pixel cells: the first screen, then `pages` more
    /// screens (default: up to 20), then 40 pointer moves across `scrubFile`'s tile (default: the first tile with a
    /// picture and a length).
    public static func run(
        folder: String, columns: Int, rows: Int, options: BrowseApp.Options, scrubFile: String?, pages: Int = 20
    ) throws -> Report {
        var report = Report()
        let start = options.clock.now()
        let listing = try BrowseListing(folder: folder, recursive: options.recursive)
        let entries = listing.entries(order: .name)
        report.entries = entries.count
        let cell = CellGeometry(width: 10, height: 20, wholeCells: false)
        let layout = BrowseLayout(columns: columns, rows: rows, cell: cell, tilePixels: options.tilePixels)
        let size = layout.pictureSize(cell: cell)
        report.budget = layout.pictureBudget(cell: cell)
        let loader = TileLoader(
            maximumSize: size, cache: options.cache, desktop: options.desktop, memoryBudget: report.budget)
        defer { loader.close() }
        var selection = BrowseSelection(count: entries.count)
        /// Waits until every tile on screen is ready or failed; returns the seconds it took.
        func fill() -> Double {
            let t0 = options.clock.now()
            let files = selection.visible(layout).compactMap { entries[$0].pictureSource }
            loader.want(selection.wanted(layout).compactMap { entries[$0].pictureSource })
            while !files.allSatisfy({ loader.state(for: $0) != nil }) { usleep(500) }
            report.keptBytes = max(report.keptBytes, loader.keptBytes)
            return options.clock.now() - t0
        }
        _ = fill()
        report.firstScreen = options.clock.now() - start
        report.tilesOnScreen = selection.visible(layout).count
        (report.made, report.fromCache) = loader.counts
        var times: [Double] = []
        while times.count < pages && selection.visible(layout).upperBound < entries.count {
            selection.move(by: layout.tilesPerScreen, in: layout)
            times.append(fill())
        }
        report.pages = times.count
        report.pageMedian = times.isEmpty ? 0 : PlayerBenchmark.percentile(times, 50)
        report.pageSlowest = times.max() ?? 0
        (report.rss, report.peakRSS) = DecodeBenchmark.memory()
        // Scrubbing: the pointer across one tile, each move timed to its picture.
        let playable = entries.first { e in
            if case .ready(let facts, _?)? = loader.state(for: e.path) { return facts.duration != nil }
            return false
        }
        if let path = scrubFile ?? playable?.path {
            report.scrubFile = path
            report.scrubMoves = try scrub(path, size: size, moves: 40, clock: options.clock)
        }
        return report
    }

    /// `moves` pointer positions left to right across a tile of `path` (its length from `info`), each asked of a hover
    /// decoder as the grid asks it and timed on `clock` until its picture is there (milliseconds).
    static func scrub(_ path: String, size: MaximumSize, moves: Int, clock: MediaClock) throws -> [Double] {
        let info = MediaInspector(verifiesDecoding: false).inspect(path: path)
        if let e = info.error { throw e }
        guard info.durationKind == .known, info.duration.seconds > 0 else { return [] }
        let hover = HoverThumbnails(path: path, maximumSize: size, memoryLimit: 8 << 20)
        defer { hover.close() }
        var out: [Double] = []
        for i in 0..<moves {
            let time = MediaTime(
                seconds: info.duration.seconds * Double(i) / Double(max(1, moves - 1)), preferredTimescale: 1000)
            let t0 = clock.now()
            hover.request(time)
            while hover.newest?.requested != time, hover.failure == nil { usleep(200) }
            if let f = hover.failure { throw f }
            out.append((clock.now() - t0) * 1000)
        }
        return out
    }
}
