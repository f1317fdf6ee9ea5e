import Foundation

/// Writes files so that readers only ever see nothing or the whole file: bytes go to a temporary file in the
/// same directory (same filesystem), are flushed, then renamed over the destination.
public enum AtomicFile {
    /// Writes `bytes` to `path` atomically. The temporary file is removed on any failure.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent()
        let tmp = dir.appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max)).tmp")
        let fd = open(tmp.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw MediaError(.writeFailed, path: path, "cannot create a file in \(dir.path): \(String(cString: strerror(errno)))") }
        var ok = false
        defer {
            if !ok { unlink(tmp.path) }
        }
        var offset = 0
        let written = bytes.withUnsafeBytes { buf -> Bool in
            while offset < buf.count {
                let n = Foundation.write(fd, buf.baseAddress! + offset, buf.count - offset)
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard written, synced else { throw MediaError(.writeFailed, path: path, "write failed: \(String(cString: strerror(errno)))") }
        guard rename(tmp.path, path) == 0 else {
            throw MediaError(.writeFailed, path: path, "cannot move into place: \(String(cString: strerror(errno)))")
        }
        ok = true
    }
}
