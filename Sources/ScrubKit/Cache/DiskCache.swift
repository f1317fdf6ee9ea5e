import FFmpegBridge
import Foundation
import Locking

/// A directory of cached byte strings with a size budget, least recently used evicted first.
///
/// - An entry is one file `entries/XY/HASH.entry` (the 64-bit FNV-1a hash of its key, spread over 256
///   subdirectories): a lookup is one `open`, however many entries there are.
/// - Each file carries a header (magic, lengths, CRC-32 of the payload) and its full key. A file that is short,
///   damaged, or belongs to another key (a hash collision) is removed and reported as a miss: never served.
/// - Writes go to a temporary file renamed into place, so readers see a whole entry or none; a reader that finds
///   an entry touches its modification time, which is the LRU order for sweeps.
/// - A small `usage` ledger (updated under `flock`, shared by every process using the directory) keeps the running
///   total; when it passes the budget a sweep deletes the least recently used entries down to 90 % of it and
///   rewrites the ledger from a real count. Temporary files left by killed writers are swept after 15 minutes.
///
/// Failures (unwritable directory, full disk) are reported once through `warn` and make the cache a no-op:
/// a cache never fails the work it serves.
public final class DiskCache: Sendable {
    /// What the directory holds.
    public struct Usage: Sendable, Equatable {
        /// Number of entries.
        public var entries: Int
        /// Their total size in bytes.
        public var bytes: Int
    }

    /// The cache's directory (created with mode 0700 on the first write).
    public let directory: String
    /// The most the entries may take, in bytes (headers and keys included).
    public let budget: Int
    private let warn: @Sendable (String) -> Void
    private let warned = Locked<Set<String>>([])
    private let counters = Locked<(hits: Int, misses: Int, discarded: Int, stores: Int)>((0, 0, 0, 0))

    static let magic: [UInt8] = Array("SCRUBC\u{1}\n".utf8)
    static let headerSize = 8 + 4 + 8 + 4

    /// A cache in `directory` holding at most `budget` bytes. `warn` receives one line per kind of trouble.
    public init(directory: String, budget: Int, warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.directory = directory
        self.budget = max(0, budget)
        self.warn = warn
    }

    /// Hits, misses, damaged entries discarded, and entries written, so far.
    public var statistics: (hits: Int, misses: Int, discarded: Int, stores: Int) { counters.withLock { $0 } }

    /// The file an entry for `key` lives in.
    public func entryPath(for key: String) -> String {
        let hex = DiskCache.hex(FNV1a.hash64(Array(key.utf8)))
        return "\(directory)/entries/\(hex.prefix(2))/\(hex).entry"
    }

    // MARK: - Reading

    /// The payload stored for `key`, or nil (a miss). A damaged entry is deleted and counts as a miss.
    public func bytes(for key: String) -> [UInt8]? {
        let path = entryPath(for: key)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { counters.withLock { $0.misses += 1 }; return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size <= Int64(budget) + Int64(DiskCache.headerSize) + Int64(key.utf8.count),
              let data = FileIO.readExactly(fd, count: Int(st.st_size)) else {
            return discard(path)
        }
        guard let payload = DiskCache.decode(data, key: Array(key.utf8)) else {
            // Another key with the same hash is not damage: a miss, and the entry stays until overwritten.
            if let stored = DiskCache.storedKey(data), stored != Array(key.utf8) {
                counters.withLock { $0.misses += 1 }; return nil
            }
            return discard(path)
        }
        futimens(fd, nil)   // most recently used now
        counters.withLock { $0.hits += 1 }
        return payload
    }

    private func discard(_ path: String) -> [UInt8]? {
        let size = DiskCache.fileSize(path)
        if unlink(path) == 0 { adjustLedger(by: -size) }
        counters.withLock { $0.misses += 1; $0.discarded += 1 }
        warnOnce("damaged", "cache: a damaged entry was discarded (\(path))")
        return nil
    }

    /// The payload of an entry file's bytes if they are whole and belong to `key`.
    static func decode(_ data: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard data.count >= headerSize, Array(data[0..<8]) == magic else { return nil }
        // (Lengths from a damaged header can be anything: compared without arithmetic that could overflow.)
        let keyLength = Int(readLE(data, 8, 4)), crc = UInt32(readLE(data, 20, 4))
        guard keyLength <= data.count - headerSize, let payloadLength = Int(exactly: readLE(data, 12, 8)),
              payloadLength == data.count - headerSize - keyLength,
              data[headerSize..<(headerSize + keyLength)].elementsEqual(key) else { return nil }
        let payload = Array(data[(headerSize + keyLength)...])
        return Checksum.crc32(payload) == crc ? payload : nil
    }

    /// The key recorded in a well-formed header, if any.
    static func storedKey(_ data: [UInt8]) -> [UInt8]? {
        guard data.count >= headerSize, Array(data[0..<8]) == magic else { return nil }
        let keyLength = Int(readLE(data, 8, 4))
        guard keyLength <= data.count - headerSize else { return nil }
        return Array(data[headerSize..<(headerSize + keyLength)])
    }

    static func encode(_ payload: [UInt8], key: [UInt8]) -> [UInt8] {
        var out = magic
        out.reserveCapacity(headerSize + key.count + payload.count)
        appendLE(&out, UInt64(key.count), 4)
        appendLE(&out, UInt64(payload.count), 8)
        appendLE(&out, UInt64(Checksum.crc32(payload)), 4)
        out += key
        out += payload
        return out
    }

    // MARK: - Writing

    /// Stores `payload` for `key` (replacing what was there). Returns false, after a one-time warning, when the
    /// directory cannot be written; sweeps when the ledger says the budget is passed.
    @discardableResult
    public func store(_ payload: [UInt8], for key: String) -> Bool {
        let entry = DiskCache.encode(payload, key: Array(key.utf8))
        guard entry.count <= budget else { return false }
        let path = entryPath(for: key)
        let dir = (path as NSString).deletingLastPathComponent
        do {
            try DiskCache.makeDirectories(dir)
            let previous = DiskCache.fileSize(path)
            try DiskCache.writeReplacing(path, entry)
            counters.withLock { $0.stores += 1 }
            if adjustLedger(by: entry.count - previous) > budget { sweep() }
            return true
        } catch {
            warnOnce("write", "cache: cannot write in \(directory): \(error); going on without it")
            return false
        }
    }

    /// Deletes the least recently used entries until the total is at most 90 % of the budget (when it is over the
    /// budget), removes temporary files older than 15 minutes, and rewrites the ledger. Returns what is left.
    @discardableResult
    public func sweep() -> Usage {
        withLedgerLock { fd in
            var files: [(path: String, size: Int, used: Int64)] = []
            let now = Int64(Date().timeIntervalSince1970)
            for shard in (try? FileManager.default.contentsOfDirectory(atPath: "\(directory)/entries")) ?? [] {
                let d = "\(directory)/entries/\(shard)"
                for name in (try? FileManager.default.contentsOfDirectory(atPath: d)) ?? [] {
                    let p = "\(d)/\(name)"
                    var st = stat()
                    guard stat(p, &st) == 0 else { continue }
                    if name.hasSuffix(".tmp") {
                        if now - Int64(st.st_mtim.tv_sec) > 15 * 60 { unlink(p) }
                        continue
                    }
                    files.append(
                        (p, Int(st.st_size), Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)))
                }
            }
            var total = files.reduce(0) { $0 + $1.size }
            var kept = files.count
            if total > budget {
                let target = budget / 10 * 9
                for f in files.sorted(by: { $0.used < $1.used }) where total > target {
                    if unlink(f.path) == 0 { total -= f.size; kept -= 1 }
                }
            }
            if let fd { DiskCache.writeLedger(fd, total) }
            return Usage(entries: kept, bytes: total)
        }
    }

    /// Counts the entries and their bytes (a full scan).
    public func usage() -> Usage {
        var u = Usage(entries: 0, bytes: 0)
        for shard in (try? FileManager.default.contentsOfDirectory(atPath: "\(directory)/entries")) ?? [] {
            let d = "\(directory)/entries/\(shard)"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: d)) ?? [] where name.hasSuffix(".entry") {
                u.entries += 1
                u.bytes += DiskCache.fileSize("\(d)/\(name)")
            }
        }
        return u
    }

    /// Deletes every entry and the ledger.
    public func removeAll() {
        try? FileManager.default.removeItem(atPath: "\(directory)/entries")
        unlink("\(directory)/usage")
    }

    // MARK: - Ledger

    /// Adds `delta` to the shared running total; returns the new total (0 when the ledger cannot be kept).
    @discardableResult
    private func adjustLedger(by delta: Int) -> Int {
        withLedgerLock { fd in
            guard let fd else { return 0 }
            let total = max(0, DiskCache.readLedger(fd) + delta)
            DiskCache.writeLedger(fd, total)
            return total
        }
    }

    private func withLedgerLock<T>(_ body: (Int32?) -> T) -> T {
        let fd = open("\(directory)/usage", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return body(nil) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        return body(fd)
    }

    private static func readLedger(_ fd: Int32) -> Int {
        var buf = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buf, buf.count, 0)
        guard n > 0 else { return 0 }
        return Int(String(decoding: buf[..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    private static func writeLedger(_ fd: Int32, _ total: Int) {
        let text = Array("\(total)\n".utf8)
        _ = ftruncate(fd, 0)
        _ = lseek(fd, 0, SEEK_SET)
        _ = FileIO.writeAll(text, to: fd)   // a failed ledger write is repaired by the next sweep's real count
    }

    // MARK: - Files

    private func warnOnce(_ kind: String, _ message: String) {
        let first = warned.withLock { $0.insert(kind).inserted }
        if first { warn(message) }
    }

    /// `mkdir -p` with mode 0700 for each directory it creates (existing ones are left as they are).
    static func makeDirectories(_ path: String) throws {
        var st = stat()
        if stat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFDIR else { throw CacheIOError(errno: ENOTDIR) }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != path { try makeDirectories(parent) }
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw CacheIOError(errno: errno) }
    }

    /// `bytes` into a temporary file beside `path`, renamed over it (no flush: a torn entry fails its checks).
    static func writeReplacing(_ path: String, _ bytes: [UInt8]) throws {
        let tmp = FileIO.temporaryPath(beside: path)
        do { try FileIO.replace(path, with: bytes, temporary: tmp, mode: 0o600, durability: .none) }
        catch { throw CacheIOError(errno: error.errno) }
    }

    static func fileSize(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }

    static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    static func readLE(_ b: [UInt8], _ at: Int, _ n: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in (0..<n).reversed() { v = v << 8 | UInt64(b[at + i]) }
        return v
    }

    static func appendLE(_ out: inout [UInt8], _ v: UInt64, _ n: Int) {
        for i in 0..<n { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }
}

/// A failed system call in the cache, as its `strerror` text.
struct CacheIOError: Error, CustomStringConvertible {
    var errno: Int32
    var description: String { String(cString: strerror(errno)) }
}

/// 64-bit FNV-1a: a stable, fast hash for file names and shard choice (not a checksum, not cryptographic).
enum FNV1a {
    static func hash64<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return h
    }
}
