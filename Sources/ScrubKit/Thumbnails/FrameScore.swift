import FFmpegBridge
import Foundation
import MediaTime

/// How good a picture is as a thumbnail: not blank (black, white, flat, a fade), sharp, colourful — the measures
/// ffmpegthumbnailer (histograms), ffmpeg's `thumbnail` filter and vcsi (sharpest frame, colour variety) use.
/// Computed on the small picture (the thumbnail), so scoring costs little and holds nothing larger.
public struct FrameScore: Sendable, Comparable {
    /// Mean and spread of luma (0–255).
    public var meanLuma: Double
    /// Standard deviation of luma (0–255): low for flat pictures.
    public var lumaSpread: Double
    /// Variance of the 4-neighbour Laplacian of luma: high for sharp detail, low for blur.
    public var sharpness: Double
    /// Entropy (bits, 0–9) of a 512-bin colour histogram: how varied the colours are.
    public var colourVariety: Double

    /// Nearly one flat colour (a black or white frame, a title card, the bottom of a fade).
    public var isBlank: Bool { lumaSpread < 6 }

    /// One number to compare by: blank pictures lose to any other; then sharpness (log scale) and colour variety,
    /// with very dark or very bright pictures (fades) held back.
    public var value: Double {
        if isBlank { return -1000 + lumaSpread }
        var v = log1p(sharpness) + 0.35 * colourVariety
        if meanLuma < 35 || meanLuma > 225 { v -= 2 }
        return v
    }

    /// Ordered by ``value``: the better frame is the greater.
    public static func < (a: FrameScore, b: FrameScore) -> Bool { a.value < b.value }

    /// The score of `image`, measured on a grid of at most ~65,000 points (every `step`-th pixel each way), so a
    /// full-size picture costs no more than a thumbnail.
    public init(_ image: RGBImage) {
        let step = max(1, Int((Double(image.width * image.height) / 65_536).squareRoot().rounded(.up)))
        let w = image.width / step, h = image.height / step
        guard w > 2, h > 2 else {
            (meanLuma, lumaSpread, sharpness, colourVariety) = (0, 0, 0, 0)
            return
        }
        var luma = [Double](repeating: 0, count: w * h)
        var histogram = [Int](repeating: 0, count: 512)
        var sum = 0.0, sumSquares = 0.0
        for y in 0..<h {
            for x in 0..<w {
                let p = ((y * step) * image.width + x * step) * 3
                let r = image.pixels[p], g = image.pixels[p + 1], b = image.pixels[p + 2]
                let l = 0.2126 * Double(r) + 0.7152 * Double(g) + 0.0722 * Double(b)
                luma[y * w + x] = l
                sum += l
                sumSquares += l * l
                histogram[Int(r >> 5) << 6 | Int(g >> 5) << 3 | Int(b >> 5)] += 1
            }
        }
        let n = Double(w * h)
        meanLuma = sum / n
        lumaSpread = max(0, sumSquares / n - meanLuma * meanLuma).squareRoot()
        var lapSum = 0.0, lapSquares = 0.0
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let i = y * w + x
                let l = luma[i - 1] + luma[i + 1] + luma[i - w] + luma[i + w] - 4 * luma[i]
                lapSum += l
                lapSquares += l * l
            }
        }
        let m = Double((w - 2) * (h - 2))
        sharpness = max(0, lapSquares / m - (lapSum / m) * (lapSum / m))
        colourVariety = histogram.reduce(0.0) { e, c in
            guard c > 0 else { return e }
            let p = Double(c) / n
            return e - p * log2(p)
        }
    }
}

/// Why a frame was passed over as a representative frame.
public enum FrameRejection: String, Sendable, Equatable, CaseIterable {
    /// Nearly one dark colour (a black frame).
    case black
    /// Nearly one bright colour (a white frame).
    case white
    /// Nearly one colour in between (a title card's background, a grey frame).
    case flat
    /// Shows something, but very dark or very bright overall (the middle of a fade).
    case fade
    /// Little fine detail (motion blur, out of focus).
    case blurry
}

/// What a representative frame must be: the thresholds behind each ``FrameRejection``, every one settable
/// (`scrubkit thumb --min-contrast --dark-below --bright-above --min-sharpness`).
public struct FrameCriteria: Sendable, Equatable {
    /// Luma spread (standard deviation, 0–255) under which a picture is one flat colour: black, white or flat.
    public var minimumContrast = 6.0
    /// Mean luma (0–255) under which a picture is black (when flat) or a fade to black.
    public var darkBelow = 35.0
    /// Mean luma (0–255) over which a picture is white (when flat) or a fade to white.
    public var brightAbove = 225.0
    /// Laplacian variance of luma (``FrameScore/sharpness``) under which a picture is blurry.
    public var minimumSharpness = 20.0

    /// The defaults.
    public init() {}

    /// Why `score`'s picture is not a good thumbnail; empty when it is.
    public func rejections(_ score: FrameScore) -> [FrameRejection] {
        if score.lumaSpread < minimumContrast {
            return [score.meanLuma < darkBelow ? .black : score.meanLuma > brightAbove ? .white : .flat]
        }
        var out: [FrameRejection] = []
        if score.meanLuma < darkBelow || score.meanLuma > brightAbove { out.append(.fade) }
        if score.sharpness < minimumSharpness { out.append(.blurry) }
        return out
    }

    /// The criteria as text (part of cache keys).
    var key: String { "\(minimumContrast),\(darkBelow),\(brightAbove),\(minimumSharpness)" }
}

/// A frame considered for a representative thumbnail: its time, its measures and why it was passed over.
public struct FrameCandidate: Sendable, Equatable {
    /// The frame's presentation time.
    public var time: MediaTime
    /// Its measures.
    public var score: FrameScore
    /// Why it is not a good thumbnail (empty: it is).
    public var rejections: [FrameRejection]
}
