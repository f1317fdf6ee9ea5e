import Foundation

/// How stored pixels must be transformed to be shown upright: an optional horizontal mirror, then a clockwise
/// rotation by a multiple of 90°. Covers the eight EXIF orientations and every axis-aligned display matrix.
public struct Orientation: Sendable, Hashable, CustomStringConvertible {
    /// Clockwise degrees, applied after the mirror: 0, 90, 180 or 270.
    public var rotation: Int
    /// Mirror left↔right before rotating.
    public var mirrored: Bool

    /// Clockwise `rotation` (normalised to 0/90/180/270) after mirroring when `mirrored`.
    public init(rotation: Int, mirrored: Bool) {
        self.rotation = ((rotation % 360) + 360) % 360
        self.mirrored = mirrored
    }

    /// No transform.
    public static let identity = Orientation(rotation: 0, mirrored: false)

    /// From an EXIF orientation value; 0, out-of-range and garbage values mean 1 (upright).
    public init(exif value: Int) {
        switch value {
        case 2: self.init(rotation: 0, mirrored: true)
        case 3: self.init(rotation: 180, mirrored: false)
        case 4: self.init(rotation: 180, mirrored: true)
        case 5: self.init(rotation: 270, mirrored: true)
        case 6: self.init(rotation: 90, mirrored: false)
        case 7: self.init(rotation: 90, mirrored: true)
        case 8: self.init(rotation: 270, mirrored: false)
        default: self = .identity
        }
    }

    /// From FFmpeg's 3×3 display matrix (row-vector convention, 16.16 fixed point): the stored x axis goes to
    /// `(m[0], m[1])` and the y axis to `(m[3], m[4])` on a y-down screen. A negative determinant is a mirror.
    /// Angles are snapped to the nearest quarter turn; a degenerate matrix gives `identity`.
    public init(displayMatrix m: [Int32]) {
        guard m.count >= 5 else { self = .identity; return }
        let a = Double(m[0]), b = Double(m[1]), c = Double(m[3]), d = Double(m[4])
        let det = a * d - b * c
        if det == 0 { self = .identity; return }
        let mirrored = det < 0
        let angle = mirrored ? atan2(-b, -a) : atan2(b, a)
        let quarter = Int((angle * 180 / .pi / 90).rounded()) * 90
        self.init(rotation: quarter, mirrored: mirrored)
    }

    /// Whether width and height trade places when displayed.
    public var swapsDimensions: Bool { rotation == 90 || rotation == 270 }

    /// The displayed size of a stored `width × height` picture.
    public func displaySize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsDimensions ? (height, width) : (width, height)
    }

    /// `90°`, `mirror+270°`.
    public var description: String { mirrored ? "mirror+\(rotation)°" : "\(rotation)°" }
}
