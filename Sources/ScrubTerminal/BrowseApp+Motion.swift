import Foundation
import Locking
import MediaTime
import ScrubKit

/// Tiles that move: the pointer across a tile scrubs through its video (keyframe pictures from a
/// ``HoverThumbnails`` decoder, the time following the pointer's x), and the selected tile, after a short pause on
/// it, plays its preview in place (``TilePreviews``: the scene excerpts of `scrubkit preview`, made once).
extension BrowseApp {
    /// The pointer is over tile `index` at `fraction` of its width: ask for that time's picture.
    func scrub(index: Int, fraction: Double) {
        let entry = entries[index]
        guard let loader, case .ready(let facts, let image?)? = loader.state(for: entry.path),
            let seconds = facts.duration
        else { return endScrub() }
        if scrubPictures?.path != entry.path {
            scrubPictures?.close()
            scrubPictures = HoverThumbnails(
                path: entry.path, maximumSize: .box(width: image.width, height: image.height), memoryLimit: 8 << 20)
        }
        stopMotion()
        scrub = (index, fraction)
        scrubPictures?.request(MediaTime(seconds: seconds * max(0, min(1, fraction)), preferredTimescale: 1000))
    }

    /// The pointer left the tiles: the tile scrubbed shows its own picture again.
    func endScrub() {
        guard scrub != nil || scrubPictures != nil else { return }
        scrub = nil
        scrubPictures?.close()
        scrubPictures = nil
    }

    /// The selection moved or the screen changed: the moving preview stops (its tile shows its picture again) and
    /// the pause before the next one starts over.
    func stopMotion() {
        motion.stop()
    }

    /// The frame of the selected tile's moving preview due now, and its number; nil while none plays.
    func movingFrame() -> (Int, RGBImage)? {
        guard options.movingPreviews, renderer.drawsPictures, scrub == nil, let loader,
            entries.indices.contains(selection.index)
        else { return nil }
        let entry = entries[selection.index]
        guard !entry.isFolder, case .ready(let facts, let image?)? = loader.state(for: entry.path),
            facts.duration != nil
        else { return nil }
        return motion.frame(
            for: entry.path, size: .box(width: image.width, height: image.height),
            now: options.clock.now())
    }
}

/// The selected tile's moving preview: after ``pause`` seconds on a tile its preview frames are made in the
/// background (``TilePreview``: kept in the thumbnail cache, and for the session in memory — coming back plays at
/// once), then shown in a loop at ``TilePreview/framesPerSecond``.
struct TileMotion {
    /// Seconds on a tile before its preview plays.
    static let pause = 0.8
    private var path: String? = nil
    private var since = 0.0
    private var playingSince: Double? = nil
    private let previews: TilePreviews

    /// Previews read from and kept in `cache`.
    init(cache: ThumbnailCache?) { previews = TilePreviews(cache: cache) }

    /// Whether a preview is playing (the screen changes without input).
    var isPlaying: Bool { playingSince != nil || previews.isMaking }

    /// Stops the preview playing, and the one being made.
    mutating func stop() {
        path = nil
        playingSince = nil
        previews.cancel()
    }

    /// The frame due at `now` for the tile of `path` whose pictures are `size`, and its number; nil while it rests
    /// or its preview is being made.
    mutating func frame(for path: String, size: MaximumSize, now: Double) -> (Int, RGBImage)? {
        if self.path != path { self.path = path; since = now; playingSince = nil }
        guard now - since >= TileMotion.pause else { return nil }
        guard let frames = previews.frames(for: path, size: size), !frames.isEmpty else { return nil }
        let start = playingSince ?? now
        playingSince = start
        let n = Int((now - start) * Double(TilePreview.framesPerSecond)) % frames.count
        return (n, frames[n])
    }
}

/// Preview frames of tiles, made (or read from the cache) one file at a time on a thread of their own and kept
/// (bounded) in memory for the session.
final class TilePreviews: Sendable {
    // (a few tiles' worth: the disk cache keeps them all)
    private let made = MemoryCache<String, [RGBImage]>(budget: 24 << 20)
    private let cache: ThumbnailCache?
    /// The preview being made (its key), and whether it was cancelled.
    private let job = Locked<(key: String, cancelled: Bool)?>(nil)

    /// Previews read from and kept in `cache`.
    init(cache: ThumbnailCache?) { self.cache = cache }

    /// Whether a preview is being made.
    var isMaking: Bool { job.withLock { $0.map { !$0.cancelled } ?? false } }

    /// The frames of `path`'s preview at `size` when made; else starts making them (nil meanwhile). A file whose
    /// preview cannot be made gets none (kept as empty, not tried again).
    func frames(for path: String, size: MaximumSize) -> [RGBImage]? {
        let key = path + "|" + size.key
        if let frames = made.value(for: key) { return frames }
        let start = job.withLock { j -> Bool in
            guard j == nil else { return false }   // (one at a time: a cancelled one ends first)
            j = (key, false)
            return true
        }
        guard start else { return nil }
        NamedThread.start("scrubkit.motion") { [self] in
            let cancelled: @Sendable () -> Bool = { self.job.withLock { $0?.cancelled ?? true } }
            let frames = (try? TilePreview.frames(of: path, size: size, cache: cache, isCancelled: cancelled)) ?? []
            job.withLock { j in
                if j?.cancelled == false {
                    made.insert(frames, for: key, cost: max(1, frames.reduce(0) { $0 + $1.pixels.count }))
                }
                j = nil
            }
        }
        return nil
    }

    /// Stops the preview being made (it is not kept).
    func cancel() { job.withLock { if $0 != nil { $0!.cancelled = true } } }
}
