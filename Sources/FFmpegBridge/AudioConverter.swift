import CFFmpeg

/// Converts decoded audio frames to interleaved signed 16-bit samples at one rate and channel count (libswresample:
/// any sample format, resampling, 5.1/7.1 down-mixed to stereo). Owns its `SwrContext`, remade when the frames'
/// format changes mid-stream. Not thread-safe.
public final class AudioConverter {
    /// Output samples per second.
    public let rate: Int
    /// Output channels (1 or 2).
    public let channels: Int
    private var context: OpaquePointer? = nil
    private var inputShape: (format: Int32, rate: Int32, channels: Int32) = (-1, 0, 0)

    /// A converter to `channels` channels at `rate` Hz.
    public init(rate: Int, channels: Int) {
        self.rate = rate
        self.channels = channels
    }

    deinit { scrub_swr_free(context) }

    /// The frame's samples, interleaved, at the output rate (a resampler keeps a few samples back between calls).
    public func convert(_ frame: Frame) throws -> [Int16] {
        let f = frame.pointer
        let shape = (f.pointee.format, f.pointee.sample_rate, scrub_frame_channels(f))
        if context == nil || shape != inputShape {
            scrub_swr_free(context)
            context = scrub_swr_for_frame(f, Int32(rate), Int32(channels))
            inputShape = shape
            guard context != nil else {
                throw FFmpegError(
                    operation: "convert audio",
                    message: "unsupported sample layout (\(shape.2) channels at \(shape.1) Hz)")
            }
        }
        let capacity = Int(scrub_swr_out_capacity(context, f.pointee.nb_samples))
        guard capacity > 0 else { return [] }
        var out = [Int16](repeating: 0, count: capacity * channels)
        let n = out.withUnsafeMutableBufferPointer {
            scrub_swr_convert_frame(context, f, $0.baseAddress, Int32(capacity))
        }
        if n < 0 { throw FFmpegError(n, "convert audio") }
        out.removeLast(out.count - Int(n) * channels)
        return out
    }

    /// Seconds of input held back: the next output starts this long before the next frame's time.
    public var delay: Double { Double(scrub_swr_delay_usec(context)) / 1_000_000 }

    /// Forgets samples kept back (after a seek).
    public func reset() {
        scrub_swr_free(context)
        context = nil
        inputShape = (-1, 0, 0)
    }
}
