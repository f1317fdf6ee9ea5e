import Foundation

/// Writes files so that readers only ever see nothing or the whole file: bytes go to a temporary file in the
/// same directory (same filesystem), are flushed, then renamed over the destination.
///
/// Only regular files (and new paths) are replaced that way. `-` means standard output; a character device
/// (`/dev/null`, a terminal) or a FIFO is written straight through, never replaced; a symbolic link is followed, and
/// the file it points to is replaced in its own directory (the link stays).
public enum AtomicFile {
    /// Writes `bytes` to `path` (see the type's rules). The temporary file is removed on any failure.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        if path == "-" { return try writeAll(bytes, fd: STDOUT_FILENO, path: "standard output") }
        let target = resolvingLinks(path)
        var st = stat()
        if stat(target, &st) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFDIR: throw MediaError(.writeFailed, path: path, "is a directory")
            case S_IFCHR, S_IFIFO, S_IFSOCK:
                // A device or a pipe: write into it; renaming a file over it would replace the node itself.
                let fd = open(target, O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else {
                    throw MediaError(.writeFailed, path: path, "cannot open: \(String(cString: strerror(errno)))")
                }
                defer { close(fd) }
                return try writeAll(bytes, fd: fd, path: path)
            default:
                throw MediaError(.writeFailed, path: path, "is not a regular file")
            }
        }
        try replace(target, with: bytes, reportingAs: path)
    }

    /// Writes `bytes` to `path`, or to `NAME-2.EXT`, `NAME-3.EXT`… when that exists, never over a file (one
    /// that appears meanwhile included); readers see nothing or the whole file. Returns the path written.
    public static func writeNew(_ bytes: [UInt8], to path: String) throws -> String {
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let tmp = FileIO.temporaryPath(beside: path)
        do {
            try FileIO.create(tmp, with: bytes, mode: 0o644, durability: .data)
        } catch {
            throw MediaError(
                .writeFailed, path: path,
                error.step == .create ? "cannot create a file in \(dir): \(error)" : "write failed: \(error)")
        }
        var n = 1
        while true {
            let target = FileIO.numbered(path, n)
            do {
                try FileIO.placeNew(tmp, at: target)
                return target
            } catch where error.errno == EEXIST && n < 10_000 {
                n += 1
            } catch {
                FileIO.removeTemporary(tmp)
                throw MediaError(.writeFailed, path: target, "cannot move into place: \(error)")
            }
        }
    }

    /// Where a path's chain of symbolic links ends (the path itself when it is not a link). A dangling link gives the
    /// path it names, so the file is created there.
    static func resolvingLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return current }
            var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buf, buf.count - 1)
            guard n > 0 else { return current }
            let dest = String(decoding: buf[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current =
                dest.hasPrefix("/")
                ? dest : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(dest).path
        }
        return current
    }

    private static func writeAll(_ bytes: [UInt8], fd: Int32, path: String) throws {
        if let failure = FileIO.writeAll(bytes, to: fd) {
            throw MediaError(.writeFailed, path: path, "write failed: \(failure)")
        }
    }

    /// Temporary file beside `target`, flushed, renamed over it
    /// (``FileIO/replace(_:with:temporary:mode:durability:)``).
    private static func replace(_ target: String, with bytes: [UInt8], reportingAs path: String) throws {
        let url = URL(fileURLWithPath: target)
        let dir = url.deletingLastPathComponent()
        // (Named for its owner: another machine or container sharing the directory can tell it is not its own.)
        let tmp = FileIO.temporaryPath(beside: target)
        do {
            try FileIO.replace(target, with: bytes, temporary: tmp, mode: 0o644, durability: .data)
        } catch {
            switch error.step {
            case .create: throw MediaError(.writeFailed, path: path, "cannot create a file in \(dir.path): \(error)")
            case .write, .flush: throw MediaError(.writeFailed, path: path, "write failed: \(error)")
            case .rename: throw MediaError(.writeFailed, path: path, "cannot move into place: \(error)")
            }
        }
    }
}
