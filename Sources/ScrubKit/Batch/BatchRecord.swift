import Foundation
import MediaTime

/// One thumbnail in the manifest.
public struct BatchRecord: Sendable {
    /// The source file (or URL, shown with its secrets redacted).
    public var source: String
    /// The position of its time among the file's requested times.
    public var index: Int
    /// The time asked for, in seconds on the file's presentation timeline.
    public var requestedTime: Double
    /// The presentation time of the frame delivered, in seconds.
    public var actualTime: Double
    /// The file (with a `#xywh=` fragment for sprite tiles).
    public var output: String
    /// The thumbnail's width in pixels.
    public var width: Int
    /// The thumbnail's height in pixels.
    public var height: Int
    /// The frame is outside the tolerance (damaged data, `acceptsApproximateFrames`).
    public var approximate = false

    /// The manifest line (`--json`): source, index, times, output, size[, approximate].
    public var json: JSON {
        .object(
            [
                ("source", .string(Redaction.display(source))), ("index", .int(index)),
                ("requestedTime", .seconds(requestedTime)),
                ("actualTime", .seconds(actualTime)), ("output", .string(output)), ("width", .int(width)),
                ("height", .int(height)),
            ]
                + (approximate ? [("approximate", .bool(true))] : []))
    }
}

extension BatchRecord {
    /// A record read back from its JSON form (resume journals, cache entries).
    init?(json r: [String: Any]) {
        guard let s = r["source"] as? String, let i = r["index"] as? Int, let o = r["output"] as? String,
              let w = r["width"] as? Int, let h = r["height"] as? Int else { return nil }
        self.init(source: s, index: i, requestedTime: (r["requestedTime"] as? Double) ?? 0,
                  actualTime: (r["actualTime"] as? Double) ?? 0, output: o, width: w, height: h,
                  approximate: (r["approximate"] as? Bool) ?? false)
    }
}

/// What happened to one source file.
public struct BatchFileResult: Sendable {
    /// The source file as given.
    public var source: String
    /// The thumbnails written for it.
    public var records: [BatchRecord] = []
    /// Failures: the whole file (index nil) or single times.
    public var errors: [(index: Int?, error: MediaError)] = []
    /// Served from an earlier run (`--resume`).
    public var resumed = false
    /// Written from the cache (nothing decoded).
    public var cached = false
    /// The files written, kept only while a cache needs them.
    var outputs: [(name: String, bytes: [UInt8])] = []
    /// Wall time spent on the file.
    public var seconds: Double = 0
    /// Whether the file or any of its times failed.
    public var failed: Bool { !errors.isEmpty }
}
