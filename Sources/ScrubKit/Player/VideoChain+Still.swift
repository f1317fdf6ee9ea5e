import FFmpegBridge
import Foundation
import Locking
import MediaTime

/// A still picture played: one a registered still decoder reads is decoded by it at the display size, through the
/// front door (``MediaOpener/still(_:head:request:)``) as `thumb` decodes it — shrink-on-load, its orientation
/// applied — rather than by FFmpeg at full size.
extension VideoChain {
    /// The picture of `source` at exactly a display area's size, when it is such a still (nil: FFmpeg decodes it,
    /// as it does video — a cover picture, a URL, a format without a decoder of its own, one its decoder declines).
    static func stillPictures(of source: VideoSource) -> (@Sendable (_ width: Int, _ height: Int) throws -> RGBImage)? {
        guard source.isStill, case let path = source.path, let head = MediaOpener.head(path) else { return nil }
        @Sendable func picture(_ width: Int, _ height: Int) throws -> RGBImage? {
            let request = StillRequest(
                maximumSize: .box(width: width, height: height), allowsUpscaling: true, appliesOrientation: true,
                allowsShrinkOnLoad: true, pixelLimit: MediaInspector.defaultPixelLimit)
            guard let still = try MediaOpener.still(path, head: head, request: request) else { return nil }
            let image = still.thumbnail.image
            // Exactly the size asked for: the caller's layout owns the geometry.
            return (image.width, image.height) == (width, height)
                ? image : try image.resized(width: width, height: height)
        }
        // (Asked once small, which costs little with shrink-on-load: whether its decoder takes the file at all.)
        guard (try? picture(64, 64)) != nil else { return nil }
        return { width, height in
            guard let image = try picture(width, height) else {
                throw MediaError(.decodeFailed, path: path, "the picture cannot be decoded")
            }
            return image
        }
    }

    /// The chain's thread for a still: each seek (and a new display size) gets the picture at the display size.
    static func runStill(_ picture: @Sendable (Int, Int) throws -> RGBImage, start: MediaTime, shared: Locked<Shared>,
                         inbox: LatestRequestWorker<SeekRequest>.Inbox) {
        var made: VideoFrame? = nil
        /// The picture for the display size, queued for `generation`; the stream ends with it.
        func show(generation: Int) {
            let size = shared.withLock { ($0.outputWidth, $0.outputHeight) }
            guard size.0 > 0 && size.1 > 0 else { return }
            if made.map({ ($0.image.width, $0.image.height) != size }) ?? true {
                made = (try? picture(size.0, size.1)).map { VideoFrame(time: start, image: $0) }
            }
            shared.withLock { s in
                if let made, s.generation == generation { s.frames.append(made) }
                s.endOfStream = true
            }
        }
        while true {
            switch inbox.take(waitingAtMost: 0.1) {
            case .closed: return
            case .request(let r, _):
                guard !r.positionOnly else { continue }
                show(generation: r.generation)
                landed(r, at: start, shared: shared)
            case .idle:
                // (Read now, after the wait: a display size set meanwhile is served at once.)
                let (generation, due) = shared.withLock { s in
                    (s.generation, s.outputWidth > 0 && s.outputHeight > 0 && s.frames.isEmpty && !s.endOfStream)
                }
                if due { show(generation: generation) }
            }
        }
    }
}
