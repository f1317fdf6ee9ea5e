import Foundation
import MediaTime

/// A video's frame kept as a picture file (mpv's `s`): the frame whose display interval contains the time, at the
/// video's own display size, upright and tone-mapped, as PNG: the same pixels as `thumb --exact --max-size 0`.
public enum Screenshot {
    /// Where a screenshot of `path` at `time` (from the file's start) goes by default: `NAME-HHhMMmSS.mmms.png` in
    /// `directory` (nil: the current folder, as mpv does).
    public static func defaultOutput(for path: String, at time: MediaTime, directory: String? = nil) -> String {
        let name = (BatchNaming.fileName(path) as NSString).deletingPathExtension
        let file = "\(name)-\(LosslessCut.nameLabel(time)).png"
        let dir = directory ?? FileManager.default.currentDirectoryPath
        return URL(fileURLWithPath: dir).appendingPathComponent(file).path
    }

    /// Saves the frame of `path` at `time` (on its presentation timeline, as `thumb --at` places it) as PNG at
    /// ``defaultOutput(for:at:directory:)`` for `label` (the time from the file's start, as the player shows it), or
    /// `NAME-…-2.png` and on when that exists: never over a file; with `subtitles` burned in (mpv's `S`: bitmap ones
    /// scaled from their canvas, text at the bottom). Returns the path written. Throws a ``MediaError`` naming the
    /// file (unreadable, no picture at that time, a folder that cannot be written; nothing is left behind).
    public static func save(_ path: String, at time: MediaTime, label: MediaTime, directory: String? = nil,
                            subtitles: [SubtitleCue] = []) throws -> String {
        var generator = ThumbnailGenerator(path: path)
        generator.maximumSize = .unscaled
        generator.setExact()
        let picture = try generator.image(at: .absolute(time))
        let image = subtitles.isEmpty ? picture.image : picture.image.drawing(subtitles, text: true)
        let output = defaultOutput(for: path, at: label, directory: directory)
        return try AtomicFile.writeNew(try image.encoded(as: .png), to: output)
    }
}
