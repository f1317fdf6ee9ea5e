import FFmpegBridge
import Foundation

/// The freedesktop.org Thumbnail Managing Standard: the thumbnail cache GNOME, KDE and Xfce (tumbler) share.
///
/// `$XDG_CACHE_HOME/thumbnails/{normal,large,x-large,xx-large}/MD5(URI).png`, longest side 128/256/512/1024 (smaller
/// originals keep their size), each PNG carrying `Thumb::URI` and `Thumb::MTime` (and here `Thumb::Size`) text
/// chunks; a thumbnail counts only while they match the file. Directories are 0700, files 0600, written to a
/// temporary file and renamed. Files that cannot be thumbnailed get an entry under `fail/APP-VERSION/`, so nobody
/// tries again until the file changes.
public struct DesktopThumbnails: Sendable {
    /// The four sizes of the spec.
    public enum Flavor: Int, Sendable, CaseIterable {
        case normal = 128, large = 256, xLarge = 512, xxLarge = 1024

        /// Its directory name.
        public var directoryName: String {
            switch self {
            case .normal: return "normal"
            case .large: return "large"
            case .xLarge: return "x-large"
            case .xxLarge: return "xx-large"
            }
        }

        /// The smallest flavor whose pictures cover a longest side of `pixels` (nil above 1024).
        public static func covering(_ pixels: Int) -> Flavor? { allCases.first { $0.rawValue >= pixels } }
    }

    /// The `thumbnails` directory.
    public var root: String
    /// `fail/` subdirectory name: the application and its version (`scrubkit-0.1.0`).
    public var failureDirectoryName: String

    /// The desktop cache under `root` (default `$XDG_CACHE_HOME/thumbnails`).
    public init(
        root: String = (ThumbnailCache.cacheHome as NSString).appendingPathComponent("thumbnails"), application: String
    ) {
        self.root = root
        failureDirectoryName = application
    }

    /// The canonical `file://` URI of a local path, as GLib's `g_filename_to_uri` writes it: absolute, with bytes
    /// other than letters, digits and `!$&'()*+,-./:=@_~` percent-encoded (upper-case hex). The spec names thumbnails
    /// by the MD5 of this text, so it must match the desktop's byte for byte.
    public static func uri(forPath path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!$&'()*+,-./:=@_~".utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        var out = Array("file://".utf8)
        for b in absolute.utf8 {
            if allowed.contains(b) {
                out.append(b)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Where the thumbnail of `uri` lives for `flavor`.
    public func thumbnailPath(uri: String, flavor: Flavor) -> String {
        "\(root)/\(flavor.directoryName)/\(Checksum.md5Hex(Array(uri.utf8))).png"
    }

    /// Where the failure entry of `uri` lives.
    public func failurePath(uri: String) -> String {
        "\(root)/fail/\(failureDirectoryName)/\(Checksum.md5Hex(Array(uri.utf8))).png"
    }

    /// A valid thumbnail of the file at `path` whose pictures cover `longestSide` (this flavor or a larger one):
    /// its path and PNG bytes. Valid = `Thumb::URI` is the file's URI, `Thumb::MTime` its modification time in
    /// seconds, and `Thumb::Size`, when present, its size. Anything else (stale, damaged, another file's) is a miss.
    public func lookup(path: String, identity: SourceIdentity, longestSide: Int) -> (path: String, png: [UInt8])? {
        let uri = DesktopThumbnails.uri(forPath: path)
        for flavor in Flavor.allCases where flavor.rawValue >= longestSide {
            let p = thumbnailPath(uri: uri, flavor: flavor)
            guard let bytes = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: p))),
                  DesktopThumbnails.isValid(bytes, uri: uri, identity: identity) else { continue }
            return (p, bytes)
        }
        return nil
    }

    /// What the entries that could serve `path` at `longestSide` look like on disk now (flavor, size, modification
    /// time of each that exists), read with `stat` alone; nil when there is none. A copy made from them is current
    /// while this stays the same.
    public func entryStamp(path: String, longestSide: Int) -> String? {
        let uri = DesktopThumbnails.uri(forPath: path)
        var parts: [String] = []
        for flavor in Flavor.allCases where flavor.rawValue >= longestSide {
            var st = stat()
            guard stat(thumbnailPath(uri: uri, flavor: flavor), &st) == 0 else { continue }
            parts.append("\(flavor.rawValue):\(st.st_size):\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)")
        }
        return parts.isEmpty ? nil : parts.joined(separator: ",")
    }

    /// Whether a failure entry for the file, made by this application for its current state, exists.
    public func hasFailure(path: String, identity: SourceIdentity) -> Bool {
        let uri = DesktopThumbnails.uri(forPath: path)
        guard let bytes = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: failurePath(uri: uri)))) else {
            return false
        }
        return DesktopThumbnails.isValid(bytes, uri: uri, identity: identity)
    }

    /// Whether PNG `bytes` are a thumbnail of `uri` in the state `identity` describes.
    static func isValid(_ bytes: [UInt8], uri: String, identity: SourceIdentity) -> Bool {
        guard let attrs = PNGText.attributes(of: bytes), attrs["Thumb::URI"] == uri,
            let mtime = attrs["Thumb::MTime"].flatMap({ Double($0) }),
            Int64(mtime.rounded(.down)) == identity.modifiedSeconds
        else { return false }
        if let size = attrs["Thumb::Size"] { return Int64(size) == identity.size }
        return true
    }

    /// Writes `png` (an encoded PNG, longest side at most the flavor's) as the thumbnail of the file at `path`,
    /// with the spec's attributes added.
    public func store(png: [UInt8], path: String, identity: SourceIdentity, flavor: Flavor, software: String) throws {
        let uri = DesktopThumbnails.uri(forPath: path)
        try write(png, uri: uri, identity: identity, software: software, to: thumbnailPath(uri: uri, flavor: flavor))
    }

    /// Records that the file at `path`, as it is now, cannot be thumbnailed (`png`: any small PNG).
    public func storeFailure(png: [UInt8], path: String, identity: SourceIdentity, software: String) throws {
        let uri = DesktopThumbnails.uri(forPath: path)
        try write(png, uri: uri, identity: identity, software: software, to: failurePath(uri: uri))
    }

    private func write(_ png: [UInt8], uri: String, identity: SourceIdentity, software: String, to file: String) throws
    {
        guard
            let tagged = PNGText.adding(
                [
                    ("Thumb::URI", uri), ("Thumb::MTime", String(identity.modifiedSeconds)),
                    ("Thumb::Size", String(identity.size)), ("Software", software),
                ], to: png)
        else {
            throw CacheIOError(errno: EINVAL)
        }
        // Directories this creates are 0700 (the spec: thumbnails show what private files contain).
        try DiskCache.makeDirectories((file as NSString).deletingLastPathComponent)
        try DiskCache.writeReplacing(file, tagged)   // 0600, temporary file then rename
    }
}
