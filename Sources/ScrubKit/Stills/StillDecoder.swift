import FFmpegBridge
import Foundation
import MediaTime

/// A still-image format read by its own library instead of FFmpeg: it recognises its header, decodes straight to
/// the size asked for (shrink-on-load, so memory follows the output), and may describe the picture for `info`.
///
/// Adding a format is one file with a type conforming to this protocol and one line in
/// ``StillDecoders/registered``. A decoder that declines a file (returns nil) passes it to the next one; what no
/// decoder takes goes to FFmpeg, which reads stills and videos alike (``ThumbnailGenerator``'s general path).
protocol StillDecoder: Sendable {
    /// Whether the file's first bytes (``ImageHeader/head(path:)``) are this format. Cheap: no decoding.
    func recognizes(_ head: [UInt8]) -> Bool

    /// The picture at `request`'s size, upright unless asked otherwise; nil when this decoder declines the file
    /// (a variant its library does not read: FFmpeg gets its turn). Throws for a picture above the pixel limit or
    /// one the library cannot decode after accepting it.
    func thumbnail(path: String, head: [UInt8], request: StillRequest) throws -> StillPicture?

    /// What `scrubkit info` reports of the file, when this decoder knows better than FFmpeg; nil: FFmpeg describes it.
    func inspect(path: String, head: [UInt8], pixelLimit: Int, verifiesDecoding: Bool) -> MediaInfo?
}

extension StillDecoder {
    func inspect(path: String, head: [UInt8], pixelLimit: Int, verifiesDecoding: Bool) -> MediaInfo? { nil }
}

/// What a still is decoded for: the thumbnail settings that matter to a picture.
struct StillRequest: Sendable {
    var maximumSize: MaximumSize
    var allowsUpscaling: Bool
    /// Apply the EXIF orientation (else keep the stored pixels).
    var appliesOrientation: Bool
    var allowsShrinkOnLoad: Bool
    var pixelLimit: Int
}

/// A decoded still: the thumbnail and the facts a batch plan needs.
struct StillPicture: Sendable {
    var thumbnail: Thumbnail
    var timeline: ThumbnailGenerator.Timeline
}

/// The still decoders, in the order they are asked.
enum StillDecoders {
    /// Registration: one line per format.
    static let registered: [any StillDecoder] = [
        JPEGStillDecoder(),
        WebPStillDecoder(),
        HEIFStillDecoder(),
    ]

    /// The first registered decoder's picture for a file whose head one of them recognises; nil: FFmpeg's turn.
    static func thumbnail(path: String, head: [UInt8], request: StillRequest) throws -> StillPicture? {
        for decoder in registered where decoder.recognizes(head) {
            if let picture = try decoder.thumbnail(path: path, head: head, request: request) { return picture }
        }
        return nil
    }

    /// The first registered decoder's description of the file for `info`; nil: FFmpeg describes it.
    static func inspect(path: String, head: [UInt8], pixelLimit: Int, verifiesDecoding: Bool) -> MediaInfo? {
        for decoder in registered where decoder.recognizes(head) {
            if let info = decoder.inspect(
                path: path, head: head, pixelLimit: pixelLimit, verifiesDecoding: verifiesDecoding)
            {
                return info
            }
        }
        return nil
    }

    /// A decoded picture made into the result: scaled to `size` in one quality pass (unless it already is), then
    /// turned upright by `orientation`.
    static func finish(
        _ picture: RGBImage, path: String, size: (Int, Int), orientation: Orientation, display: (Int, Int),
        codec: String
    ) throws -> StillPicture {
        var image = picture
        if (picture.width, picture.height) != size {
            do { image = try picture.resized(width: size.0, height: size.1) }
            catch { throw MediaError(.decodeFailed, path: path, "cannot scale the picture: \(error)") }
        }
        if orientation != .identity { image = image.applying(orientation) }
        let thumb = Thumbnail(
            requestedTime: .zero, actualTime: .zero, image: image, orientation: orientation, isExact: false)
        return StillPicture(
            thumbnail: thumb,
            timeline: .init(
                start: .zero, duration: .invalid, isStill: true, codec: codec,
                displayWidth: display.0, displayHeight: display.1))
    }

    /// The stored size to decode to for an upright output of `request`'s size, and the orientation to apply.
    static func geometry(width w: Int, height h: Int, exif: Orientation, request: StillRequest)
        -> (stored: (Int, Int), upright: (Int, Int), orientation: Orientation) {
        let rotate = request.appliesOrientation && exif != .identity
        let upright = rotate ? exif.displaySize(width: w, height: h) : (w, h)
        let out = request.maximumSize.fit(width: upright.0, height: upright.1, allowsUpscaling: request.allowsUpscaling)
        let stored = rotate && exif.swapsDimensions ? (out.1, out.0) : (out.0, out.1)
        return (stored, upright, rotate ? exif : .identity)
    }
}
