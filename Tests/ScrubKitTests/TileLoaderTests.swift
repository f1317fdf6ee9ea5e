@testable import ScrubKit
import Foundation
import ScrubTerminal
import Testing

/// `browse`'s tiles: made once, then served from the caches; bounded in memory however large the folder.
@Suite(.enabled(if: Corpus.samplesAvailable && Reference.available, "needs samples/ and ffmpeg"), .serialized,
        .timeLimit(.minutes(2)))
struct TileLoaderTests {
    /// This process's threads named as the loader names its workers (`scrubkit.tileN`).
    static func tileThreads() -> Int { threadNames().filter { $0.hasPrefix("scrubkit.tile") }.count }

    /// The names of this process's threads, as the system shows them.
    static func threadNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).compactMap { t in
            let name = try? String(contentsOfFile: "/proc/self/task/\(t)/comm", encoding: .utf8)
            return name?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Waits up to `seconds` for `condition`; whether it held.
    static func eventually(_ seconds: Double = 5, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while !condition() { if Date() > end { return false }; usleep(10_000) }
        return true
    }

    /// A loader dropped without ``TileLoader/close()`` is freed and its worker threads end: they hold what they
    /// share, not the loader (before, each held it for its whole loop, so `deinit` never ran and a thread per core
    /// stayed blocked for ever).
    @Test func aLoaderDroppedWithoutClosingEndsItsThreads() throws {
        #expect(Self.eventually { Self.tileThreads() == 0 }, "no loader's threads left from other tests")
        let before = Self.tileThreads()
        weak var dropped: TileLoader?
        do {
            let loader = TileLoader(maximumSize: .longestSide(64), cache: nil, desktop: nil, workers: 3,
                                    memoryBudget: 1 << 20)
            dropped = loader
            let clip = Corpus.sample("h264_gop2s.mp4")
            loader.want([clip])
            #expect(Self.eventually(30) { loader.state(for: clip) != nil }, "the tile is made")
            #expect(Self.eventually { Self.tileThreads() == before + 3 },
                    "three workers run: \(Self.tileThreads() - before) in \(Self.threadNames())")
        }
        #expect(dropped == nil, "the loader is freed once dropped")
        #expect(Self.eventually { Self.tileThreads() == before },
                "its workers ended: \(Self.tileThreads() - before) left")
    }

    func waitForAll(_ loader: TileLoader, _ paths: [String]) {
        let end = Date().addingTimeInterval(60)
        while Date() < end && !paths.allSatisfy({ loader.state(for: $0) != nil }) { usleep(2000) }
    }

    /// Tiles come with their facts and a picture inside the box; a broken file's tile says why; a second grid on
    /// the same caches makes nothing (facts from scrubkit's cache, pictures from the desktop's) and shows the same;
    /// the broken file is in the desktop's failure cache.
    @Test func tilesAreMadeOnceThenServedFromTheCaches() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-tiles-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broken = dir + "/broken.mp4"
        _ = FileManager.default.createFile(atPath: broken, contents: Data(repeating: 9, count: 3000))
        let paths = [
            Corpus.sample("h264_gop2s.mp4"), Corpus.sample("rotated90.mp4"), Corpus.sample("scenes.mp4"), broken,
        ]
        let box = MaximumSize.box(width: 200, height: 120)
        func loader() -> TileLoader {
            TileLoader(
                maximumSize: box, cache: ThumbnailCache(memoryBudget: 0, directory: dir + "/scrubkit"),
                desktop: DesktopThumbnailer(
                    desktop: DesktopThumbnails(root: dir + "/thumbnails", application: "test"), software: "test"),
                memoryBudget: 8 << 20)
        }
        let first = loader()
        first.want(paths)
        waitForAll(first, paths)
        #expect(first.counts.made == 3 && first.counts.fromCache == 0)
        guard case .ready(let facts, let picture?)? = first.state(for: paths[0]) else {
            Issue.record("no tile: \(String(describing: first.state(for: paths[0])))"); return
        }
        let info = MediaInspector(verifiesDecoding: false).inspect(path: paths[0])
        #expect(
            facts.codec == info.video?.codec && facts.width == info.video?.displayWidth
                && facts.height == info.video?.displayHeight)
        #expect(abs((facts.duration ?? 0) - info.duration.seconds) < 0.001 && facts.durationText != nil)
        #expect(picture.width <= 200 && picture.height <= 120 && (picture.width == 200 || picture.height == 120))
        guard case .ready(_, let upright?)? = first.state(for: paths[1]) else {
            Issue.record("no rotated tile"); return
        }
        #expect(upright.height > upright.width, "rotated90.mp4 shown upright")
        guard case .failed(let why)? = first.state(for: broken) else { Issue.record("the broken file's tile"); return }
        #expect(!why.isEmpty && !why.contains(broken), "one line, without the path: \(why)")
        // Recorded in the desktop's failure cache, as `thumb --cache` records it, for file managers to skip.
        let desktop = DesktopThumbnails(root: dir + "/thumbnails", application: "test")
        #expect(desktop.hasFailure(path: broken, identity: try #require(SourceIdentity(path: broken))))
        first.close()

        let second = loader()
        second.want(paths)
        waitForAll(second, paths)
        #expect(second.counts.made == 0 && second.counts.fromCache == 3, "\(second.counts)")
        guard case .ready(let again, let cached?)? = second.state(for: paths[0]) else {
            Issue.record("no cached tile"); return
        }
        #expect(again == facts && cached.width == picture.width && cached.height == picture.height)
        second.close()
    }

    /// 10,000 files: listing them is quick, and paging through screens of tiles keeps no more pictures than the
    /// budget — the first screen's are dropped — while the facts of every tile made stay.
    @Test func tenThousandFilesStayWithinTheBudget() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-10k-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = dir + "/.clip.mp4"
        _ = Reference.run(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=10:duration=1", "-c:v", "libx264", clip])
        try #require(FileManager.default.fileExists(atPath: clip), "ffmpeg made the clip")
        for n in 0..<10_000 {
            try FileManager.default.createSymbolicLink(atPath: "\(dir)/v\(n).mp4", withDestinationPath: clip)
        }
        let listing = try BrowseListing(folder: dir)
        let entries = listing.entries(order: .name)
        #expect(entries.count == 10_000 && entries[2].name == "v2.mp4")
        let layout = BrowseLayout(columns: 120, rows: 40, cell: CellGeometry(width: 10, height: 20, wholeCells: false))
        let tileBytes = layout.tileWidth * 10 * layout.pictureRows * 20 * 3
        let budget = tileBytes * layout.tilesPerScreen * 2
        let loader = TileLoader(
            maximumSize: .box(width: layout.tileWidth * 10, height: layout.pictureRows * 20), cache: nil, desktop: nil,
            memoryBudget: budget)
        defer { loader.close() }
        var selection = BrowseSelection(count: entries.count)
        var firstScreen: [String] = []
        for page in 0..<6 {
            let shown = selection.visible(layout).map { entries[$0].path }
            if page == 0 { firstScreen = shown }
            loader.want(selection.wanted(layout).map { entries[$0].path })
            waitForAll(loader, shown)
            #expect(loader.keptBytes <= budget, "page \(page): \(loader.keptBytes) > \(budget)")
            selection.move(by: layout.tilesPerScreen, in: layout)
        }
        #expect(firstScreen.allSatisfy { loader.state(for: $0) == nil }, "the first screen's pictures were dropped")
        #expect(firstScreen.allSatisfy { (p: String) in loader.facts(for: p)?.codec == "h264" }, "their facts stay")
    }
}

/// A tile's moving preview: its frames kept in the thumbnail cache, read back whole the next time.
@Suite(.enabled(if: Corpus.samplesAvailable, "needs samples/"), .timeLimit(.minutes(2)))
struct TilePreviewTests {
    @Test func previewFramesAreMadeOnceThenReadFromTheCache() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-motion-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = ThumbnailCache(memoryBudget: 0, directory: dir)
        let size = MaximumSize.box(width: 160, height: 90)
        let made = try TilePreview.frames(of: Corpus.sample("scenes.mp4"), size: size, cache: cache)
        #expect(made.count == TilePreview.excerpts * Int(TilePreview.excerptSeconds) * TilePreview.framesPerSecond)
        #expect(
            made.allSatisfy { $0.width <= 160 && $0.height <= 90 } && Set(made.map(\.pixels)).count > made.count / 2,
            "moving frames")
        // Cancelled at once: only the cache can answer.
        let read = try TilePreview.frames(
            of: Corpus.sample("scenes.mp4"), size: size, cache: cache, isCancelled: { true })
        #expect(read == made)
        #expect(TilePreview.decode(Array(TilePreview.encode(made)!.dropLast(3))) == nil, "a damaged entry is a miss")
        #expect(throws: MediaError.self) {
            try TilePreview.frames(of: Corpus.sample("large_6000x4000.jpg") + ".missing", size: size, cache: cache)
        }
    }
}
