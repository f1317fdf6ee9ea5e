import FFmpegBridge
import MediaTime

/// A file could not be used. `description` is one line naming the file and the cause.
public struct MediaError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What went wrong, in categories a caller can act on.
    public enum Kind: String, Sendable {
        case notFound, unreadable, notMedia, corrupt, unsupported, noVideo, tooLarge, decodeFailed, invalidRequest, writeFailed, cancelled
    }

    public var kind: Kind
    public var path: String
    public var reason: String

    public init(_ kind: Kind, path: String, _ reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }

    /// A picture of `width × height` is refused by the pixel limit (checked before anything sized by it exists).
    static func overPixelLimit(_ path: String, width: Int, height: Int, limit: Int) -> MediaError {
        MediaError(.tooLarge, path: path, "picture is \(width)×\(height) (\(width * height / 1_000_000) MP), above the pixel limit of \(limit / 1_000_000) MP")
    }

    /// No frame satisfying the request decodes near `time`: the nearest that does is at `nearest`.
    static func frameNotFound(_ path: String, at time: MediaTime, nearest: MediaTime, exact: Bool) -> MediaError {
        let t = MediaTime.decimalString((time.seconds * 1000).rounded() / 1000)
        let n = MediaTime.decimalString((nearest.seconds * 1000).rounded() / 1000)
        let what = nearest < time ? "the last frame that decodes before it is at \(n) s (truncated or damaged data)"
                                  : "the first frame that decodes after it is at \(n) s (damaged data)"
        return MediaError(.decodeFailed, path: path, "no \(exact ? "exact " : "")frame at \(t) s: \(what)")
    }

    /// Maps an FFmpeg failure while opening `path` to a clear message.
    static func opening(_ path: String, _ error: Error) -> MediaError {
        guard let ff = error as? FFmpegError else { return MediaError(.unreadable, path: path, "\(error)") }
        if ff.code == -2 { return MediaError(.notFound, path: path, "no such file") }
        if ff.code == -13 { return MediaError(.unreadable, path: path, "permission denied") }
        if ff.code == -21 { return MediaError(.unreadable, path: path, "is a directory") }
        if ff.isInvalidData || ff.isEndOfFile {
            return MediaError(.notMedia, path: path, "not a recognised media file, or its header is corrupt or truncated (\(ff.message))")
        }
        return MediaError(.corrupt, path: path, "cannot be opened: \(ff.message)")
    }
}
