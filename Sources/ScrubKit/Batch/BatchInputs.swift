import FFmpegBridge
import Foundation

/// Expands what the user named into the list of source files of a batch, and splits it into shards.
public enum BatchInputs {
    /// Extensions of still images (`downsample`'s inputs; shell completion offers these files).
    public static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jfif", "png", "apng", "webp", "gif", "bmp", "tif", "tiff", "tga", "ppm", "pgm", "pnm",
        "dpx", "jxl", "heic", "avif",
    ]

    /// Extensions treated as media when walking a directory: videos and ``imageExtensions``.
    public static let mediaExtensions: Set<String> = imageExtensions.union([
        "mp4", "m4v", "mov", "qt", "mkv", "webm", "avi", "ts", "m2ts", "mts", "mpg", "mpeg", "flv", "3gp", "3g2",
        "wmv", "asf", "ogv", "vob", "dv", "mxf", "m2v", "m2p", "mod", "tod", "y4m", "f4v", "divx", "rm", "rmvb", "nut",
        "mk3d",
    ])

    /// Files from `arguments`: a file; a directory (recursive, media extensions only, hidden entries skipped,
    /// sorted); `@list.txt` (one path per line); `-` (paths on standard input, read via `readLine`).
    /// Missing paths are kept, so the batch reports them as failures.
    public static func expand(_ arguments: [String], readLine: () -> String? = { Swift.readLine() }) -> [String] {
        var out: [String] = []
        for arg in arguments {
            if arg == "-" {
                while let line = readLine() {
                    let t = line.trimmingCharacters(in: .whitespaces)
                    if !t.isEmpty { out += expand([t]) }
                }
            } else if arg.hasPrefix("@") {
                let listPath = String(arg.dropFirst())
                let text = (try? String(contentsOfFile: listPath, encoding: .utf8)) ?? ""
                let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                out += expand(lines.filter { !$0.isEmpty && !$0.hasPrefix("#") })
            } else {
                var isDir: ObjCBool = false
                if !Demuxer.isURL(arg), FileManager.default.fileExists(atPath: arg, isDirectory: &isDir),
                    isDir.boolValue
                {
                    out += walk(arg)
                } else {
                    out.append(arg)
                }
            }
        }
        return out
    }

    /// How ``walk(_:recursive:extensions:order:)`` sorts: by the paths' bytes (batches), or naturally, as file
    /// managers do (`clip2` before `clip10`, case ignored: playlists).
    enum Order { case bytes, natural }

    /// The files under `dir` (its folders' too when `recursive`) whose extension is in `extensions`; hidden entries
    /// skipped.
    static func walk(
        _ dir: String, recursive: Bool = true, extensions: Set<String> = mediaExtensions, order: Order = .bytes
    ) -> [String] {
        guard let e = FileManager.default.enumerator(atPath: dir) else { return [] }
        var files: [(relative: String, full: String)] = []
        while let rel = e.nextObject() as? String {
            let name = (rel as NSString).lastPathComponent
            if name.hasPrefix(".") { e.skipDescendants(); continue }
            let full = (dir as NSString).appendingPathComponent(rel)
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDir) else { continue }
            if isDir.boolValue { if !recursive { e.skipDescendants() }; continue }
            if extensions.contains((name as NSString).pathExtension.lowercased()) { files.append((rel, full)) }
        }
        switch order {
        case .bytes: return files.map(\.full).sorted()
        case .natural:
            return files.sorted {
                $0.relative.compare($1.relative, options: [.numeric, .caseInsensitive]) == .orderedAscending
            }.map(\.full)
        }
    }

    /// What names a source the same way from any working directory: a local file's absolute, standardised path; a
    /// URL as given.
    static func identity(of path: String) -> String {
        Demuxer.isURL(path) ? path : URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// Which of `count` shards `path` belongs to: a stable hash (FNV-1a, 64-bit) of the file's absolute, standardised
    /// path — independent of argument order, machine and run, so `--shard K/N` for K in 0..<N covers every file once.
    public static func shard(of path: String, count: Int) -> Int {
        precondition(count > 0)
        return Int(FNV1a.hash64(identity(of: path).utf8) % UInt64(count))
    }
}
