@testable import FFmpegBridge
import Foundation
import MediaTime
@testable import ScrubKit
import Testing

/// What `info` and thumbnails say about inputs FFmpeg dislikes: valid JPEGs it refuses to shrink, pictures above the
/// pixel limit, damaged data (issue 9: causes a user understands).
@Suite struct HostileInputTests {
    @Test(.enabled(if: Corpus.available, "needs ../shared/media"))
    func losslessJPEGIsUsableInInfo() {
        // FFmpeg refuses lowres for lossless JPEG ("Operation not permitted"): info retries at full size.
        let info = MediaInspector().inspect(path: Corpus.path("sharp-fixtures/testimgl.jpg"))
        #expect(info.error == nil, "\(info.error?.description ?? "")")
        #expect(info.video?.width == 227 && info.video?.height == 149)
        // And a thumbnail small enough to ask for shrink-on-load.
        var g = ThumbnailGenerator(path: Corpus.path("sharp-fixtures/testimgl.jpg"))
        g.maximumSize = .longestSide(64)
        let thumb = try? g.image(at: .absolute(.zero))
        #expect(
            thumb?.image.width == 64 && thumb?.image.height == 42,
            "a shrunk lossless JPEG: \(String(describing: thumb?.image.width))")
    }

    @Test(.enabled(if: Corpus.available, "needs ../shared/media"))
    func infoReportsTheRealSizeOfABomb() {
        let info = MediaInspector().inspect(path: Corpus.path("sharp-fixtures/65536-uint32-limit.png"))
        #expect(info.video?.width == 65536 && info.video?.height == 65536)
        #expect(info.error?.kind == .tooLarge, "\(info.error?.description ?? "no error")")
        #expect(info.error?.description.contains("above the pixel limit") == true)
    }

    @Test func limitMessagesNeverLookEqualToTheSize() {
        let e = MediaError.overPixelLimit("x.mp4", width: 12288, height: 12288, limit: 150_000_000)
        #expect(e.description.contains("(150.9 MP), above the pixel limit of 150.0 MP"), "\(e)")
        let close = MediaError.overPixelLimit("x.mp4", width: 15001, height: 10000, limit: 150_000_000)
        #expect(close.description.contains("150.01 MP") && close.description.contains("150.00 MP"), "\(close)")
        #expect(
            MediaError.overPixelLimit("x", width: 20000, height: 20000, limit: 150_000_000).description.contains(
                "(400 MP), above the pixel limit of 150 MP"))
    }

    @Test(.enabled(if: Reference.available, "needs ffmpeg"))
    func aVideoAboveTheLimitIsRefusedFromItsHeader() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("big-\(getpid()).mp4").path
        defer { unlink(path) }
        _ = Reference.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=black:s=640x480", "-frames:v", "1",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", path,
            ])
        #expect(throws: MediaError.self) { _ = try VideoSource(path: path, pixelLimit: 300_000) }
        do { _ = try VideoSource(path: path, pixelLimit: 300_000) } catch let e as MediaError {
            #expect(
                e.kind == .tooLarge && e.description.contains("640×480 (0.307 MP), above the pixel limit of 0.300 MP"),
                "\(e)")
        }
        let info = MediaInspector(pixelLimit: 300_000).inspect(path: path)
        #expect(info.error?.kind == .tooLarge && info.video?.codec == "h264", "info still describes the stream")
        #expect((try? VideoSource(path: path, pixelLimit: 307_200)) != nil, "exactly at the limit is allowed")
    }

    /// FFmpeg's codes become words; its own text follows for experts.
    @Test func decoderFailuresAreWordedForUsers() {
        func tag(_ t: String) -> Int32 {
            let b = Array(t.utf8).map(Int32.init); return -(b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24)
        }
        let cases: [(Int32, String)] = [
            (-EPERM, "damaged or unsupported JPEG data (FFmpeg: Operation not permitted)"),
            (-EINVAL, "damaged or unsupported JPEG data (FFmpeg: Invalid argument)"),
            (tag("INDA"), "damaged or unsupported JPEG data (FFmpeg: Invalid data found when processing input)"),
            (tag("EXT "), "damaged or unsupported JPEG data (FFmpeg: Generic error in an external library)"),
            (-ENOMEM, "not enough memory to decode the JPEG data"),
        ]
        for (code, words) in cases {
            let e = MediaError.decoding("a.jpg", codec: "mjpeg", FFmpegError(code, "decode"))
            #expect(e.description.hasPrefix("a.jpg: \(words)"), "\(e)")
        }
        #expect(
            MediaError.formatName("png") == "PNG" && MediaError.formatName("mp3") == "MP3"
                && MediaError.formatName("gif") == "GIF")
    }
}
