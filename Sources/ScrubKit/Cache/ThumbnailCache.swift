import FFmpegBridge
import Foundation
import MediaTime

/// Thumbnails kept between requests: a memory tier (LRU under a byte budget, pixel bytes as cost) in front of an
/// optional disk tier (``DiskCache``: LRU under a byte budget, whole-or-nothing entries checked on every read).
///
/// Keys are built by ``ThumbnailGenerator/cacheKey(for:identity:)`` from the source's ``SourceIdentity`` and every
/// setting that changes pixels, so a changed file or a different setting is a miss, never a stale hit.
/// Give one instance to many generators (it is `Sendable`); ``defaultDirectory`` and the default budgets are what
/// `scrubkit` uses.
public final class ThumbnailCache: Sendable {
    /// Pictures in memory, by key.
    public let memory: MemoryCache<CacheKey, Thumbnail>
    /// Pictures (and encoded files, see ``encodedFile(for:)``) on disk; nil for a memory-only cache.
    public let disk: DiskCache?

    /// Default memory budget: 64 MiB (about 370 thumbnails of 320×180).
    public static let defaultMemoryBudget = 64 << 20
    /// Default disk budget: 512 MiB.
    public static let defaultDiskBudget = 512 << 20

    /// `$XDG_CACHE_HOME/scrubkit` (or `~/.cache/scrubkit`): scrubkit's own disk tier.
    public static var defaultDirectory: String {
        (cacheHome as NSString).appendingPathComponent("scrubkit")
    }

    /// `$XDG_CACHE_HOME` when set to an absolute path, else `$HOME/.cache`.
    public static var cacheHome: String {
        let env = ProcessInfo.processInfo.environment
        if let x = env["XDG_CACHE_HOME"], x.hasPrefix("/") { return x }
        return ((env["HOME"] ?? NSHomeDirectory()) as NSString).appendingPathComponent(".cache")
    }

    /// A cache with a memory tier of `memoryBudget` bytes and, when `directory` is given, a disk tier there.
    /// `warn` receives one line per kind of disk trouble (the cache then carries on as a miss).
    public init(
        memoryBudget: Int = ThumbnailCache.defaultMemoryBudget, directory: String? = nil,
        diskBudget: Int = ThumbnailCache.defaultDiskBudget, warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        memory = MemoryCache(budget: memoryBudget)
        disk = directory.map { DiskCache(directory: $0, budget: diskBudget, warn: warn) }
    }

    /// The thumbnail stored for `key`: memory first, then disk (a disk hit is kept in memory too).
    public func thumbnail(for key: CacheKey) -> Thumbnail? {
        if let t = memory.value(for: key) { return t }
        guard let bytes = disk?.bytes(for: key.description), let t = ThumbnailCache.decodeThumbnail(bytes) else {
            return nil
        }
        memory.insert(t, for: key, cost: t.image.pixels.count)
        return t
    }

    /// Keeps `thumbnail` under `key` in memory and on disk.
    public func store(_ thumbnail: Thumbnail, for key: CacheKey) {
        memory.insert(thumbnail, for: key, cost: thumbnail.image.pixels.count)
        disk?.store(ThumbnailCache.encodeThumbnail(thumbnail), for: key.description)
    }

    /// The payload stored on disk for `key` (scene lists, batch outputs: entries whose layout their kind's owner
    /// reads), nil when absent, damaged or memory-only.
    public func bytes(for key: CacheKey) -> [UInt8]? { disk?.bytes(for: key.description) }

    /// Keeps `payload` on disk for `key` (nothing in a memory-only cache).
    public func store(_ payload: [UInt8], for key: CacheKey) { disk?.store(payload, for: key.description) }

    // MARK: - Encoded files

    /// A thumbnail file as written (JPEG/PNG/WebP bytes) with what a caller reports about it.
    public struct EncodedFile: Sendable, Equatable {
        /// The encoded file.
        public var bytes: [UInt8]
        /// The time asked for.
        public var requestedTime: MediaTime
        /// The presentation time of the frame shown.
        public var actualTime: MediaTime
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// The rotation applied (degrees clockwise).
        public var rotation: Int
        /// The frame shown at the time (its display interval contains it).
        public var isExact: Bool
        /// The nearest frame that decodes, outside the tolerance (damaged data).
        public var isApproximate: Bool
        /// For a representative frame made now: the frames considered and why the others were passed over (not
        /// kept in the cache).
        public var candidates: [FrameCandidate] = []

        /// An encoded file with these facts.
        public init(
            bytes: [UInt8], requestedTime: MediaTime, actualTime: MediaTime, width: Int, height: Int, rotation: Int,
            isExact: Bool, isApproximate: Bool, candidates: [FrameCandidate] = []
        ) {
            self.candidates = candidates
            self.bytes = bytes
            self.requestedTime = requestedTime
            self.actualTime = actualTime
            self.width = width
            self.height = height
            self.rotation = rotation
            self.isExact = isExact
            self.isApproximate = isApproximate
        }
    }

    /// A thumbnail as an encoded file (`rotation`: what to report as applied).
    public static func encodedFile(
        _ thumb: Thumbnail, format: ImageFormat, quality: Int, rotation: Int
    ) throws -> EncodedFile {
        EncodedFile(
            bytes: try thumb.encoded(as: format, quality: quality), requestedTime: thumb.requestedTime,
            actualTime: thumb.actualTime,
            width: thumb.image.width, height: thumb.image.height, rotation: rotation, isExact: thumb.isExact,
            isApproximate: thumb.isApproximate, candidates: thumb.candidates)
    }

    /// An encoded file stored on disk for `key` (whose key must include the format and quality).
    public func encodedFile(for key: CacheKey) -> EncodedFile? {
        guard let b = disk?.bytes(for: key.description) else { return nil }
        var r = ByteReader(b)
        guard let req = r.time(), let act = r.time(), let w = r.int(), let h = r.int(), let rot = r.int(),
            let flags = r.int(),
            w > 0, h > 0
        else { return nil }
        return EncodedFile(
            bytes: Array(b[r.offset...]), requestedTime: req, actualTime: act, width: w, height: h, rotation: rot,
            isExact: flags & 1 != 0, isApproximate: flags & 2 != 0)
    }

    /// Stores an encoded file on disk.
    public func store(_ file: EncodedFile, for key: CacheKey) {
        var w = ByteWriter()
        w.time(file.requestedTime); w.time(file.actualTime)
        w.int(file.width); w.int(file.height); w.int(file.rotation);
        w.int((file.isExact ? 1 : 0) | (file.isApproximate ? 2 : 0))
        disk?.store(w.bytes + file.bytes, for: key.description)
    }

    // MARK: - Pictures as bytes

    static func encodeThumbnail(_ t: Thumbnail) -> [UInt8] {
        var w = ByteWriter()
        w.time(t.requestedTime); w.time(t.actualTime)
        w.int(t.image.width); w.int(t.image.height); w.int(t.orientation.rotation)
        w.int((t.orientation.mirrored ? 1 : 0) | (t.isExact ? 2 : 0) | (t.isApproximate ? 4 : 0))
        return w.bytes + t.image.pixels
    }

    static func decodeThumbnail(_ b: [UInt8]) -> Thumbnail? {
        var r = ByteReader(b)
        guard let req = r.time(), let act = r.time(), let w = r.int(), let h = r.int(), let rot = r.int(),
            let flags = r.int(),
            w > 0, h > 0, w <= 1 << 16, h <= 1 << 16, b.count - r.offset == w * h * 3
        else { return nil }
        let image = RGBImage(width: w, height: h, pixels: Array(b[r.offset...]))
        return Thumbnail(
            requestedTime: req, actualTime: act, image: image,
            orientation: Orientation(rotation: rot, mirrored: flags & 1 != 0),
            isExact: flags & 2 != 0, isApproximate: flags & 4 != 0)
    }
}

/// Little-endian fields for cache payloads.
struct ByteWriter {
    var bytes: [UInt8] = []
    mutating func int(_ v: Int) { DiskCache.appendLE(&bytes, UInt64(bitPattern: Int64(v)), 8) }
    mutating func time(_ t: MediaTime) {
        int(Int(t.value)); int(Int(t.timescale)); int(Int(t.flags.rawValue))
    }
}

struct ByteReader {
    let bytes: [UInt8]
    var offset = 0
    init(_ b: [UInt8]) { bytes = b }
    mutating func int() -> Int? {
        guard offset + 8 <= bytes.count else { return nil }
        defer { offset += 8 }
        return Int(Int64(bitPattern: DiskCache.readLE(bytes, offset, 8)))
    }
    mutating func time() -> MediaTime? {
        guard let v = int(), let s = int(), let f = int(), let ts = Int32(exactly: s), let fl = UInt32(exactly: f)
        else { return nil }
        return MediaTime(value: Int64(v), timescale: ts, flags: MediaTime.Flags(rawValue: fl))
    }
}
