import Foundation

/// One tile of `scrubkit browse`: a playable file, or a folder to go into.
public struct BrowseEntry: Sendable, Equatable {
    /// The file's or folder's path.
    public var path: String
    /// What the tile is called (the name inside its folder; with `--recursive`, the path under the folder browsed).
    public var name: String
    /// A folder (Enter goes in) rather than a file.
    public var isFolder: Bool
    /// Bytes (0 for a folder).
    public var size: Int64
    /// Last modification, seconds since 1970.
    public var modified: Double
    /// For a folder: the file whose picture stands for it (its first playable file, in natural order); nil for a file
    /// or a folder without one.
    public var cover: String?

    /// An entry with these facts.
    public init(path: String, name: String, isFolder: Bool, size: Int64, modified: Double, cover: String? = nil) {
        self.path = path
        self.name = name
        self.isFolder = isFolder
        self.size = size
        self.modified = modified
        self.cover = cover
    }

    /// The file whose tile picture this entry shows: itself, or a folder's cover.
    public var pictureSource: String? { isFolder ? cover : path }
}

/// How the grid is ordered (`o` cycles them).
public enum BrowseOrder: String, Sendable, CaseIterable {
    /// By name, naturally (`clip2` before `clip10`, case ignored), as file managers sort.
    case name
    /// Newest first.
    case date
    /// Largest first.
    case size
    /// Longest first; files whose length is not known yet go last, by name.
    case duration

    /// The next order in the cycle.
    public var next: BrowseOrder {
        let all = BrowseOrder.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }
}

/// What `scrubkit browse` shows: a folder's subfolders and playable files (or named files), listed once and then
/// ordered and filtered without touching the disk again.
public struct BrowseListing: Sendable {
    /// Every entry, as listed (folders first, then files, each in natural order).
    public private(set) var all: [BrowseEntry]
    /// The folder browsed, nil for a list of files.
    public let folder: String?

    /// The entries of `folder`: its subfolders (hidden ones left out) and its playable files; with `recursive`,
    /// every playable file under it and no folders. Throws a ``MediaError`` naming the folder when it cannot be read.
    public init(folder: String, recursive: Bool = false) throws {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: folder) else {
            throw MediaError(.unreadable, path: folder, "cannot be read")
        }
        self.folder = folder
        var folders: [BrowseEntry] = [], files: [BrowseEntry] = []
        if recursive {
            files = BatchInputs.walk(folder, recursive: true, extensions: Playlist.playableExtensions, order: .natural)
                .compactMap {
                    BrowseListing.entry(
                        path: $0, name: String($0.dropFirst(folder.count)).trimmingCharacters(in: ["/"]))
                }
        } else {
            for name in names where !name.hasPrefix(".") {
                let path = (folder as NSString).appendingPathComponent(name)
                guard let e = BrowseListing.entry(path: path, name: name) else { continue }
                if e.isFolder {
                    folders.append(e)
                } else if Playlist.playableExtensions.contains((name as NSString).pathExtension.lowercased()) {
                    files.append(e)
                }
            }
        }
        all = BrowseListing.sorted(folders, by: .name) + BrowseListing.sorted(files, by: .name)
    }

    /// Named files (and folders) as given, in that order.
    public init(paths: [String]) {
        folder = nil
        all = paths.compactMap { BrowseListing.entry(path: $0, name: ($0 as NSString).lastPathComponent) }
    }

    /// The entry for `path` from its `stat` (following links), nil when it is gone.
    static func entry(path: String, name: String) -> BrowseEntry? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        let isFolder = (st.st_mode & S_IFMT) == S_IFDIR
        let modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
        return BrowseEntry(
            path: path, name: name, isFolder: isFolder, size: isFolder ? 0 : Int64(st.st_size), modified: modified,
            cover: isFolder ? firstPlayable(in: path) : nil)
    }

    /// The first playable file directly in `folder` (hidden ones left out), in natural order.
    static func firstPlayable(in folder: String) -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter {
            !$0.hasPrefix(".") && Playlist.playableExtensions.contains(($0 as NSString).pathExtension.lowercased())
        }
        .min { $0.compare($1, options: [.numeric, .caseInsensitive]) == .orderedAscending }
        .map { (folder as NSString).appendingPathComponent($0) }
    }

    /// The entries whose names contain `filter` (case ignored; everything for ""), folders first, each group in
    /// `order`; `duration` gives a file's length in seconds where known.
    public func entries(
        order: BrowseOrder, filter: String = "", duration: (String) -> Double? = { _ in nil }
    ) -> [BrowseEntry] {
        let kept =
            filter.isEmpty
            ? all : all.filter { $0.name.range(of: filter, options: [.caseInsensitive, .diacriticInsensitive]) != nil }
        return BrowseListing.sorted(kept.filter(\.isFolder), by: .name)
            + BrowseListing.sorted(kept.filter { !$0.isFolder }, by: order, duration: duration)
    }

    static func sorted(
        _ entries: [BrowseEntry], by order: BrowseOrder, duration: (String) -> Double? = { _ in nil }
    ) -> [BrowseEntry] {
        func byName(_ a: BrowseEntry, _ b: BrowseEntry) -> Bool {
            a.name.compare(b.name, options: [.numeric, .caseInsensitive]) == .orderedAscending
        }
        switch order {
        case .name: return entries.sorted(by: byName)
        case .date: return entries.sorted { $0.modified != $1.modified ? $0.modified > $1.modified : byName($0, $1) }
        case .size: return entries.sorted { $0.size != $1.size ? $0.size > $1.size : byName($0, $1) }
        case .duration:
            let known = Dictionary(entries.map { ($0.path, duration($0.path) ?? -1) }, uniquingKeysWith: { a, _ in a })
            return entries.sorted {
                let (a, b) = (known[$0.path] ?? -1, known[$1.path] ?? -1)
                return a != b ? a > b : byName($0, $1)
            }
        }
    }
}
