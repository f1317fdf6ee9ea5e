import Foundation
import Locking

/// Temporary files: the one name for a file being written before it is renamed into place, the list of those being
/// written now (removed when a signal ends the program: ``ProcessSignals``), and the one sweep of the ones no writer
/// will finish.
extension FileIO {
    /// The temporary files named and not yet moved into place or removed, and whether a signal is ending the program
    /// (then none is created any more).
    private struct Unfinished {
        var paths: Set<String> = []
        var ending = false
    }
    private static let unfinished = Locked(Unfinished())

    /// Where a write of `target` goes before it is renamed over it: beside it (the same file system, so the rename is
    /// atomic), hidden, and named for its owner — `.NAME.HOST-NS~PID.RANDOM.tmp` (`ownerMarker`) — so that a sweep
    /// by another process, container or machine sharing the directory can tell whose it is
    /// (`removeStaleTemporaryFiles(in:maximumAge:)`).
    public static func temporaryPath(beside target: String) -> String {
        let url = URL(fileURLWithPath: target)
        let dir = url.deletingLastPathComponent().path
        let name = ".\(url.lastPathComponent).\(ownerMarker)~\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let path = (dir.hasSuffix("/") ? dir : dir + "/") + name
        unfinished.withLock { _ = $0.paths.insert(path) }
        return path
    }

    /// Creates the temporary file `path` (`open` with `flags` and `mode`): a descriptor, or -1 and the error. Under
    /// the lock the end of the program takes, so that a file is never created after its name was removed: once a
    /// signal is ending the program it fails with `ECANCELED`.
    static func openTemporary(_ path: String, flags: Int32, mode: mode_t) -> (fd: Int32, errno: Int32) {
        unfinished.withLock { u in
            guard !u.ending else { return (-1, ECANCELED) }
            let fd = open(path, flags, mode)
            return (fd, fd < 0 ? errno : 0)
        }
    }

    /// A temporary file was moved into place, or removed: no longer one to remove at a signal.
    static func settled(_ temporary: String) {
        unfinished.withLock { _ = $0.paths.remove(temporary) }
    }

    /// Removes the temporary file `path` (one ``temporaryPath(beside:)`` named) and forgets it.
    public static func removeTemporary(_ path: String) {
        unlink(path)
        settled(path)
    }

    /// Removes every temporary file being written now, and lets no other be created (a signal is ending the program:
    /// none will be finished). Called again just before the end, for files a library (FFmpeg's muxers) created by
    /// name meanwhile.
    static func removeUnfinishedTemporaryFiles() {
        unfinished.withLock { u in
            u.ending = true
            for path in u.paths { unlink(path) }
        }
    }

    /// Who writes a temporary file, safe inside a file name (letters, digits, `-`): this machine's short host name and
    /// the inode of this process's pid namespace (`/proc/self/ns/pid`), `HOST-NS`. A process id means something only
    /// inside its pid namespace: containers on one host may share its name (host networking) while each counts its
    /// own pids from 1, so a marker of the host alone would let one container take another's live writer for dead.
    /// Where the namespace cannot be read, a random tag, so that no other process's file is ever taken for ours.
    static let ownerMarker: String = {
        var buf = [CChar](repeating: 0, count: 256)
        let name =
            gethostname(&buf, buf.count) == 0
            ? String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "host"
        let short = name.split(separator: ".").first.map(String.init) ?? name
        let safe = String(
            short.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == "-" ? Character($0) : "-" })
        return (safe.isEmpty ? "host" : safe) + "-" + (pidNamespace ?? "r\(UInt32.random(in: 0...UInt32.max))")
    }()

    /// The inode number of this process's pid namespace (`pid:[4026531836]` → `4026531836`), nil where unknown.
    static let pidNamespace: String? = {
        let digits = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid"))?.filter {
            $0.isASCII && $0.isNumber
        }
        return digits?.isEmpty == false ? digits : nil
    }()

    /// Removes the temporary files in `dir` (``temporaryPath(beside:)``'s names) that no writer will finish: ours (this
    /// host and pid namespace) whose process is gone, and anyone's older than `maximumAge` — shards on other machines
    /// or in other containers share the directory, and their process ids mean nothing here, so the owner marker and
    /// the age decide, never a bare pid.
    static func removeStaleTemporaryFiles(in dir: String, maximumAge: TimeInterval = 15 * 60) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
        for n in names where n.hasPrefix(".") && n.hasSuffix(".tmp") {
            let full = (dir as NSString).appendingPathComponent(n)
            let parts = n.split(separator: ".")
            guard parts.count >= 4 else { continue }
            let owner = parts[parts.count - 3].split(separator: "~")
            let mine = owner.count == 2 && owner[0] == ownerMarker
            if mine, let pid = Int32(owner[1]), kill(pid, 0) != 0 && errno == ESRCH { unlink(full); continue }
            if let modified = (try? FileManager.default.attributesOfItem(atPath: full))?[.modificationDate] as? Date,
               Date().timeIntervalSince(modified) > maximumAge {
                unlink(full)
            }
        }
    }
}
