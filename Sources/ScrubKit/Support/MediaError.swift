import FFmpegBridge
import Foundation
import MediaTime

/// A file could not be used. `description` is one line naming the file and the cause.
public struct MediaError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What went wrong, in categories a caller can act on.
    public enum Kind: String, Sendable {
        case notFound, unreadable, notMedia, corrupt, unsupported, noVideo, tooLarge, decodeFailed, invalidRequest,
            writeFailed, cancelled
    }

    /// What went wrong, for programs (the message says it in words).
    public var kind: Kind
    /// The file or URL concerned (URLs shown with their secrets redacted).
    public var path: String
    /// The cause in words, FFmpeg's own text after it where there is one.
    public var reason: String

    /// An error of `kind` about `path`, saying `reason`.
    public init(_ kind: Kind, path: String, _ reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    /// One line: the file (a URL's query string and credentials hidden, see ``Redaction``) and the cause.
    public var description: String { "\(Redaction.display(path)): \(reason)" }

    /// A picture of `width × height` is refused by the pixel limit (checked before anything sized by it exists).
    static func overPixelLimit(_ path: String, width: Int, height: Int, limit: Int) -> MediaError {
        // Enough decimals that the two numbers differ (12288×12288 is 150.99 MP, not "150 MP" like the limit).
        let (a, b) = (Double(width * height) / 1e6, Double(limit) / 1e6)
        var digits = 0
        while digits < 6 && (a * pow(10, Double(digits))).rounded(.down) == (b * pow(10, Double(digits))).rounded(.down)
        { digits += 1 }
        func mp(_ x: Double) -> String {
            digits == 0
                ? String(Int(x.rounded(.down)))
                : String(format: "%.\(digits)f", (x * pow(10, Double(digits))).rounded(.down) / pow(10, Double(digits)))
        }
        return MediaError(
            .tooLarge, path: path, "picture is \(width)×\(height) (\(mp(a)) MP), above the pixel limit of \(mp(b)) MP")
    }

    /// No frame satisfying the request decodes near `time`: the nearest that does is at `nearest`.
    static func frameNotFound(_ path: String, at time: MediaTime, nearest: MediaTime, exact: Bool) -> MediaError {
        let t = MediaTime.decimalString((time.seconds * 1000).rounded() / 1000)
        let n = MediaTime.decimalString((nearest.seconds * 1000).rounded() / 1000)
        let what = nearest < time ? "the last frame that decodes before it is at \(n) s (truncated or damaged data)"
                                  : "the first frame that decodes after it is at \(n) s (damaged data)"
        return MediaError(.decodeFailed, path: path, "no \(exact ? "exact " : "")frame at \(t) s: \(what)")
    }

    /// A decoder's failure on `codec` data in words a user understands, FFmpeg's own text after it for experts:
    /// "damaged or unsupported JPEG data (FFmpeg: Invalid data found when processing input)".
    static func decoding(_ path: String, codec: String, _ error: FFmpegError) -> MediaError {
        let name = MediaError.formatName(codec)
        let words: String
        switch error.cause {
        case .damaged: words = "damaged or unsupported \(name) data"
        case .unsupportedFeature: words = "the \(name) data uses a feature this FFmpeg does not support"
        case .outOfMemory: words = "not enough memory to decode the \(name) data"
        case .endOfFile: words = "the \(name) data ends early (truncated)"
        case .io: words = "the file could not be read"
        case .other: words = "the \(name) data does not decode"
        }
        return MediaError(.decodeFailed, path: path, "\(words) (FFmpeg: \(error.message))")
    }

    /// The name users know a codec by ("mjpeg" → "JPEG").
    static func formatName(_ codec: String) -> String {
        let known = [
            "mjpeg": "JPEG", "jpegls": "JPEG-LS", "png": "PNG", "apng": "APNG", "gif": "GIF", "webp": "WebP",
            "bmp": "BMP",
            "tiff": "TIFF", "h264": "H.264", "hevc": "HEVC", "av1": "AV1", "vp8": "VP8", "vp9": "VP9",
            "mpeg4": "MPEG-4", "mpeg2video": "MPEG-2", "mpeg1video": "MPEG-1", "mp3": "MP3", "aac": "AAC",
            "prores": "ProRes", "theora": "Theora", "h263": "H.263", "dvvideo": "DV", "msmpeg4v3": "MPEG-4 (MS)",
        ]
        return known[codec] ?? codec.uppercased()
    }

    /// A server that did not answer in time: how long was waited in all, and how many connections were tried.
    static func timedOut(_ path: String, seconds: Double, attempts: Int) -> MediaError {
        let tries = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
        return MediaError(
            .unreadable, path: path,
            "no answer from the server in \(String(format: "%.1f", seconds)) s (\(tries); timed out)")
    }

    /// Maps an FFmpeg failure while opening `path` to a clear message.
    static func opening(_ path: String, _ error: Error) -> MediaError {
        if let t = error as? Demuxer.TimedOut { return timedOut(path, seconds: t.seconds, attempts: t.attempts) }
        guard let ff = error as? FFmpegError else { return MediaError(.unreadable, path: path, "\(error)") }
        if Demuxer.isURL(path) {
            if let status = ff.httpStatus {
                let text =
                    [
                        400: "400 Bad Request", 401: "401 Unauthorized",
                        403: "403 Forbidden (an expired or wrong signature?)",
                        404: "404 Not Found", 499: "a 4xx client error", 599: "a 5xx server error",
                    ][status] ?? "\(status)"
                return MediaError(
                    status == 404 ? .notFound : .unreadable, path: path, "the server answered HTTP \(text)")
            }
            switch -ff.code {
            case ECONNREFUSED: return MediaError(.unreadable, path: path, "connection refused (is the server running?)")
            case ETIMEDOUT: return timedOut(path, seconds: Demuxer.networkTimeout, attempts: 1)
            case EHOSTUNREACH, ENETUNREACH: return MediaError(.unreadable, path: path, "the server cannot be reached")
            default: break
            }
            if ff.cause == .io || ff.cause == .other {
                return MediaError(
                    .unreadable, path: path, "cannot be fetched (network or TLS failure; FFmpeg: \(ff.message))")
            }
        }
        if ff.code == -2 { return MediaError(.notFound, path: path, "no such file") }
        if ff.code == -13 { return MediaError(.unreadable, path: path, "permission denied") }
        if ff.code == -21 { return MediaError(.unreadable, path: path, "is a directory") }
        if ff.isInvalidData || ff.isEndOfFile {
            return MediaError(
                .notMedia, path: path,
                "not a recognised media file, or its header is corrupt or truncated (FFmpeg: \(ff.message))")
        }
        switch ff.cause {
        case .damaged:
            return MediaError(
                .corrupt, path: path,
                "cannot be opened: the header is damaged or of an unsupported kind (FFmpeg: \(ff.message))")
        case .unsupportedFeature:
            return MediaError(
                .unsupported, path: path,
                "cannot be opened: it uses a feature this FFmpeg does not support (FFmpeg: \(ff.message))")
        case .io: return MediaError(.unreadable, path: path, "cannot be read (FFmpeg: \(ff.message))")
        default: return MediaError(.corrupt, path: path, "cannot be opened (FFmpeg: \(ff.message))")
        }
    }
}
