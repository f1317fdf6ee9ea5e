import FFmpegBridge
import MediaTime

/// Contact sheets skip blank frames (black or white fades, solid title cards), as vcsi does: a tile that shows
/// nothing is replaced by a nearby frame that shows something.
enum BlankFrames {
    /// Whether a picture is (nearly) one flat colour: the spread of its luma is below a few code values.
    static func isBlank(_ image: RGBImage, threshold: Double = 6) -> Bool {
        let count = image.width * image.height
        guard count > 0 else { return true }
        let step = max(1, count / 4096)   // a few thousand samples are plenty
        var n = 0.0, sum = 0.0, sumSquares = 0.0
        var i = 0
        while i < count {
            let p = i * 3
            let y =
                0.2126 * Double(image.pixels[p]) + 0.7152 * Double(image.pixels[p + 1]) + 0.0722
                * Double(image.pixels[p + 2])
            n += 1; sum += y; sumSquares += y * y
            i += step
        }
        let mean = sum / n
        return (sumSquares / n - mean * mean).squareRoot() < threshold
    }

    /// Other times to try for a blank tile at `time`, in order of preference: later first (fades are mostly at
    /// the start), up to 0.9 of the tiles' spacing either way, inside [start, end]. The caller keeps the sheet in
    /// time order by taking only a frame between the tile's neighbours.
    static func alternatives(to time: MediaTime, spacing: Double, start: Double, end: Double) -> [TimeExpression] {
        [0.3, 0.6, 0.9, -0.3, -0.6].compactMap { f in
            let t = time.seconds + f * spacing
            guard t >= start, t <= end else { return nil }
            return .absolute(MediaTime(seconds: t, preferredTimescale: 90000))
        }
    }
}
