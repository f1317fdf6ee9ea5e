import Foundation
import MediaTime

/// What a tile says about its file beside the picture: length, codec and size. Kept in the thumbnail cache (a few
/// bytes under a ``CacheKey`` of kind `facts`), so a warm grid opens nothing.
public struct TileFacts: Sendable, Equatable {
    /// Length in seconds; nil when not known (a live stream, a still).
    public var duration: Double?
    /// The picture's codec (`h264`), or the sound's for a file with only sound.
    public var codec: String
    /// Display width in pixels (0: no picture).
    public var width: Int
    /// Display height in pixels (0: no picture).
    public var height: Int

    /// Facts with these values.
    public init(duration: Double?, codec: String, width: Int, height: Int) {
        self.duration = duration
        self.codec = codec
        self.width = width
        self.height = height
    }

    /// The facts of a generator's timeline.
    init(_ t: ThumbnailGenerator.Timeline) {
        let d = t.duration.isNumeric && t.duration > .zero && !t.isStill ? t.duration.seconds : nil
        self.init(duration: d, codec: t.codec, width: t.displayWidth, height: t.displayHeight)
    }

    /// The facts `info` gathered (for a file without a picture to thumbnail).
    init(_ info: MediaInfo) {
        let d = info.durationKind == .known && info.duration.isNumeric ? info.duration.seconds : nil
        self.init(duration: d, codec: info.video?.codec ?? info.audio.first?.codec ?? "?",
                  width: info.video?.displayWidth ?? 0, height: info.video?.displayHeight ?? 0)
    }

    /// The cache entry's bytes: one line, tab-separated.
    var payload: [UInt8] {
        Array([duration.map { String($0) } ?? "-", codec, String(width), String(height)].joined(separator: "\t").utf8)
    }

    /// Facts read back from ``payload``; nil for anything else.
    init?(payload: [UInt8]) {
        let parts = String(decoding: payload, as: UTF8.self).split(separator: "\t", omittingEmptySubsequences: false)
        guard parts.count == 4, let w = Int(parts[2]), let h = Int(parts[3]) else { return nil }
        self.init(duration: parts[0] == "-" ? nil : Double(parts[0]), codec: String(parts[1]), width: w, height: h)
    }

    /// "1:23:45" / "3:07" / "0:09"; nil when the length is not known.
    public var durationText: String? {
        guard let d = duration, d.isFinite else { return nil }
        let s = Int(d.rounded(.down))
        return s >= 3600
            ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
