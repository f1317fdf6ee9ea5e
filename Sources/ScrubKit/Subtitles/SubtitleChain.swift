import FFmpegBridge
import Foundation
import Locking
import MediaTime

/// The third chain of a played file, beside the picture's and the sound's: one subtitle track's cues. Like them, it
/// decodes on a thread of its own (`scrubkit.subtitles`, a ``LatestRequestWorker``) with a ``StreamDecoder`` that
/// never leaves it: a stream of the file from its queue in the reader, taking what has arrived without waiting (a
/// subtitle stream is sparse, and must not make the reader read on) each time the cues are asked for; a subtitle file
/// read whole once, as mpv reads external subtitles. In a local Matroska or MP4 file, the stream's packets alone are
/// also read from the start on another thread (`scrubkit.subtitles.scan`, a demuxer of its own: the reader cannot
/// read one stream from the start without moving playback; the container skips the rest), so a seek lands with the
/// cue that began before it on screen. The cues are read under a lock, never waiting for decoding.
final class SubtitleChain: Sendable {
    enum Source: Sendable {
        /// A stream of the played file, and the file to read its packets from in the background (nil: none).
        case stream(QueuedStream, facts: StreamFacts, scan: String?)
        case file(String)
    }

    private struct State {
        var cues = SubtitleCues()
        var problem: MediaError? = nil
        var closed = false
    }

    private let source: Source
    private let state = Locked(State())
    /// The chain's thread: a request asks it to decode what the reader has queued since.
    private let worker: LatestRequestWorker<Void>

    /// Subtitle files larger than this are refused (a text file of subtitles is kilobytes).
    static let largestFile = 64 << 20

    /// A chain for `source`; bitmap cues are placed on `fallbackCanvas` (the video's display size) when the stream
    /// states no canvas of its own.
    init(source: Source, fallbackCanvas: (width: Int, height: Int)) {
        self.source = source
        let state = self.state
        let canvas = Canvas(fallback: fallbackCanvas)
        worker = LatestRequestWorker(name: "scrubkit.subtitles") { inbox in
            switch source {
            case .file(let path):
                SubtitleChain.load(path, state: state, canvas: canvas)
            case .stream(let stream, let facts, let scan):
                if let scan {
                    NamedThread.start("scrubkit.subtitles.scan") {
                        SubtitleChain.read(scan, stream: facts.index, state: state, canvas: canvas)
                    }
                }
                var decoding: StreamDecoder? = nil
                while case .request = inbox.take() {
                    SubtitleChain.pump(stream, facts: facts, decoding: &decoding, state: state, canvas: canvas)
                }
            }
        }
    }

    /// The cues showing at `time`, from what has been decoded so far (and asking for what has arrived since).
    func cues(at time: MediaTime) -> [SubtitleCue] {
        if case .stream = source { worker.submit(()) }
        return state.withLock { $0.cues.active(at: time) }
    }

    /// Why the track shows nothing (a file that cannot be read), when it cannot.
    var problem: MediaError? { state.withLock { $0.problem } }

    /// Stops for good; the decoders are freed on their threads.
    func close() {
        state.withLock { $0.closed = true }
        worker.close()
    }

    // MARK: - The chain's threads

    /// Where bitmap cues are placed: the stream's canvas, else the video's display size.
    private struct Canvas: Sendable {
        let fallback: (width: Int, height: Int)

        func of(_ decoding: StreamDecoder) -> (width: Int, height: Int) {
            let c = decoding.decoder.subtitleCanvas
            return c.width > 0 && c.height > 0 ? c : fallback
        }
    }

    private static func add(
        _ event: DecodedSubtitle?, _ decoding: StreamDecoder, state: Locked<State>, canvas: Canvas
    ) {
        guard let event, let cue = SubtitleCue(event, canvas: canvas.of(decoding)) else { return }
        state.withLock { $0.cues.insert(cue) }
    }

    /// Decodes the packets the reader queued since the last time.
    private static func pump(
        _ stream: QueuedStream, facts: StreamFacts, decoding: inout StreamDecoder?, state: Locked<State>, canvas: Canvas
    ) {
        guard !state.withLock({ $0.closed }) else { return }
        do {
            if decoding == nil {
                decoding = try StreamDecoder(
                    stream, stream: facts, path: stream.reader.path, threading: .single,
                    pixelLimit: MediaInspector.defaultPixelLimit)
            }
            guard let decoding else { return }
            let packet = try Packet()
            while try stream.readIfQueued(into: packet) {
                // (A damaged packet costs its cue, not the track.)
                add(try? decoding.decoder.decodeSubtitle(packet), decoding, state: state, canvas: canvas)
                packet.unref()
            }
        } catch {
            state.withLock {
                $0.problem =
                    error as? MediaError ?? MediaError(.decodeFailed, path: stream.reader.path, "subtitles: \(error)")
            }
        }
    }

    /// Reads stream `index` of the played file from the start, its packets alone (on the scan thread; what it cannot
    /// read is left to the reader's packets).
    private static func read(_ path: String, stream index: Int, state: Locked<State>, canvas: Canvas) {
        guard let media = try? MediaOpener.open(path, .lean(pixelLimit: MediaInspector.defaultPixelLimit)),
            let stream = media.facts.streams.first(where: { $0.index == index })
        else { return }
        _ = try? decodeAll(media, stream: stream, state: state, canvas: canvas)
    }

    /// Reads the subtitle file whole.
    private static func load(_ path: String, state: Locked<State>, canvas: Canvas) {
        do {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            guard size <= SubtitleChain.largestFile else {
                throw MediaError(.tooLarge, path: path, "is \(size >> 20) MiB: too large for a subtitle file")
            }
            let media = try MediaOpener.open(path, .full(pixelLimit: MediaInspector.defaultPixelLimit))
            guard let stream = media.facts.subtitleStreams.first else {
                throw MediaError(.notMedia, path: path, "holds no subtitles")
            }
            guard stream.hasDecoder else {
                throw MediaError(.unsupported, path: path, "this FFmpeg cannot decode \(stream.codecName) subtitles")
            }
            if try decodeAll(media, stream: stream, state: state, canvas: canvas) == 0 {
                throw MediaError(.notMedia, path: path, "holds no subtitles")
            }
        } catch {
            state.withLock { $0.problem = error as? MediaError ?? MediaError(.unreadable, path: path, "\(error)") }
        }
    }

    /// Decodes every packet of `stream` of `media` from where its demuxer is, the other streams skipped (a decoder of
    /// its own, on the calling thread), until the end or ``close()``; how many packets it read.
    private static func decodeAll(
        _ media: OpenedMedia, stream: StreamFacts, state: Locked<State>, canvas: Canvas
    ) throws -> Int {
        // (The decoder's reader leaves every other stream out: the container skips their packets.)
        let decoding = try StreamDecoder(
            media.demuxer, stream: stream, path: media.path, threading: .single,
            pixelLimit: MediaInspector.defaultPixelLimit)
        let packet = try Packet()
        var read = 0
        while !state.withLock({ $0.closed }), try media.demuxer.read(into: packet) {
            // (A damaged packet costs its cue, not the track.)
            if packet.streamIndex == stream.index {
                add(try? decoding.decoder.decodeSubtitle(packet), decoding, state: state, canvas: canvas)
                read += 1
            }
            packet.unref()
        }
        return read
    }
}
