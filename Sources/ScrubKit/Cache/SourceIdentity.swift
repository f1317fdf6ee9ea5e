import FFmpegBridge
import Foundation

/// What a source file is right now, as the file system sees it: device, inode, size, modification and status-change
/// times to the nanosecond. Any write, truncation, `touch`, or a new file renamed over the path (new inode, new
/// ctime) changes it, so a cache keyed on it never serves a picture of an older file.
///
/// URLs have no identity (a server can change what it serves without telling): they are not cached.
public struct SourceIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The file system's device number.
    public var device: UInt64
    /// The inode number.
    public var inode: UInt64
    /// Size in bytes.
    public var size: Int64
    /// Modification time, nanoseconds since 1970.
    public var modified: Int64
    /// Status-change time (rename, chmod, link count), nanoseconds since 1970.
    public var changed: Int64

    /// The identity of the file at `path` (symbolic links followed); nil for URLs, missing or unreadable paths,
    /// and anything that is not a regular file (a FIFO or device cannot be cached).
    public init?(path: String) {
        guard !Demuxer.isURL(path) else { return nil }
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        changed = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
    }

    /// Modification time in whole seconds (what the freedesktop thumbnail spec records).
    public var modifiedSeconds: Int64 {
        modified >= 0 ? modified / 1_000_000_000 : (modified - 999_999_999) / 1_000_000_000
    }

    /// `dev:ino:size:mtime:ctime`, part of cache keys and resume journals.
    public var description: String { "\(device):\(inode):\(size):\(modified):\(changed)" }
}
