import Foundation
import Testing

/// The shared real-world corpus (`../shared/media` beside the checkout) and the project's own `samples/`.
///
/// Tests that need the corpus are skipped when it is absent, unless `SCRUBKIT_REQUIRE_CORPUS=1` (set by `.ci/run`),
/// where its absence is a failure rather than a silent skip.
enum Corpus {
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    static let media: URL = {
        if let env = ProcessInfo.processInfo.environment["SCRUBKIT_MEDIA"] { return URL(fileURLWithPath: env) }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/media")
    }()

    static var available: Bool {
        let ok = FileManager.default.fileExists(atPath: media.appendingPathComponent("MANIFEST.tsv").path)
        if !ok && ProcessInfo.processInfo.environment["SCRUBKIT_REQUIRE_CORPUS"] == "1" {
            fatalError("SCRUBKIT_REQUIRE_CORPUS=1 but the corpus is missing at \(media.path)")
        }
        return ok
    }

    /// Path of a corpus file, e.g. `path("androidx-media/mp4/sample.mp4")`.
    static func path(_ relative: String) -> String { media.appendingPathComponent(relative).path }

    /// Path of a bundled sample.
    static func sample(_ name: String) -> String { packageRoot.appendingPathComponent("samples/\(name)").path }

    static var samplesAvailable: Bool { FileManager.default.fileExists(atPath: sample("h264_gop2s.mp4")) }
}
