import FFmpegBridge
import Foundation
import Locking

/// The one front door for media: every open of a path or URL in ScrubKit goes through here — the checks before
/// opening (readable, not a directory or a pipe, a picture over the pixel limit refused from its header bytes),
/// the sniff that routes stills to their own decoders (``StillDecoders``), and ``open(_:_:head:)``: FFmpeg's demuxer
/// with the probing each caller needs and the file's ``MediaFacts`` gathered once. ``MediaInspector`` (`info`),
/// ``VideoSource`` (thumbnails, sheets, the benchmark) and the player's decoding pipeline start from it.
enum MediaOpener {
    /// How FFmpeg opens the file.
    enum Probing {
        /// Probe every stream, stills included, with decoders limited to `pixelLimit`: `info`, which reports what
        /// FFmpeg finds even of files it cannot decode.
        case full(pixelLimit: Int)
        /// Stills not probed (that would decode them at full size: their size comes from the header bytes), and a
        /// stream whose header declares more than `pixelLimit` pixels refused before any decoder opens: thumbnails,
        /// the player, the benchmark.
        case lean(pixelLimit: Int)
        /// The same file again, stills not probed, after a decoder refused shrink-on-load (image2 cannot rewind).
        case again
        /// The container's header alone, nothing probed (``EarlyFrame``: an MP4/MOV header holds the sizes, times and
        /// index a picture needs), with `.lean`'s pixel limit.
        case headerOnly(pixelLimit: Int)
        /// One picture of a URL: an MP4/MOV, whose header describes its video, is not probed (the probe would fetch
        /// the first pictures' bytes just to learn their pixel format, which the decoder tells anyway); anything else
        /// is probed as `.lean`.
        case headerWhereEnough(pixelLimit: Int)

        /// The pixel limit this probing applies (0: none).
        var pixelLimit: Int {
            switch self {
            case .full(let limit), .lean(let limit), .headerOnly(let limit), .headerWhereEnough(let limit): return limit
            case .again: return 0
            }
        }
    }

    /// A clear error if `path` is missing, a directory or unreadable; nil when it can be opened.
    static func checkReadable(_ path: String) -> MediaError? {
        if Demuxer.isURL(path) { return nil }   // remote: FFmpeg's HTTP client reports what goes wrong
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            return MediaError(.notFound, path: path, "no such file")
        }
        if isDir.boolValue { return MediaError(.unreadable, path: path, "is a directory") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            return MediaError(.unreadable, path: path, "permission denied")
        }
        var st = stat()
        if stat(path, &st) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFIFO:
                return MediaError(
                    .unreadable, path: path, "is a pipe (FIFO), not a file: save the stream to a file first")
            case S_IFSOCK: return MediaError(.unreadable, path: path, "is a socket, not a file")
            case S_IFCHR, S_IFBLK: return MediaError(.unreadable, path: path, "is a device, not a file")
            default: if st.st_size == 0 { return MediaError(.notMedia, path: path, "empty file") }
            }
        }
        return nil
    }

    /// A still one of the registered decoders reads (``StillDecoders``: JPEG, WebP, HEIF/AVIF), decoded at `request`'s
    /// size; nil when `head` (the file's first bytes) is no such still or its decoder declines it — FFmpeg's turn.
    /// The one routing of stills, for every caller: thumbnails, batches, the player.
    static func still(_ path: String, head: [UInt8]?, request: StillRequest) throws -> StillPicture? {
        guard let head else { return nil }
        return try StillDecoders.thumbnail(path: path, head: head, request: request)
    }

    /// The first bytes of a local regular file (the sniff: which still decoder, if any, reads it), nil for URLs and
    /// for what cannot be read (which then goes to FFmpeg and its errors).
    static func head(_ path: String) -> [UInt8]? {
        Demuxer.isURL(path) ? nil : ImageHeader.head(path: path)
    }

    /// The pixel limit checked from the header bytes of a local file, before FFmpeg sees it (FFmpeg reports 0×0 for
    /// some image bombs), from the `head` ``head(_:)`` read. Returns the header's size when there is one.
    static func checkHeader(_ path: String, head: [UInt8]?, pixelLimit: Int) throws -> (width: Int, height: Int)? {
        let size = head.flatMap(ImageHeader.dimensions(bytes:))
        if let (w, h) = size, w > 0, h > 0, w * h > pixelLimit {
            throw MediaError.overPixelLimit(path, width: w, height: h, limit: pixelLimit)
        }
        return size
    }

    /// Opens `path` with FFmpeg as `probing` says and gathers its facts: the file checked first
    /// (``checkReadable(_:)``), and with `.lean` probing a picture over the pixel limit refused from its header bytes
    /// before FFmpeg sees it. `head`: the file's first bytes when the caller already read them (the sniff). Errors are
    /// ``MediaError``s naming the file.
    static func open(_ path: String, _ probing: Probing, head: [UInt8]? = nil) throws -> OpenedMedia {
        if let problem = checkReadable(path) { throw problem }
        let head = head ?? self.head(path)
        let headerSize: (width: Int, height: Int)?
        switch probing {
        case .lean(let limit), .headerOnly(let limit), .headerWhereEnough(let limit):
            headerSize = try checkHeader(path, head: head, pixelLimit: limit)
        case .full, .again:
            headerSize = head.flatMap(ImageHeader.dimensions(bytes:))
        }
        let demuxer = try demux(path, probing)
        return OpenedMedia(path: path, demuxer: demuxer, facts: MediaFacts(demuxer: demuxer, headerSize: headerSize))
    }

    /// Whether a demuxer opened without probing already knows what a picture needs: an MP4/MOV (its header describes
    /// each track: codec, size, parameter sets; its index says where samples are) whose every video stream has a
    /// codec, a size and a start time (a fragmented MP4 over HTTP learns it from its first packets as it opens).
    private static func headerDescribesVideo(_ demuxer: Demuxer) -> Bool {
        let video = demuxer.streams.filter { $0.kind == .video }
        return Demuxer.isMP4Family(demuxer.formatName) && !video.isEmpty
            && video.allSatisfy { $0.width > 0 && $0.height > 0 && $0.codecName != "none" && $0.startTime.isValid }
    }

    /// Demuxers constructed per path while counting is on (nil: off, the default — nothing is kept): how tests check
    /// that a request opens a file once.
    static let openCounts = Locked<[String: Int]?>(nil)

    /// Opens `path` with FFmpeg as `probing` says, without gathering facts (a second decoder on a file already
    /// opened). Errors are ``MediaError``s naming the file.
    static func demux(_ path: String, _ probing: Probing) throws -> Demuxer {
        openCounts.withLock { counts in counts?[path, default: 0] += 1 }
        do {
            return try NetworkRetry(timeout: Demuxer.networkTimeout).run { timeLeft in
                switch probing {
                case .full(let limit):
                    return try Demuxer(path: path, probesStills: true, maxPixels: limit, timeLeft: timeLeft)
                case .lean(let limit), .headerOnly(let limit), .headerWhereEnough(let limit):
                    let probes: Bool
                    if case .lean = probing { probes = true } else { probes = false }
                    let demuxer = try Demuxer(path: path, probesStills: false, maxPixels: limit, refusesOversized: true,
                                              probes: probes, timeLeft: timeLeft)
                    if case .headerWhereEnough = probing, !headerDescribesVideo(demuxer) {
                        try demuxer.probeStreams(maxPixels: limit, probesStills: false)
                    }
                    return demuxer
                case .again:
                    return try Demuxer(path: path, probesStills: false, timeLeft: timeLeft)
                }
            }
        } catch let big as Demuxer.PictureTooLarge {
            throw MediaError.overPixelLimit(path, width: big.width, height: big.height, limit: probing.pixelLimit)
        } catch {
            throw MediaError.opening(path, error)
        }
    }
}
