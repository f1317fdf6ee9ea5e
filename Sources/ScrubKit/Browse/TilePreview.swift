import FFmpegBridge
import Foundation

/// A tile's moving preview for `scrubkit browse`: the frames of the file's preview
/// (``PreviewMaker/frames(of:options:isCancelled:_:)``:
/// excerpts of different scenes) at the tile's size, made once and kept in the thumbnail cache (deflated pixels under
/// a ``CacheKey`` of kind `tilePreview`), so a tile seen in an earlier session moves at once.
public enum TilePreview {
    /// Excerpts, seconds each, and frames a second of a tile's preview.
    public static let excerpts = 6, excerptSeconds = 1.0, framesPerSecond = 8

    /// The preview frames of `path` fitted to `size`: from `cache` when there, else made (and stored). `isCancelled`
    /// stops the making between excerpts (then nothing is stored). Throws when the file has no video to preview.
    public static func frames(
        of path: String, size: MaximumSize, cache: ThumbnailCache?, isCancelled: @Sendable () -> Bool = { false }
    ) throws -> [RGBImage] {
        let key = SourceIdentity(path: path).map {
            CacheKey(
                .tilePreview, identity: $0,
                parts: [size.key, "\(excerpts)x\(excerptSeconds)s", "\(framesPerSecond)fps"])
        }
        if let key, let payload = cache?.bytes(for: key), let frames = decode(payload), !frames.isEmpty {
            return frames
        }
        var options = PreviewOptions()
        (options.maximumSize, options.count, options.excerptSeconds, options.framesPerSecond) = (
            size, excerpts, excerptSeconds, framesPerSecond
        )
        var frames: [RGBImage] = []
        _ = try PreviewMaker.frames(of: path, options: options, isCancelled: isCancelled) { image, _ in
            frames.append(image)
        }
        if !isCancelled(), !frames.isEmpty, let key, let payload = encode(frames) { cache?.store(payload, for: key) }
        return frames
    }

    /// The frames as one payload: per frame its width, height and deflated length (4 bytes each, little-endian), then
    /// its deflated RGB.
    static func encode(_ frames: [RGBImage]) -> [UInt8]? {
        var out: [UInt8] = []
        for f in frames {
            guard let packed = f.deflated() else { return nil }
            for v in [f.width, f.height, packed.count] {
                let u = UInt32(v)
                out += [UInt8(u & 0xFF), UInt8(u >> 8 & 0xFF), UInt8(u >> 16 & 0xFF), UInt8(u >> 24)]
            }
            out += packed
        }
        return out
    }

    /// Frames read back from ``encode(_:)``'s payload; nil for anything damaged.
    static func decode(_ payload: [UInt8]) -> [RGBImage]? {
        var frames: [RGBImage] = [], i = 0
        func word() -> Int? {
            guard i + 4 <= payload.count else { return nil }
            defer { i += 4 }
            return Int(payload[i]) | Int(payload[i + 1]) << 8 | Int(payload[i + 2]) << 16 | Int(payload[i + 3]) << 24
        }
        while i < payload.count {
            guard let w = word(), let h = word(), let n = word(), w > 0, h > 0, w * h <= 1 << 24,
                i + n <= payload.count,
                let pixels = Deflate.inflate(Array(payload[i..<(i + n)]), count: w * h * 3), pixels.count == w * h * 3
            else { return nil }
            i += n
            frames.append(RGBImage(width: w, height: h, pixels: pixels))
        }
        return frames
    }
}
