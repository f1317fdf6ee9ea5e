import FFmpegBridge
import Foundation

/// A subtitle track a player can show: a stream of the file, or a file of its own (a sidecar found beside the video,
/// `clip.srt`, `clip.en.ass`, or one given with `--sub-file`).
public struct SubtitleTrack: Sendable, Equatable {
    /// Where its cues come from.
    public enum Source: Sendable, Equatable {
        /// The file's stream of this index.
        case stream(Int)
        /// A subtitle file.
        case file(String)
    }

    /// Where its cues come from.
    public var source: Source
    /// Its codec, language, title and marks.
    public var info: SubtitleInfo

    /// What names it on a status line: `eng "English" (default)`, `clip.en.srt`, or the codec.
    public var label: String {
        if case .file(let path) = source { return (path as NSString).lastPathComponent }
        return info.label
    }

    /// Extensions of the subtitle files looked for beside a video (as mpv's `--sub-auto=exact`).
    public static let sidecarExtensions: Set<String> = ["srt", "ass", "ssa", "vtt", "webvtt"]

    /// The subtitle files beside the local file `path` named like it: `NAME.srt`, `NAME.LANG.srt`,
    /// `NAME.anything.ass`…, in natural order of their names (none for a URL).
    public static func sidecars(for path: String) -> [String] {
        guard !Demuxer.isURL(path) else { return [] }
        let url = URL(fileURLWithPath: path)
        let stem = url.deletingPathExtension().lastPathComponent
        let dir = url.deletingLastPathComponent().path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return [] }
        return names.filter { name in
            let ext = (name as NSString).pathExtension.lowercased()
            guard sidecarExtensions.contains(ext) else { return false }
            let base = (name as NSString).deletingPathExtension
            return base == stem || base.hasPrefix(stem + ".")
        }
        .sorted { $0.compare($1, options: [.numeric, .caseInsensitive]) == .orderedAscending }
        .map { (dir as NSString).appendingPathComponent($0) }
    }

    /// A track for the subtitle file `path`, its language taken from its name (`clip.en.srt` → `en`) when `video`
    /// is the file it was found beside.
    public static func file(_ path: String, beside video: String? = nil) -> SubtitleTrack {
        var language: String? = nil
        if let video {
            let stem = URL(fileURLWithPath: video).deletingPathExtension().lastPathComponent
            let base = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            if base.hasPrefix(stem + "."), case let rest = String(base.dropFirst(stem.count + 1)),
                (2...3).contains(rest.count),
                rest.allSatisfy(\.isLetter)
            {
                language = rest
            }
        }
        let ext = (path as NSString).pathExtension.lowercased()
        let codec = ["srt": "subrip", "vtt": "webvtt", "webvtt": "webvtt", "ssa": "ass"][ext] ?? ext
        return SubtitleTrack(
            source: .file(path),
            info: SubtitleInfo(
                codec: codec, language: language, title: nil, isDefault: false,
                isForced: false, isBitmap: false))
    }

    /// Which of `tracks` plays first when nothing is asked: a subtitle file (it was put there to be shown, as mpv
    /// does), else a stream marked default, else one marked forced; nil: none.
    public static func preferred(in tracks: [SubtitleTrack]) -> Int? {
        tracks.firstIndex { if case .file = $0.source { return true } else { return false } }
            ?? tracks.firstIndex { $0.info.isDefault } ?? tracks.firstIndex { $0.info.isForced }
    }
}

extension SubtitleInfo {
    /// The facts of a subtitle stream.
    init(stream: StreamFacts) {
        self.init(codec: stream.codecName, language: stream.language, title: stream.title, isDefault: stream.isDefault,
                  isForced: stream.isForced, isBitmap: SubtitleInfo.bitmapCodecs.contains(stream.codecName))
    }
}
