import FFmpegBridge
import Foundation
import Locking
import MediaTime

/// The third chain of a played file, beside the picture's and the sound's: one subtitle track's cues. A stream of the
/// file is decoded as the reader reaches its packets (taken from its queue without waiting: a subtitle stream is
/// sparse), and, in a local Matroska or MP4 file, its packets alone are also read from the start in the background
/// (the container skips the rest), so a seek lands with the cue that began before it on screen; a subtitle file is
/// read whole once, as mpv reads external subtitles. Decoding runs on serial queues of the chain's own, a decoder each
/// (never leaving its queue); the cues are read under a lock, never waiting for decoding.
final class SubtitleChain: @unchecked Sendable {   // unchecked: `decoder` and `packet` are touched only on `queue`
    enum Source {
        /// A stream of the played file, and the file to read its packets from in the background (nil: none).
        case stream(QueuedStream, index: Int, scan: String?)
        case file(String)
    }

    private struct State {
        var cues = SubtitleCues()
        var problem: MediaError? = nil
        var pumping = false
        var closed = false
    }

    private let source: Source
    /// The canvas of bitmap cues when the stream states none (the video's display size).
    private let fallbackCanvas: (width: Int, height: Int)
    private let queue = DispatchQueue(label: "scrubkit.subtitles")
    /// The background read of a stream's packets from the start (its own demuxer and decoder).
    private let scanQueue = DispatchQueue(label: "scrubkit.subtitles.scan", qos: .utility)
    private let state = Locked(State())
    private var decoder: Decoder? = nil
    private var packet: Packet? = nil

    /// Subtitle files larger than this are refused (a text file of subtitles is kilobytes).
    static let largestFile = 64 << 20

    init(source: Source, fallbackCanvas: (width: Int, height: Int)) {
        self.source = source
        self.fallbackCanvas = fallbackCanvas
        switch source {
        case .file(let path): queue.async { self.load(path) }
        case .stream(_, let index, let scan?): scanQueue.async { self.read(scan, stream: index) }
        case .stream: break
        }
    }

    /// The cues showing at `time`, from what has been decoded so far (and decoding what has arrived since).
    func cues(at time: MediaTime) -> [SubtitleCue] {
        if case .stream = source, state.withLock({ s in defer { s.pumping = true }; return !s.pumping }) {
            queue.async { self.pump() }
        }
        return state.withLock { $0.cues.active(at: time) }
    }

    /// Why the track shows nothing (a file that cannot be read), when it cannot.
    var problem: MediaError? { state.withLock { $0.problem } }

    /// Stops for good; the decoder is freed on the chain's queue.
    func close() {
        state.withLock { $0.closed = true }
        queue.async { self.decoder = nil; self.packet = nil }
    }

    private var closed: Bool { state.withLock { $0.closed } }

    // MARK: - The chain's queue

    private func canvas(_ decoder: Decoder) -> (width: Int, height: Int) {
        let c = decoder.subtitleCanvas
        return c.width > 0 && c.height > 0 ? c : fallbackCanvas
    }

    private func add(_ event: DecodedSubtitle?, _ decoder: Decoder) {
        guard let event, let cue = SubtitleCue(event, canvas: canvas(decoder)) else { return }
        state.withLock { $0.cues.insert(cue) }
    }

    /// Decodes the packets the reader queued since the last time.
    private func pump() {
        defer { state.withLock { $0.pumping = false } }
        guard !closed, case .stream(let stream, let index, _) = source else { return }
        do {
            if decoder == nil {
                decoder = try stream.makeDecoder(
                    streamIndex: index, threading: .single, lowres: 0, maxPixels: MediaInspector.defaultPixelLimit)
                packet = try Packet()
            }
            guard let decoder, let packet else { return }
            while try stream.readIfQueued(into: packet) {
                // (A damaged packet costs its cue, not the track.)
                add(try? decoder.decodeSubtitle(packet), decoder)
                packet.unref()
            }
        } catch {
            state.withLock {
                $0.problem =
                    error as? MediaError ?? MediaError(.decodeFailed, path: stream.reader.path, "subtitles: \(error)")
            }
        }
    }

    /// Reads stream `index` of the played file from the start, its packets alone (on the scan queue; what it cannot
    /// read is left to the reader's packets).
    private func read(_ path: String, stream index: Int) {
        guard let media = try? MediaOpener.open(path, .lean(pixelLimit: MediaInspector.defaultPixelLimit)) else {
            return
        }
        _ = try? decodeAll(media, stream: index)
    }

    /// Reads the subtitle file whole.
    private func load(_ path: String) {
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
            if try decodeAll(media, stream: stream.index) == 0 {
                throw MediaError(.notMedia, path: path, "holds no subtitles")
            }
        } catch {
            state.withLock { $0.problem = error as? MediaError ?? MediaError(.unreadable, path: path, "\(error)") }
        }
    }

    /// Decodes every packet of stream `index` of `media` from where its demuxer is, the other streams skipped (a
    /// decoder of its own, on the calling queue), until the end or ``close()``; how many packets it read.
    private func decodeAll(_ media: OpenedMedia, stream index: Int) throws -> Int {
        let decoder = try media.demuxer.makeDecoder(
            streamIndex: index, threading: .single, lowres: 0, maxPixels: MediaInspector.defaultPixelLimit)
        media.demuxer.discardAllStreams(except: index)
        let packet = try Packet()
        var read = 0
        while !closed, try media.demuxer.read(into: packet) {
            // (A damaged packet costs its cue, not the track.)
            if packet.streamIndex == index { add(try? decoder.decodeSubtitle(packet), decoder); read += 1 }
            packet.unref()
        }
        return read
    }
}
