import FFmpegBridge
import MediaTime

/// One stream's decoding, set up in one place for every caller — thumbnails (``FrameExtractor``), scenes, `info`'s
/// proof frame, the player's picture and sound, the loudness scan: the decoder opened for the stream (threads,
/// shrink-on-load, pixel limit, loop filter) over a ``PacketSource``, its ``FrameReader``, positioning (by time, else
/// back to the start), and for sound the samples with the resampler's delay accounted for. Errors name the file.
/// Confine to one thread, as the decoder it owns.
final class StreamDecoder {
    /// The file or URL (for messages).
    let path: String
    /// The stream decoded.
    let stream: StreamFacts
    /// Reads the stream's packets into the decoder.
    let reader: FrameReader

    /// Opens a decoder for `stream` of `source`. `lowres`: JPEG-family shrink-on-load (clamped to what the codec can);
    /// `pixelLimit`: pictures larger are refused (FFmpeg's `max_pixels`); `skipsLoopFilter`: no deblocking (pictures
    /// shrunk a lot, where it cannot be seen). `describe` words what fails (default: "cannot open the … decoder").
    init(
        _ source: PacketSource, stream: StreamFacts, path: String, threading: DecoderThreading, lowres: Int = 0,
        pixelLimit: Int = Int(Int32.max), skipsLoopFilter: Bool = false, describe: ((Error) -> MediaError)? = nil
    ) throws {
        let decoder: Decoder
        do {
            decoder = try source.makeDecoder(
                streamIndex: stream.index, threading: threading, lowres: lowres, maxPixels: pixelLimit)
        } catch {
            throw describe?(error)
                ?? MediaError(.unsupported, path: path, "cannot open the \(stream.codecName) decoder: \(error)")
        }
        decoder.skipsLoopFilter = skipsLoopFilter
        do { reader = try FrameReader(source: source, decoder: decoder) } catch {
            throw describe?(error) ?? MediaError(.decodeFailed, path: path, "\(error)")
        }
        self.path = path
        self.stream = stream
    }

    /// The decoder (its switches: non-reference frames, loop filter).
    var decoder: Decoder { reader.decoder }
    /// Where the packets come from.
    var source: PacketSource { reader.source }

    /// The next decoded frame (reused object: valid until the next call), nil at the end or after `maxPackets` packets
    /// without one.
    func nextFrame(maxPackets: Int = .max) throws -> Frame? { try reader.nextFrame(maxPackets: maxPackets) }

    /// A decoded frame's presentation time (best effort), invalid when unknown.
    func time(of frame: Frame) -> MediaTime { decoder.time(of: frame) }

    /// Goes to the keyframe at or before `time` (MPEG-TS/PS: found by scanning packet headers), or back to the
    /// stream's start when `time` is at or before `start` or the source cannot seek there (before the first keyframe,
    /// a format without time seeking); decoder state is forgotten. Returns whether it went back to the start (the
    /// first frame decoded is then the stream's first).
    @discardableResult
    func position(at time: MediaTime, start: MediaTime) -> Bool {
        if time > start, (try? reader.seek(to: time)) != nil { return false }
        source.rewind(streamIndex: stream.index)
        reader.reset()
        return true
    }

    /// Forgets decoder state where the source is (its next packet was moved by other means: a queue's back buffer).
    func restart() { reader.reset() }

    /// A decoded sound frame's samples through `converter` and the presentation time of the first of them: the frame's
    /// time less what the resampler held back from the frames before (it comes out first).
    func samples(of frame: Frame, converter: AudioConverter) throws -> (samples: [Int16], start: MediaTime) {
        let t = time(of: frame)
        let held = converter.delay
        let samples = try converter.convert(frame)
        guard t.isNumeric else { return (samples, .invalid) }
        return (samples, held > 0 ? t - MediaTime(seconds: held, preferredTimescale: 1_000_000) : t)
    }
}
