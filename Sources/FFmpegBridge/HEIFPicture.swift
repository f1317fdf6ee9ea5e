import CHeif
import Glibc

/// A HEIF/HEIC still opened with libheif (FFmpeg 5.1 cannot read them). Part of the C-bridge layer.
public final class HEIFPicture {
    private let handle: UnsafeMutablePointer<scrub_heif>
    /// Displayed size of the primary image (its rotation and mirroring applied).
    public let width: Int
    /// Displayed height (see ``width``).
    public let height: Int

    /// Outcome of a decode.
    public enum Outcome {
        case decoded(PackedRGB)
        case tooLarge(width: Int, height: Int)
        case failed(String)
    }

    /// Nil when libheif cannot read the file (not HEIF, damaged): use another decoder.
    public init?(path: String) {
        guard let h = scrub_heif_open(path) else { return nil }
        handle = h
        width = Int(h.pointee.width)
        height = Int(h.pointee.height)
    }

    deinit { scrub_heif_close(handle) }

    /// The smallest picture at least `minWidth × minHeight` — an embedded thumbnail when one is big enough, else
    /// the primary image — upright unless `keepsStoredOrientation`.
    public func decode(minWidth: Int, minHeight: Int, keepsStoredOrientation: Bool, maxPixels: Int) -> Outcome {
        var w: Int32 = 0, h: Int32 = 0, tooLarge: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        guard
            let p = scrub_heif_decode(
                handle, Int32(clamping: minWidth), Int32(clamping: minHeight), keepsStoredOrientation ? 1 : 0,
                Int64(maxPixels), &w, &h, &tooLarge, &message)
        else {
            if tooLarge != 0 { return .tooLarge(width: width, height: height) }
            return .failed(string(fromCBuffer: message))
        }
        defer { free(p) }
        return .decoded(
            PackedRGB(
                width: Int(w), height: Int(h), pixels: Array(UnsafeBufferPointer(start: p, count: Int(w) * Int(h) * 3)))
        )
    }
}
