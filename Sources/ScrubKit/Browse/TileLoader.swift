import Foundation
import Locking
import MediaTime

/// The pictures and facts of `scrubkit browse`'s tiles, made in the background on every core in the order the grid
/// wants them (``want(_:)``: the visible tiles first, then the next screen), each from the caches when they hold it.
///
/// A tile's picture is the desktop's thumbnail (the freedesktop.org cache: a file a file manager has seen is
/// instant) fitted to the tile, its facts (``TileFacts``) from scrubkit's cache; when either is missing the file is
/// opened once, a keyframe near 10 % is thumbnailed at the desktop's size (stored there for every desktop program)
/// and the facts are stored. Pictures are kept in a ``MemoryCache`` bounded by `memoryBudget` — about what a few
/// screens show — so a folder of any size holds only what is near the screen; facts (a few bytes each) are kept for
/// every file seen, for ordering by length.
public final class TileLoader: Sendable {
    /// A tile as far as it is known.
    public enum State: Sendable, Equatable {
        /// Facts and the picture fitted to ``maximumSize`` (nil: the file has no picture — only sound).
        case ready(TileFacts, RGBImage?)
        /// Why the file cannot be shown (one line, without the path).
        case failed(String)
    }

    /// What the loader and its worker threads share. The threads hold this, never the loader: a loader dropped
    /// without ``close()`` is freed, and its `deinit` closes this, which ends them.
    private final class Work: Sendable {
        struct Shared {
            var queue: [String] = []
            var inFlight: Set<String> = []
            var failures: [String: String] = [:]
            var facts: [String: TileFacts] = [:]
            var closed = false
            var changes = 0
            var made = 0, fromCache = 0
        }
        let shared = Locked(Shared())
        let pictures: MemoryCache<String, RGBImage>
        let make: @Sendable (String) -> Result<(TileFacts, RGBImage?, Bool), MediaError>

        init(memoryBudget: Int,
             make: @escaping @Sendable (String) -> Result<(TileFacts, RGBImage?, Bool), MediaError>) {
            pictures = MemoryCache(budget: max(0, memoryBudget))
            self.make = make
        }

        /// A worker's loop: the most wanted tile next, until closed.
        func run() {
            while true {
                let next: String? = shared.withLock(waitingUntil: { $0.closed || !$0.queue.isEmpty }) { s, _ in
                    guard !s.closed, !s.queue.isEmpty else { return nil }
                    let p = s.queue.removeFirst()
                    s.inFlight.insert(p)
                    return p
                }
                guard let path = next else { return }
                let result = make(path)
                shared.withLock { s in
                    s.inFlight.remove(path)
                    s.changes += 1
                    switch result {
                    case .success(let (facts, image, cached)):
                        s.facts[path] = facts
                        if let image { pictures.insert(image, for: path, cost: image.pixels.count) }
                        if cached { s.fromCache += 1 } else { s.made += 1 }
                    case .failure(let e): s.failures[path] = e.reason
                    }
                }
            }
        }
    }
    private let work: Work
    private var shared: Locked<Work.Shared> { work.shared }
    private var pictures: MemoryCache<String, RGBImage> { work.pictures }
    /// The box tile pictures are fitted to.
    public let maximumSize: MaximumSize
    private let cache: ThumbnailCache?
    private let desktop: DesktopThumbnailer?

    /// A loader fitting pictures to `maximumSize`, reading and filling `cache` (facts) and `desktop` (pictures),
    /// on `workers` threads (default: one per core), keeping at most `memoryBudget` bytes of pictures. Its threads
    /// end with ``close()``, or when it is dropped.
    public init(maximumSize: MaximumSize, cache: ThumbnailCache?, desktop: DesktopThumbnailer?,
                workers: Int = ProcessInfo.processInfo.activeProcessorCount, memoryBudget: Int) {
        self.maximumSize = maximumSize
        self.cache = cache
        self.desktop = desktop
        work = Work(memoryBudget: memoryBudget) { path in
            TileLoader.load(path, maximumSize: maximumSize, cache: cache, desktop: desktop)
        }
        for n in 0..<max(1, workers) {
            NamedThread.start("scrubkit.tile\(n)") { [work] in work.run() }
        }
    }

    deinit { close() }

    /// The files the grid shows and will show next, most wanted first: replaces what was wanted before (tiles
    /// being made are finished; ready and failed ones are not made again).
    public func want(_ paths: [String]) {
        shared.withLock { s in
            guard !s.closed else { return }
            s.queue = paths.filter { p in
                s.failures[p] == nil && !s.inFlight.contains(p)
                    && !(s.facts[p] != nil && (s.facts[p]!.width == 0 || pictures.contains(p)))
            }
        }
    }

    /// What is known of `path`'s tile; nil while it is not made (or its picture was dropped and is wanted again).
    public func state(for path: String) -> State? {
        shared.withLock { s in
            if let why = s.failures[path] { return .failed(why) }
            guard let facts = s.facts[path] else { return nil }
            if facts.width == 0 { return .ready(facts, nil) }
            return pictures.value(for: path).map { .ready(facts, $0) }
        }
    }

    /// The facts known of `path` (kept after its picture is dropped).
    public func facts(for path: String) -> TileFacts? { shared.withLock { $0.facts[path] } }

    /// Counts finished tiles: a new number means something new to draw.
    public var changes: Int { shared.withLock { $0.changes } }

    /// Tiles waiting or being made.
    public var pending: Int { shared.withLock { $0.queue.count + $0.inFlight.count } }

    /// Tiles made (opened and decoded) and tiles served from the caches so far.
    public var counts: (made: Int, fromCache: Int) { shared.withLock { ($0.made, $0.fromCache) } }

    /// Bytes of pictures kept.
    public var keptBytes: Int { pictures.totalCost }

    /// Stops the workers (a tile being made is finished first, then dropped).
    public func close() { shared.withLock { $0.closed = true; $0.queue = [] } }

    /// The tile of `path`: from the caches when both hold it, else made from one open.
    static func load(
        _ path: String, maximumSize: MaximumSize, cache: ThumbnailCache?,
        desktop: DesktopThumbnailer?
    ) -> Result<(TileFacts, RGBImage?, Bool), MediaError> {
        guard let identity = SourceIdentity(path: path) else {
            return .failure(MediaError(.notFound, path: path, "cannot be read"))
        }
        let flavor = DesktopThumbnailer.flavor(for: maximumSize)
        let factsKey = CacheKey(.facts, identity: identity, parts: [])
        if let facts = cache?.bytes(for: factsKey).flatMap(TileFacts.init(payload:)) {
            if facts.width == 0 { return .success((facts, nil, true)) }
            if let t = desktop?.cached(path: path, identity: identity, fitting: maximumSize) {
                return .success((facts, t.image, true))
            }
        }
        var gen = ThumbnailGenerator(path: path)
        gen.setFastest()   // the keyframe at or before 10 %, as file managers' thumbnailers take
        /// One open: the file's facts and its picture at `size`.
        var timeline: ThumbnailGenerator.Timeline? = nil
        func make(_ size: MaximumSize) throws -> Thumbnail {
            gen.maximumSize = size
            let made = try gen.generate(planning: { _ in [.fraction(numerator: 1, denominator: 10)] })
            timeline = made.0
            return try made.1[0].result.get()
        }
        do {
            let thumb =
                if let desktop, let flavor {
                    try desktop.make(path: path, identity: identity, flavor: flavor, make)
                } else {
                    try make(maximumSize)
                }
            guard let timeline else { throw MediaError(.decodeFailed, path: path, "no facts") }
            let facts = TileFacts(timeline)
            let (w, h) = maximumSize.fit(width: thumb.image.width, height: thumb.image.height)
            let image =
                w == thumb.image.width && h == thumb.image.height
                ? thumb.image : try thumb.image.resized(width: w, height: h)
            cache?.store(facts.payload, for: factsKey)
            return .success((facts, image, false))
        } catch let e as MediaError where e.kind == .noVideo {
            let info = MediaInspector(verifiesDecoding: false).inspect(path: path)
            if let error = info.error { return .failure(error) }
            // (No picture to show: stored with no size, so the next grid takes it from the cache as sound only.)
            let found = TileFacts(info)
            let facts = TileFacts(duration: found.duration, codec: found.codec, width: 0, height: 0)
            cache?.store(facts.payload, for: factsKey)
            return .success((facts, nil, false))
        } catch let e as MediaError {
            return .failure(e)
        } catch {
            return .failure(MediaError(.decodeFailed, path: path, "\(error)"))
        }
    }
}
