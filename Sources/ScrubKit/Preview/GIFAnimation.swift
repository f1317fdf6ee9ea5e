import FFmpegBridge
import Foundation

/// An animated GIF with one palette for the whole clip: the palette is learnt from every frame before any is mapped
/// to it, so the frames are kept as they come (``FrameSpool``: memory, then a file) and given to the writer twice —
/// decoded once.
final class GIFAnimation: AnimationEncoder {
    private let file: TemporaryOutput
    private let writer: GIFWriter
    private let frames: FrameSpool

    init(output: String, width: Int, height: Int, fps: Int) throws {
        file = TemporaryOutput(output)
        writer = try GIFWriter(path: file.temporary!, width: width, height: height, fps: fps)
        frames = FrameSpool(frameBytes: width * height * 3, besides: output)
    }

    func add(_ image: RGBImage, at milliseconds: Int) throws {
        try writer.learn(image.pixels)
        try frames.append(image.pixels)
    }

    func finish(at milliseconds: Int) throws {
        try frames.forEach { try writer.append($0) }
        try writer.finish()
        try file.commit()
    }

    func abandon() { file.discard() }
}

/// Frames of one size kept in order to be read back: in memory up to `memoryBudget` bytes, the rest in an
/// unlinked temporary file (gone with the process, whatever happens), so memory stays bounded however long the clip.
final class FrameSpool {
    /// Bytes of frames kept in memory before the rest go to a file.
    let memoryBudget: Int
    private let frameBytes: Int
    private let directory: String
    private var inMemory: [[UInt8]] = []
    private var fd: Int32 = -1
    private var onDisk = 0

    /// A spool of `frameBytes`-byte frames, `memoryBudget` bytes of them in memory (32 MiB unless told), whose file,
    /// if one is needed, goes in the folder of `besides`.
    init(frameBytes: Int, besides: String, memoryBudget: Int = 32 << 20) {
        self.frameBytes = frameBytes
        self.memoryBudget = memoryBudget
        directory = besides
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Keeps a frame.
    func append(_ frame: [UInt8]) throws {
        precondition(frame.count == frameBytes)
        if (inMemory.count + 1) * frameBytes <= memoryBudget && fd < 0 { inMemory.append(frame); return }
        if fd < 0 {
            let path = FileIO.temporaryPath(beside: directory)
            let opened = FileIO.openTemporary(path, flags: O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600)
            fd = opened.fd
            FileIO.removeTemporary(path)   // (unlinked at once: the descriptor keeps it)
            guard fd >= 0 else {
                let why = String(cString: strerror(opened.errno))
                throw MediaError(.writeFailed, path: path, "cannot keep the frames: \(why)")
            }
        }
        if let failure = FileIO.writeAll(frame, to: fd) {
            throw MediaError(.writeFailed, path: directory, "cannot keep the frames: \(failure)")
        }
        onDisk += 1
    }

    /// Every frame kept, in order.
    func forEach(_ body: ([UInt8]) throws -> Void) throws {
        for frame in inMemory { try body(frame) }
        guard onDisk > 0 else { return }
        lseek(fd, 0, SEEK_SET)
        for _ in 0..<onDisk {
            guard let frame = FileIO.readExactly(fd, count: frameBytes) else {
                throw MediaError(.writeFailed, path: directory, "the frames kept could not be read back")
            }
            try body(frame)
        }
    }
}
