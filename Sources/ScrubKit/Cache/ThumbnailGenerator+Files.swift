import FFmpegBridge
import MediaTime

extension ThumbnailGenerator {
    /// One encoded thumbnail file for a requested time, or why there is none.
    public struct FileResult: Sendable {
        /// Index of the time in the caller's list.
        public var index: Int
        /// The time as asked.
        public var request: TimeExpression
        /// The file, or why there is none.
        public var result: Result<ThumbnailCache.EncodedFile, MediaError>
        /// Served from the cache (nothing decoded or encoded).
        public var fromCache: Bool

        /// A result with these facts.
        public init(
            index: Int, request: TimeExpression, result: Result<ThumbnailCache.EncodedFile, MediaError>, fromCache: Bool
        ) {
            self.index = index
            self.request = request
            self.result = result
            self.fromCache = fromCache
        }
    }

    /// The key of `time`'s thumbnail encoded as `format` at `quality` in a ``ThumbnailCache`` (the file's identity, the
    /// settings, the time as asked: no FFmpeg needed to find it); `via` tells apart files made another way (the
    /// desktop's cache) from the same settings.
    public func fileCacheKey(
        for time: TimeExpression, format: ImageFormat, quality: Int, identity: SourceIdentity, via: String = ""
    ) -> CacheKey {
        cacheKey(for: time, identity: identity).derived(
            .encodedFile, adding: [format.rawValue, "q\(quality)"] + (via.isEmpty ? [] : [via]))
    }

    /// Thumbnails for `times` encoded as `format` files, in the order of `times`. With a `cache` (and a local file),
    /// files already there are served as they were written — nothing is opened, decoded or encoded — and the
    /// others are generated from one open, encoded, and stored. Throws when the file cannot be opened.
    public func files(
        at times: [TimeExpression], format: ImageFormat, quality: Int, cache: ThumbnailCache?
    ) throws -> [FileResult] {
        var out: [FileResult] = []
        var misses: [(index: Int, time: TimeExpression)] = []
        let identity = cache == nil ? nil : SourceIdentity(path: path)
        func key(_ t: TimeExpression) -> CacheKey? {
            identity.map { fileCacheKey(for: t, format: format, quality: quality, identity: $0) }
        }
        for (i, t) in times.enumerated() {
            if let k = key(t), let hit = cache?.encodedFile(for: k) {
                out.append(FileResult(index: i, request: t, result: .success(hit), fromCache: true))
            } else {
                misses.append((i, t))
            }
        }
        if !misses.isEmpty {
            var gen = self
            gen.cache = nil
            for r in try gen.generate(at: misses.map(\.time)) {
                let (index, time) = misses[r.index]
                switch r.result {
                case .failure(let e):
                    out.append(FileResult(index: index, request: time, result: .failure(e), fromCache: false))
                case .success(let thumb):
                    do {
                        let file = try ThumbnailCache.encodedFile(
                            thumb, format: format, quality: quality,
                            rotation: appliesPreferredTrackTransform ? thumb.orientation.rotation : 0)
                        if let k = key(time) { cache?.store(file, for: k) }
                        out.append(FileResult(index: index, request: time, result: .success(file), fromCache: false))
                    } catch {
                        let why =
                            format.isAvailable
                            ? "cannot encode the picture: \(error)"
                            : "this FFmpeg build has no \(format.rawValue) encoder"
                        out.append(
                            FileResult(
                                index: index, request: time,
                                result: .failure(MediaError(.writeFailed, path: path, why)), fromCache: false))
                    }
                }
            }
        }
        return out.sorted { $0.index < $1.index }
    }
}
