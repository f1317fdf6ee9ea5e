import FFmpegBridge
@testable import ScrubKit
import Testing

/// EXIF and display-matrix orientation, and applying it to pixels.
@Suite struct OrientationTests {
    @Test(arguments: [
        (1, 0, false), (2, 0, true), (3, 180, false), (4, 180, true),
        (5, 270, true), (6, 90, false), (7, 90, true), (8, 270, false), (0, 0, false), (9, 0, false), (-3, 0, false),
    ])
    func exifTable(value: Int, rotation: Int, mirrored: Bool) {
        let o = Orientation(exif: value)
        #expect(o.rotation == rotation && o.mirrored == mirrored)
    }

    /// FFmpeg's matrix for "rotate 90° clockwise to display" (what phones write for portrait).
    @Test func displayMatricesSnapToQuarterTurns() {
        let one: Int32 = 1 << 16
        #expect(
            Orientation(displayMatrix: [0, one, 0, -one, 0, 0, 0, 0, 1 << 30])
                == Orientation(rotation: 90, mirrored: false))
        #expect(
            Orientation(displayMatrix: [-one, 0, 0, 0, -one, 0, 0, 0, 1 << 30])
                == Orientation(rotation: 180, mirrored: false))
        #expect(
            Orientation(displayMatrix: [0, -one, 0, one, 0, 0, 0, 0, 1 << 30])
                == Orientation(rotation: 270, mirrored: false))
        #expect(
            Orientation(displayMatrix: [-one, 0, 0, 0, one, 0, 0, 0, 1 << 30])
                == Orientation(rotation: 0, mirrored: true))
        #expect(Orientation(displayMatrix: [0, 0, 0, 0, 0, 0, 0, 0, 0]) == .identity)
    }

    /// A 3×2 picture with distinct pixels: each orientation must move pixel (0,0) where a viewer expects it.
    @Test func applyingMovesPixelsAsDisplayed() {
        // Pixels numbered 0…5 in the red channel, row-major: [0 1 2; 3 4 5].
        var px: [UInt8] = []
        for i in 0..<6 { px += [UInt8(i), 0, 0] }
        let img = RGBImage(width: 3, height: 2, pixels: px)
        func reds(_ i: RGBImage) -> [UInt8] { stride(from: 0, to: i.pixels.count, by: 3).map { i.pixels[$0] } }
        #expect(reds(img.applying(.identity)) == [0, 1, 2, 3, 4, 5])
        let r90 = img.applying(Orientation(rotation: 90, mirrored: false))
        #expect(r90.width == 2 && r90.height == 3)
        #expect(reds(r90) == [3, 0, 4, 1, 5, 2])
        #expect(reds(img.applying(Orientation(rotation: 180, mirrored: false))) == [5, 4, 3, 2, 1, 0])
        #expect(reds(img.applying(Orientation(rotation: 270, mirrored: false))) == [2, 5, 1, 4, 0, 3])
        #expect(reds(img.applying(Orientation(rotation: 0, mirrored: true))) == [2, 1, 0, 5, 4, 3])
        // EXIF 5 (transpose): rows become columns.
        #expect(reds(img.applying(Orientation(exif: 5))) == [0, 3, 1, 4, 2, 5])
    }
}
