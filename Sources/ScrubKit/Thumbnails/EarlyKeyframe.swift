import FFmpegBridge
import Foundation
import MediaTime

/// The picture for a single fastest-mode request (the keyframe at or before the time), looked for on another core
/// while the front door still probes the file: FFmpeg's probe decodes the file's first picture just to learn its
/// pixel format (13–17 ms of a 1080p H.264 clip's ~90 ms thumbnail), and nothing else can start before it ends.
///
/// A second open of the same file reads only its header (``MediaOpener/Probing/headerOnly(pixelLimit:)``): MP4/MOV
/// only, whose header holds the sizes, times and keyframe index a keyframe needs. The thumbnail takes the picture
/// when the probed file agrees — the same stream and time base, and the keyframe still the last one at or before
/// the resolved time (``FrameExtractor/adopt(keyframe:at:validThrough:)``) — and otherwise decodes as it would have.
/// Not for pictures of 4K and up (two decoders would each hold such frames at once) nor for URLs (a second
/// connection).
final class EarlyKeyframe: Sendable {
    /// What the other core found.
    struct Found: @unchecked Sendable {   // unchecked: the frame is handed over once, after its decoder let it go
        let frame: Frame
        let time: MediaTime
        /// The keyframe answers every time from `time` through this one.
        let validThrough: MediaTime
        let streamIndex: Int
        let timeBase: (num: Int32, den: Int32)
    }

    /// What to look for, as the thumbnail's own settings say.
    struct Request: Sendable {
        var path: String
        var time: TimeExpression
        var toleranceAfter: MediaTime
        var pixelLimit: Int
        var maximumSize: MaximumSize
        var skipsLoopFilter: Bool
        var cores: Int
    }

    private let found = Locked<Found?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts looking on a thread of its own; nil when the file is not a local MP4/MOV (from its first bytes, `head`)
    /// or there is only one core.
    static func start(_ request: Request, head: [UInt8]?) -> EarlyKeyframe? {
        guard request.cores >= 2, !Demuxer.isURL(request.path), let head, looksLikeMP4(head) else { return nil }
        let early = EarlyKeyframe()
        let thread = Thread {
            let result = try? EarlyKeyframe.find(request, head: head)
            early.found.withLock { $0 = result }
            early.finished.signal()
        }
        thread.name = "scrub early keyframe"
        thread.start()
        return early
    }

    /// Waits until the other core is done; what it found, if anything.
    func wait() -> Found? {
        finished.wait()
        finished.signal()   // (a later wait returns at once)
        return found.withLock { $0 }
    }

    /// ISO base media (`ftyp`) or an old QuickTime file (its first box `moov`, `mdat`, `wide`, `free` or `skip`).
    static func looksLikeMP4(_ head: [UInt8]) -> Bool {
        guard head.count >= 8 else { return false }
        let box = String(decoding: head[4..<8], as: UTF8.self)
        return ["ftyp", "moov", "mdat", "wide", "free", "skip"].contains(box)
    }

    /// The keyframe for `request` from the file's header alone; nil where that is not the fast way.
    private static func find(_ request: EarlyKeyframe.Request, head: [UInt8]) throws -> Found? {
        let opened = try MediaOpener.open(request.path, .headerOnly(pixelLimit: request.pixelLimit), head: head)
        guard opened.facts.container.hasPrefix("mov,") else { return nil }
        let source = try VideoSource(opened, pixelLimit: request.pixelLimit)
        guard !source.isStill, source.stream.width > 0, source.stream.width * source.stream.height < 3840 * 2160 else { return nil }
        let time = try source.resolve(request.time)
        let extractor = try FrameExtractor(source: source, threading: .slice(request.cores), lowres: 0, pixelLimit: request.pixelLimit)
        if request.skipsLoopFilter { extractor.skipsLoopFilter(shrinkingTo: request.maximumSize) }
        let picture = try extractor.frame(at: time, toleranceBefore: .positiveInfinity, toleranceAfter: request.toleranceAfter)
        guard extractor.lastKeyframeValidThrough.isValid else { return nil }
        let frame = try Frame()
        frame.take(from: picture.frame)
        return Found(frame: frame, time: picture.time, validThrough: extractor.lastKeyframeValidThrough,
                     streamIndex: source.stream.index, timeBase: extractor.decoder.timeBase)
    }
}
