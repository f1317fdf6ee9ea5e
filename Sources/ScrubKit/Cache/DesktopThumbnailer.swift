import FFmpegBridge
import Foundation
import MediaTime

/// A file's thumbnail through the desktop's cache (``DesktopThumbnails``): served from it when a valid one covers the
/// size asked for (another program may have made it), else made at the flavor's size, stored for every desktop
/// program, and fitted to the size asked for. Files that fail are recorded in the failure cache.
public struct DesktopThumbnailer: Sendable {
    /// The desktop cache (its root and failure directory).
    public var desktop: DesktopThumbnails
    /// Recorded as the PNGs' `Software` attribute.
    public var software: String
    /// Told about cache trouble (the thumbnail goes on without the cache).
    public var warn: @Sendable (String) -> Void

    /// A thumbnailer using `desktop`, naming itself `software` in the PNGs it stores.
    public init(desktop: DesktopThumbnails, software: String, warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.desktop = desktop
        self.software = software
        self.warn = warn
    }

    /// The flavor that serves `size`, or nil when the desktop cache cannot (full size, above 1024, unbounded boxes).
    public static func flavor(for size: MaximumSize) -> DesktopThumbnails.Flavor? {
        switch size {
        case .unscaled: return nil
        case .longestSide(let n): return DesktopThumbnails.Flavor.covering(n)
        case .box(let w, let h): return w > 0 && h > 0 ? DesktopThumbnails.Flavor.covering(max(w, h)) : nil
        }
    }

    /// The thumbnail of `generator`'s file at `time` (used only when it must be made), fitted to the generator's
    /// maximum size. Times are invalid when the picture comes from the desktop cache (the spec records none).
    public func thumbnail(
        _ generator: ThumbnailGenerator, at time: TimeExpression, identity: SourceIdentity
    ) throws -> (thumbnail: Thumbnail, fromCache: Bool) {
        guard let flavor = DesktopThumbnailer.flavor(for: generator.maximumSize) else {
            return (try generator.image(at: time), false)
        }
        if desktop.hasFailure(path: generator.path, identity: identity) {
            let entry = desktop.failurePath(uri: DesktopThumbnails.uri(forPath: generator.path))
            let why = "cannot be thumbnailed (remembered in \(entry) until the file changes)"
            throw MediaError(.unsupported, path: generator.path, why)
        }
        if let hit = cached(path: generator.path, identity: identity, fitting: generator.maximumSize) {
            return (hit, true)
        }
        var maker = generator
        maker.allowsUpscaling = false
        maker.cache = nil
        let made = try make(path: generator.path, identity: identity, flavor: flavor) { size in
            maker.maximumSize = size
            return try maker.image(at: time)
        }
        let (w, h) = generator.maximumSize.fit(
            width: made.image.width, height: made.image.height, allowsUpscaling: generator.allowsUpscaling)
        guard w != made.image.width || h != made.image.height else { return (made, false) }
        var fitted = made
        fitted.image = try made.image.resized(width: w, height: h)
        return (fitted, false)
    }

    /// The desktop cache's valid picture of `path` for the flavor serving `size`, fitted to `size`; nil when there is
    /// none (or `size` is not one the cache serves). Its times are invalid: the spec records none.
    public func cached(path: String, identity: SourceIdentity, fitting size: MaximumSize) -> Thumbnail? {
        guard let flavor = DesktopThumbnailer.flavor(for: size),
            let hit = desktop.lookup(path: path, identity: identity, longestSide: flavor.rawValue)
        else { return nil }
        var reader = ThumbnailGenerator(path: hit.path)
        reader.maximumSize = size
        reader.appliesPreferredTrackTransform = false   // stored upright
        guard var t = try? reader.image(at: .absolute(.zero)) else { return nil }
        t.requestedTime = .invalid
        t.actualTime = .invalid
        t.isExact = false
        return t
    }

    /// The thumbnail `make` makes at `flavor`'s size (the size it is given), stored for every desktop program; when
    /// the file cannot be thumbnailed, that is recorded in the failure cache and the error thrown again.
    public func make(
        path: String, identity: SourceIdentity, flavor: DesktopThumbnails.Flavor,
        _ make: (MaximumSize) throws -> Thumbnail
    ) throws -> Thumbnail {
        let made: Thumbnail
        do { made = try make(.longestSide(flavor.rawValue)) } catch let e as MediaError {
            if [.corrupt, .unsupported, .noVideo, .notMedia, .decodeFailed, .tooLarge].contains(e.kind),
                let png = try? RGBImage(width: 1, height: 1).encoded(as: .png)
            {
                do { try desktop.storeFailure(png: png, path: path, identity: identity, software: software) } catch {
                    warn("cache: cannot write in \(desktop.root): \(error)")
                }
            }
            throw e
        }
        do {
            try desktop.store(
                png: made.encoded(as: .png), path: path, identity: identity, flavor: flavor, software: software)
        } catch {
            warn("cache: cannot write in \(desktop.root): \(error); going on without it")
        }
        return made
    }

    /// Offers a thumbnail made anyway (a batch's) as the file's desktop thumbnail: when no valid one is there, it is
    /// stored for the largest flavor it covers (fitted to it), or for `normal` when the original itself is smaller.
    /// `originalLongestSide`: the file's display size's longest side.
    public func offer(_ thumb: Thumbnail, path: String, identity: SourceIdentity, originalLongestSide: Int) {
        let longest = max(thumb.image.width, thumb.image.height)
        let flavor: DesktopThumbnails.Flavor
        if let f = DesktopThumbnails.Flavor.allCases.last(where: { $0.rawValue <= longest }) {
            flavor = f
        } else if originalLongestSide <= longest {
            flavor = .normal   // the whole picture is smaller than 128: kept at its size, as the spec says
        } else {
            return
        }
        let uri = DesktopThumbnails.uri(forPath: path)
        if let existing = try? [UInt8](
            Data(contentsOf: URL(fileURLWithPath: desktop.thumbnailPath(uri: uri, flavor: flavor)))),
            DesktopThumbnails.isValid(existing, uri: uri, identity: identity)
        {
            return
        }
        do {
            let (w, h) = MaximumSize.longestSide(flavor.rawValue).fit(
                width: thumb.image.width, height: thumb.image.height)
            let image = try thumb.image.resized(width: w, height: h)
            try desktop.store(
                png: image.encoded(as: .png), path: path, identity: identity, flavor: flavor, software: software)
        } catch {
            warn("cache: cannot write in \(desktop.root): \(error); going on without it")
        }
    }
}
