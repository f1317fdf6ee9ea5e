/// How big a thumbnail may be (AVAssetImageGenerator's `maximumSize`, ImageIO's max pixel size).
public enum MaximumSize: Sendable, Equatable {
    /// Full display size.
    case unscaled
    /// The longest side is at most this many pixels.
    case longestSide(Int)
    /// Fits inside `width × height` (either may be 0 = unconstrained), aspect ratio kept.
    case box(width: Int, height: Int)

    /// A stable text for cache keys and resume signatures: `full`, `long:320`, `box:320x0`.
    public var key: String {
        switch self {
        case .unscaled: return "full"
        case .longestSide(let n): return "long:\(n)"
        case .box(let w, let h): return "box:\(w)x\(h)"
        }
    }

    /// The output size for a picture displayed at `width × height`.
    ///
    /// Aspect ratio is kept; the constrained side is exact and the other is rounded to the nearest pixel
    /// (half up), never below 1. Without `allowsUpscaling` a picture smaller than the box keeps its size.
    public func fit(width: Int, height: Int, allowsUpscaling: Bool = false) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return (max(width, 0), max(height, 0)) }
        let boxW: Int, boxH: Int
        switch self {
        case .unscaled: return (width, height)
        case .longestSide(let n): boxW = n; boxH = n
        case .box(let w, let h): boxW = w; boxH = h
        }
        if boxW <= 0 && boxH <= 0 { return (width, height) }
        // Scale factor = min(boxW / width, boxH / height), compared exactly in integers; a side given as 0 is
        // unconstrained, so the other one decides.
        let widthBound: Bool
        if boxH <= 0 {
            widthBound = true
        } else if boxW <= 0 {
            widthBound = false
        } else {
            let a = boxW.multipliedReportingOverflow(by: height), b = boxH.multipliedReportingOverflow(by: width)
            widthBound =
                a.overflow || b.overflow
                ? Double(boxW) / Double(width) <= Double(boxH) / Double(height) : a.partialValue <= b.partialValue
        }
        var outW: Int, outH: Int
        if widthBound {
            outW = boxW
            outH = Int((Double(height) * Double(boxW) / Double(width)).rounded(.toNearestOrAwayFromZero))
        } else {
            outH = boxH
            outW = Int((Double(width) * Double(boxH) / Double(height)).rounded(.toNearestOrAwayFromZero))
        }
        if !allowsUpscaling && (outW > width || outH > height) { return (width, height) }
        return (max(1, outW), max(1, outH))
    }
}
