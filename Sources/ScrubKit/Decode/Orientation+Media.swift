import FFmpegBridge

extension StreamFacts {
    /// How the stream's pictures are shown upright: its display matrix, else an HTC phone's title rotation, else
    /// identity.
    var orientation: Orientation {
        if let m = displayMatrix { return Orientation(displayMatrix: m) }
        if let r = titleRotation { return Orientation(rotation: r, mirrored: false) }
        return .identity
    }
}

extension Frame {
    /// How to show this frame upright according to its own metadata: the EXIF tag when present (0/garbage → 1),
    /// else the frame's display matrix; nil when it carries neither.
    var displayOrientation: Orientation? {
        if let tag = exifOrientationTag { return Orientation(exif: tag) }
        return displayMatrix.map(Orientation.init(displayMatrix:))
    }
}
