import FFmpegBridge
import Foundation

/// Output file names for batch thumbnails, from a template.
///
/// Placeholders: `{stem}` (file name without extension), `{name}` (file name with extension), `{srcext}`,
/// `{index}` (0-based), `{index1}` (1-based), `{time}` (requested seconds, 3 decimals), `{ext}` (output format).
/// The default, `{name}-{index}.{ext}`, keeps `clip.mp4` and `clip.mkv` apart. Sources whose names still collide
/// (same file name in different folders) get a short hash of their folder appended to `{stem}`/`{name}`, decided
/// from the whole input list, so every shard of a batch names files identically.
public struct BatchNaming: Sendable {
    /// The default output name: source file name, index, extension.
    public static let defaultTemplate = "{name}-{index}.{ext}"
    /// The template: placeholders `{stem} {name} {srcext} {index} {index1} {time} {ext}`.
    public var template: String
    private var disambiguate: Set<String>

    /// Names for the batch of `allSources` (needed to tell apart same-named files in different folders).
    public init(template: String = BatchNaming.defaultTemplate, allSources: [String]) {
        self.template = template
        var seen: [String: Int] = [:]
        for s in allSources { seen[BatchNaming.fileName(s), default: 0] += 1 }
        disambiguate = Set(seen.filter { $0.value > 1 }.keys)
    }

    /// The file name part of a source: for a URL, the last path segment without query string or fragment (a
    /// pre-signed URL's signature must not end up in file names).
    public static func fileName(_ source: String) -> String {
        guard Demuxer.isURL(source) else { return (source as NSString).lastPathComponent }
        let bare = source.split(whereSeparator: { $0 == "?" || $0 == "#" }).first.map(String.init) ?? source
        let last = (bare as NSString).lastPathComponent
        return last.isEmpty || last.contains(":") ? "remote" : last
    }

    /// The output name of thumbnail `index` (at `seconds`) of `source`, with extension `ext`.
    public func name(source: String, index: Int, seconds: Double?, ext: String) -> String {
        let file = BatchNaming.fileName(source)
        var stem = (file as NSString).deletingPathExtension
        var name = file
        if disambiguate.contains(file) {
            let dir =
                Demuxer.isURL(source)
                ? String(source.split(separator: "?").first ?? "")
                : URL(fileURLWithPath: source).standardizedFileURL.deletingLastPathComponent().path
            let tag = String(BatchInputs.shard(of: dir, count: Int(Int32.max)), radix: 36)
            stem += "~" + tag
            name = stem + "." + (file as NSString).pathExtension
        }
        let time = seconds.map { String(format: "%.3f", $0) } ?? "0"
        return template
            .replacingOccurrences(of: "{stem}", with: stem)
            .replacingOccurrences(of: "{name}", with: name)
            .replacingOccurrences(of: "{srcext}", with: (file as NSString).pathExtension)
            .replacingOccurrences(of: "{index1}", with: String(index + 1))
            .replacingOccurrences(of: "{index}", with: String(index))
            .replacingOccurrences(of: "{time}", with: time)
            .replacingOccurrences(of: "{ext}", with: ext)
    }
}
