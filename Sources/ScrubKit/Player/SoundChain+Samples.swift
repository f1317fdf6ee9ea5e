import MediaTime

/// The sound chain's work on decoded samples, as pure functions: where a chunk starts in its take, and its level.
extension SoundChain {
    /// What of a decoded chunk of `samples` (interleaved, `channels`), whose first sample is at `start`, is played
    /// when the take's sound so far ends at `expected` (the take's start before anything was written): samples before
    /// it are dropped — the take began at the packet before its time, or the reader went back to a keyframe and the
    /// same packets came again — and a chunk that starts after it (a take whose queue began later, a gap in the
    /// stream) is led by that much silence, up to `maximumSilence` samples, so that it is heard at its own time (the
    /// chain writes longer gaps as pieces of silence first). Nil when nothing of it is played; else the chunk, its
    /// start, and where the next must start.
    static func placed(_ samples: [Int16], channels: Int, rate: Int, start: MediaTime, expected: MediaTime,
                       maximumSilence: Int) -> (chunk: [Int16], start: MediaTime, next: MediaTime)? {
        let frames = samples.count / channels
        var first = 0, silence = 0, start = start
        if expected.isNumeric {
            let skip = Int(((expected - start).seconds * Double(rate)).rounded())
            if skip >= frames { return nil }
            if skip > 0 { first = skip; start = expected }
            if skip < 0 && -skip <= maximumSilence { silence = -skip; start = expected }
        }
        var chunk = first == 0 ? samples : Array(samples[(first * channels)...])
        if silence > 0 { chunk = [Int16](repeating: 0, count: silence * channels) + chunk }
        return (chunk, start, start + MediaTime(value: Int64(frames - first + silence), timescale: Int32(rate)))
    }

    /// Applies `gain` to the first `count` frames of `chunk`, the take's frames `position ..< position + count`, with
    /// `fade` frames of fade-in at the take's start and of fade-out before the end of a snippet of `snippetLength`.
    static func shape(
        _ chunk: inout [Int16], channels: Int, position: Int, count: Int, gain: Double, fade: Int, snippetLength: Int?
    ) {
        guard gain != 1 || position < fade || snippetLength.map({ position + count > $0 - fade }) == true else {
            return
        }
        for i in 0..<count {
            var g = gain
            let p = position + i
            if p < fade { g *= Double(p) / Double(fade) }
            if let length = snippetLength, length - p < fade { g *= Double(max(0, length - p - 1)) / Double(fade) }
            if g == 1 { continue }
            for c in 0..<channels { chunk[i * channels + c] = Int16(Double(chunk[i * channels + c]) * g) }
        }
    }
}
