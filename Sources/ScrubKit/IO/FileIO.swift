import Foundation

/// The one fence around the system calls that write files and descriptors: every write loop (short writes and
/// `EINTR` retried), every flush and every atomic replace of ScrubKit, the terminal front end and the CLI goes
/// through here. ``AtomicFile`` (outputs, with its rules for devices, pipes and links) and the disk cache are
/// built on it.
public enum FileIO {
    /// A failed system call: which step and its `errno`.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What was being done.
        public enum Step: Sendable { case create, write, flush, rename }
        /// The step that failed.
        public var step: Step
        /// The system's error number (`ENOSPC` for a write that wrote nothing).
        public var errno: Int32
        /// The system's words for ``errno``.
        public var description: String { String(cString: strerror(errno)) }
    }

    /// How much a replace flushes before the rename.
    public enum Durability: Sendable {
        /// Nothing: for entries that carry their own checks (a torn one is detected and dropped).
        case none
        /// The file's data (`fdatasync`) before the rename: after a crash the name holds the old file or the whole new
        /// one.
        case data
    }

    /// Writes all of `bytes` to `fd`, retrying interrupted and short writes. Nil when done, else the failure
    /// (`ENOSPC` when the system wrote nothing and gave no error).
    @discardableResult
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Failure? {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return Failure(step: .write, errno: n == 0 ? ENOSPC : errno) }
            offset += n
        }
        return nil
    }

    /// Writes all of `bytes` to `fd` (see ``writeAll(_:to:)-(UnsafeRawBufferPointer,_)``).
    @discardableResult
    public static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Failure? {
        bytes.withUnsafeBytes { writeAll($0, to: fd) }
    }

    /// Writes all of `text`'s UTF-8 to `fd`.
    @discardableResult
    public static func writeAll(_ text: String, to fd: Int32) -> Failure? {
        var text = text
        return text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: fd) }
    }

    /// Writes all of `text` into the existing file at `path` (opened for writing, not created: a `/proc` or `/sys`
    /// setting). Nil when done, else the failure.
    @discardableResult
    public static func writeAll(_ text: String, toFileAt path: String) -> Failure? {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return Failure(step: .create, errno: errno) }
        defer { close(fd) }
        return writeAll(text, to: fd)
    }

    /// Reads exactly `count` bytes from `fd` (interrupted reads retried); nil at end of file or on an error.
    public static func readExactly(_ fd: Int32, count: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        let ok = out.withUnsafeMutableBytes { buf -> Bool in
            while got < count {
                let n = Glibc.read(fd, buf.baseAddress! + got, count - got)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                got += n
            }
            return true
        }
        return ok ? out : nil
    }

    /// Flushes a regular file's data to the disk (`fdatasync`); devices, pipes and sockets have nothing to flush.
    public static func flush(_ fd: Int32) -> Failure? {
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return fdatasync(fd) == 0 ? nil : Failure(step: .flush, errno: errno)
    }

    /// Replaces `target` atomically: `bytes` go to the new file `temporary` (created exclusively with `mode`, in the
    /// same directory so the rename stays on one file system), flushed as `durability` says, then renamed over
    /// `target`. Readers see the old file or the whole new one; the temporary file is removed on any failure.
    public static func replace(
        _ target: String, with bytes: [UInt8], temporary: String, mode: mode_t, durability: Durability
    ) throws(Failure) {
        try create(temporary, with: bytes, mode: mode, durability: durability)
        if rename(temporary, target) != 0 {
            let failure = Failure(step: .rename, errno: errno)
            removeTemporary(temporary)
            throw failure
        }
        settled(temporary)
    }

    /// Writes `bytes` into the new file `path` (created exclusively with `mode`), flushed as `durability` says; the
    /// file is removed on any failure.
    static func create(_ path: String, with bytes: [UInt8], mode: mode_t, durability: Durability) throws(Failure) {
        let (fd, error) = openTemporary(path, flags: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: mode)
        guard fd >= 0 else { settled(path); throw Failure(step: .create, errno: error) }
        var failure = writeAll(bytes, to: fd)
        if failure == nil, durability == .data, fdatasync(fd) != 0 { failure = Failure(step: .flush, errno: errno) }
        close(fd)
        if let failure { removeTemporary(path); throw failure }
    }

    /// Puts the finished file `source` at `target` only if nothing is there yet (a hard link, then the source's name
    /// removed): never over another file, even one created a moment ago. Throws `EEXIST` at the rename step then.
    public static func placeNew(_ source: String, at target: String) throws(Failure) {
        guard link(source, target) == 0 else { throw Failure(step: .rename, errno: errno) }
        removeTemporary(source)
    }

    /// `path` itself for `n` = 1, else `NAME-n.EXT` beside it: the names tried in turn for a file never written over.
    public static func numbered(_ path: String, _ n: Int) -> String {
        guard n > 1 else { return path }
        let ext = (path as NSString).pathExtension, stem = (path as NSString).deletingPathExtension
        return ext.isEmpty ? "\(stem)-\(n)" : "\(stem)-\(n).\(ext)"
    }

    /// The first of `path`, `NAME-2.EXT`, `NAME-3.EXT`… that does not exist.
    public static func unusedPath(_ path: String) -> String {
        var n = 1
        while FileManager.default.fileExists(atPath: numbered(path, n)) { n += 1 }
        return numbered(path, n)
    }

    /// Moves a finished file (written by someone else, e.g. FFmpeg's muxer) over `target` in one rename.
    public static func moveIntoPlace(_ source: String, over target: String) throws(Failure) {
        guard rename(source, target) == 0 else { throw Failure(step: .rename, errno: errno) }
        settled(source)
    }

    /// Appends `bytes` to the file at `path` (created with `mode` if missing) in `O_APPEND` writes: each append lands
    /// after whatever another writer appended.
    @discardableResult
    public static func append(_ bytes: [UInt8], toFileAt path: String, mode: mode_t) -> Failure? {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, mode)
        guard fd >= 0 else { return Failure(step: .create, errno: errno) }
        defer { close(fd) }
        return writeAll(bytes, to: fd)
    }
}
