import FFmpegBridge
import Foundation
import MediaTime

/// A section of a file copied into a new one without re-encoding (as LosslessCut and `ffmpeg -c copy`): every
/// picture, sound and subtitle stream the output's container can hold, its metadata, and the chapters that overlap
/// the section (trimmed to it). The cut starts on the keyframe at or before the asked start (a copy can start nowhere
/// else) and ends before the asked end; the copy's timeline starts at 0. The output is written atomically.
public enum LosslessCut {
    /// What a cut wrote.
    public struct Result: Sendable, Equatable {
        /// The output file.
        public var output: String
        /// Where the copy starts in the source (the keyframe at or before ``requestedStart``), on the file's
        /// presentation timeline (as `ffprobe -show_frames` shows it, and as the times asked were placed).
        public var start: MediaTime
        /// Where the copy ends, on the same timeline.
        public var end: MediaTime
        /// The start that was asked for.
        public var requestedStart: MediaTime
        /// How many streams were copied.
        public var streams: Int
        /// How many chapters were kept.
        public var chapters: Int
        /// With `exact`: how much of the start was re-encoded (from the asked start to the next keyframe), zero when
        /// nothing was (the start is a keyframe, or re-encoding was not possible: ``notes`` says why).
        public var reencoded: MediaTime = .zero
        /// What was left out and why, a line each (a stream the output's container cannot hold).
        public var notes: [String]
    }

    /// Copies `path` from `from` to `to` (times on the file's presentation timeline, as `thumb --at` resolves them:
    /// the rule `MediaFacts.presentationTime` keeps) into `output` (its container chosen by its name's extension). With
    /// `exact`, a "smart cut": the pictures from `from` to the next keyframe are re-encoded (H.264 or HEVC, matched to
    /// the stream) so the cut starts on the asked frame, the rest copied; where that cannot be done the cut starts on
    /// the keyframe before, and ``Result/notes`` says why. Throws a ``MediaError`` naming the file: unreadable input, a
    /// section outside the file or empty, an output that cannot be written (nothing is left behind).
    public static func cut(
        _ path: String, from: TimeExpression, to: TimeExpression, output: String, exact: Bool = false
    ) throws -> Result {
        guard
            URL(fileURLWithPath: output).standardizedFileURL.path != URL(fileURLWithPath: path).standardizedFileURL.path
        else {
            throw MediaError(.writeFailed, path: output, "is the file being cut: choose another output")
        }
        guard StreamCopier.hasContainer(named: output) else {
            throw MediaError(
                .invalidRequest, path: output,
                "its name does not say which container to write: end it in .mkv, .mp4, .mov, .ts…")
        }
        let media = try MediaOpener.open(path, .full(pixelLimit: MediaInspector.defaultPixelLimit))
        let facts = media.facts
        guard !facts.isStill else { throw MediaError(.unsupported, path: path, "is a still picture: nothing to cut") }
        let origin = facts.start.isNumeric ? facts.start : .zero
        guard facts.duration.isNumeric else {
            throw MediaError(.unsupported, path: path, "has no known duration: cannot cut by time")
        }
        let end = origin + facts.duration
        // (Times as `thumb --at` places them: one rule, so the cut starts on the picture `thumb` shows there.)
        guard let a = facts.presentationTime(of: from, length: facts.duration),
              let b = facts.presentationTime(of: to, length: facts.duration) else {
            throw MediaError(.unsupported, path: path, "has no known duration: cannot cut by time")
        }
        func said(_ t: MediaTime) -> String { t.formatted(fractionDigits: 3) }
        guard a < end else {
            throw MediaError(.invalidRequest, path: path, "the cut starts at \(said(a)), past the end (\(said(end)))")
        }
        guard b > a else {
            throw MediaError(
                .invalidRequest, path: path, "the cut ends at \(said(b)), not after its start (\(said(a)))")
        }
        let section = CutPlan(media: media, from: a, to: MediaTime.minimum(b, end), output: output, exact: exact)
        return try section.write(path: path)
    }

    /// Where a cut of `path` from `from` to `to` goes by default: `NAME-cut-FROM-TO.EXT` in `directory` (nil: beside
    /// the file; a URL's in the current folder), the times as given (`:` and `/` made safe for a name).
    public static func defaultOutput(for path: String, from: String, to: String, directory: String? = nil) -> String {
        let name = BatchNaming.fileName(path)
        let ext = (name as NSString).pathExtension.isEmpty ? "mkv" : (name as NSString).pathExtension
        func safe(_ s: String) -> String { String(s.map { $0 == ":" || $0 == "/" ? "." : $0 }) }
        let file = "\((name as NSString).deletingPathExtension)-cut-\(safe(from))-\(safe(to)).\(ext)"
        if let directory { return URL(fileURLWithPath: directory).appendingPathComponent(file).path }
        return path.contains("://")
            ? file : URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(file).path
    }

    /// A time as a file name writes it: `00h01m02.500s`.
    public static func nameLabel(_ t: MediaTime) -> String {
        let ms = Int((max(0, t.seconds) * 1000).rounded())
        return String(format: "%02dh%02dm%02d.%03ds", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }
}
