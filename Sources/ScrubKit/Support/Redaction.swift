import FFmpegBridge
import Foundation
import Synchronization

/// Keeps secrets in URLs out of messages and manifests: a pre-signed URL's query string (signatures, tokens) and any
/// `user:password@` are replaced by `…` — unless `--verbose` asked to see everything.
public enum Redaction {
    private static let revealed = Atomic<Bool>(false)

    /// Show URLs whole (set by `--verbose`).
    public static func reveal(_ on: Bool) { revealed.store(on, ordering: .relaxed) }

    /// `path` as it may be printed: local paths unchanged; URLs without credentials and query string.
    public static func display(_ path: String) -> String {
        guard !revealed.load(ordering: .relaxed), Demuxer.isURL(path) else { return path }
        var text = path
        if let q = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = String(text[..<q]) + "?…" }
        // scheme://user:pass@host/… → scheme://…@host/…
        if let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@"),
           !text[scheme.upperBound..<at].contains("/") {
            text.replaceSubrange(scheme.upperBound..<at, with: "…")
        }
        return text
    }
}
