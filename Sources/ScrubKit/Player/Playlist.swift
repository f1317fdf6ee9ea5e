import FFmpegBridge
import Foundation

/// What `play` plays in turn, as mpv's playlist: files, URLs, a folder's playable files in natural order (`clip2`
/// before `clip10`), `.m3u`/`.m3u8` lists; one current entry, moved by ``advance(by:)``.
public struct Playlist: Sendable, Equatable {
    /// The entries, in playing order.
    public private(set) var entries: [String]
    /// The current entry's index in ``entries``.
    public private(set) var index: Int
    /// Whether moving past either end wraps around (`--loop-playlist`).
    public var loops: Bool

    /// A playlist of `entries` (at least one) starting at `start` (clamped to the entries).
    public init(entries: [String], start: Int = 0, loops: Bool = false) {
        precondition(!entries.isEmpty, "a playlist needs an entry")
        self.entries = entries
        self.index = min(max(start, 0), entries.count - 1)
        self.loops = loops
    }

    /// The entry playing.
    public var current: String { entries[index] }

    /// `2/14`: the current entry's place.
    public var position: String { "\(index + 1)/\(entries.count)" }

    /// Moves `by` entries (negative: back). Returns false, staying put, past either end of a playlist that does not
    /// loop.
    public mutating func advance(by step: Int) -> Bool {
        let next = index + step
        if entries.indices.contains(next) { index = next; return true }
        guard loops else { return false }
        index = ((next % entries.count) + entries.count) % entries.count
        return true
    }

    /// Shuffles the entries (`--shuffle`, before playing starts) and starts at the first of the new order.
    public mutating func shuffle<G: RandomNumberGenerator>(using generator: inout G) {
        entries.shuffle(using: &generator)
        index = 0
    }

    /// Extensions a folder's files are played for: videos and sound (stills are left out: they have no timeline).
    public static let playableExtensions: Set<String> = BatchInputs.mediaExtensions.subtracting(
        BatchInputs.imageExtensions
    )
    .union([
        "gif", "apng", "mp3", "m4a", "m4b", "aac", "flac", "ogg", "oga", "opus", "wav", "wma", "mka", "ac3", "eac3",
        "dts", "aiff", "aif", "ape", "wv", "caf",
    ])

    /// The entries `operands` name: a file or URL as given; a folder's playable files (hidden ones left out) in
    /// natural order, with its subfolders' after them when `recursive`; an `.m3u`/`.m3u8` list's entries (comments
    /// skipped, paths relative to the list's folder, `file://` URLs as paths, lists within lists up to 8 deep).
    /// Throws a ``MediaError`` naming the operand for a list or folder that cannot be read, or that holds nothing
    /// playable.
    public static func entries(of operands: [String], recursive: Bool = false) throws -> [String] {
        try operands.flatMap { try entries(of: $0, recursive: recursive, depth: 0) }
    }

    static func entries(of operand: String, recursive: Bool, depth: Int) throws -> [String] {
        if Demuxer.isURL(operand) { return [operand] }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: operand, isDirectory: &isDirectory) else { return [operand] }
        if isDirectory.boolValue {
            let files = BatchInputs.walk(operand, recursive: recursive, extensions: playableExtensions, order: .natural)
            guard !files.isEmpty else {
                throw MediaError(
                    .invalidRequest, path: operand,
                    "holds no files to play" + (recursive ? "" : " (--recursive looks in its folders)"))
            }
            return files
        }
        let ext = (operand as NSString).pathExtension.lowercased()
        guard ext == "m3u" || ext == "m3u8" else { return [operand] }
        // (An HLS media playlist is a stream, not a list of files: FFmpeg plays it.)
        guard let data = FileManager.default.contents(atPath: operand) else {
            throw MediaError(.unreadable, path: operand, "cannot be read")
        }
        let text = String(decoding: data, as: UTF8.self)
        if text.contains("#EXT-X-") { return [operand] }
        guard depth < 8 else { throw MediaError(.invalidRequest, path: operand, "lists within lists go deeper than 8") }
        let folder = URL(fileURLWithPath: operand).deletingLastPathComponent()
        var out: [String] = []
        for raw in text.split(whereSeparator: \.isNewline) {
            var line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("\u{FEFF}") { line.removeFirst() }
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            if line.hasPrefix("file://"), let url = URL(string: line), url.isFileURL { line = url.path }
            else if !Demuxer.isURL(line) && !line.hasPrefix("/") { line = folder.appendingPathComponent(line).path }
            out += try entries(of: line, recursive: recursive, depth: depth + 1)
        }
        guard !out.isEmpty else { throw MediaError(.invalidRequest, path: operand, "lists no files") }
        return out
    }
}
