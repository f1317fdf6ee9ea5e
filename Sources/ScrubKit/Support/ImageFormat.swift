import FFmpegBridge

/// The still-image formats thumbnails, sheets and sprites are written in.
public enum ImageFormat: String, Sendable, CaseIterable {
    /// PNG (lossless; libavcodec's encoder).
    case png
    /// JPEG (libjpeg-turbo).
    case jpeg
    /// WebP (libavcodec's libwebp encoder, when this FFmpeg has it).
    case webp

    /// The usual file extension.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// The format a file name implies, if any.
    public init?(fileExtension ext: String) {
        switch ext.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        case "webp": self = .webp
        default: return nil
        }
    }

    /// Whether this build can write the format (JPEG: always, with libjpeg-turbo; PNG and WebP: if libavcodec can).
    public var isAvailable: Bool { ImageEncoder.canEncode(encoderFormat) }

    /// The encoder's name for it.
    var encoderFormat: ImageEncoder.Format {
        switch self {
        case .png: return .png
        case .jpeg: return .jpeg
        case .webp: return .webp
        }
    }
}
