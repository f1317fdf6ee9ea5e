import FFmpegBridge
import Foundation

/// Frames in, an animated file out: the one interface behind every preview format. A format is added by writing
/// one and registering it in ``PreviewFormat/encoder(output:width:height:fps:quality:)``.
protocol AnimationEncoder: AnyObject {
    /// Adds a frame (of the size the encoder was made for) shown from `milliseconds` on.
    func add(_ image: RGBImage, at milliseconds: Int) throws
    /// Ends the animation, the last frame lasting until `milliseconds`, and puts the file in place atomically.
    func finish(at milliseconds: Int) throws
    /// Leaves nothing behind (a half-written file is removed).
    func abandon()
}

extension PreviewFormat {
    /// The registry: this format's encoder of `width × height` frames at `fps` writing `output`.
    func encoder(output: String, width: Int, height: Int, fps: Int, quality: Int) throws -> any AnimationEncoder {
        switch self {
        case .webp: return try WebPAnimation(output: output, width: width, height: height, quality: quality)
        case .mp4: return try MP4Animation(output: output, width: width, height: height, fps: fps)
        case .gif: return try GIFAnimation(output: output, width: width, height: height, fps: fps)
        }
    }

    /// Whether frames need even sides (H.264's 4:2:0).
    var needsEvenSides: Bool { self == .mp4 }
}

/// An animated WebP assembled in memory (libwebp keeps only the encoded frames) and written atomically.
final class WebPAnimation: AnimationEncoder {
    private let output: String
    private let animation: AnimatedWebP

    init(output: String, width: Int, height: Int, quality: Int) throws {
        self.output = output
        animation = try AnimatedWebP(width: width, height: height, quality: quality)
    }

    func add(_ image: RGBImage, at milliseconds: Int) throws { try animation.add(image.pixels, at: milliseconds) }
    func finish(at milliseconds: Int) throws {
        try AtomicFile.write(try animation.finish(at: milliseconds), to: output)
    }
    func abandon() {}
}

/// A file an FFmpeg muxer writes by name: a temporary file beside the output, moved over it when done and removed
/// when abandoned (also when dropped unfinished).
final class TemporaryOutput {
    /// The output's final path.
    let output: String
    /// Where the file is written meanwhile (the writers name their format: the name's end does not matter).
    private(set) var temporary: String?

    init(_ output: String) {
        self.output = output
        temporary = FileIO.temporaryPath(beside: output)
    }

    /// Moves the finished file over the output.
    func commit() throws {
        guard let temporary else { return }
        try FileIO.moveIntoPlace(temporary, over: output)
        self.temporary = nil
    }

    /// Removes the unfinished file.
    func discard() {
        if let temporary { FileIO.removeTemporary(temporary) }
        temporary = nil
    }

    deinit { discard() }
}

/// An H.264 MP4 (a keyframe every two seconds).
final class MP4Animation: AnimationEncoder {
    private let file: TemporaryOutput
    private let writer: VideoWriter

    init(output: String, width: Int, height: Int, fps: Int) throws {
        file = TemporaryOutput(output)
        writer = try VideoWriter(
            path: file.temporary!, width: width, height: height, fps: Int32(fps), gop: Int32(fps * 2))
    }

    func add(_ image: RGBImage, at milliseconds: Int) throws { try writer.append(image.packed) }
    func finish(at milliseconds: Int) throws {
        try writer.finish()
        try file.commit()
    }
    func abandon() { file.discard() }
}
