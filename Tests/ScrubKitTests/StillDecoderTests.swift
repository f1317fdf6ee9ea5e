import Foundation
@testable import ScrubKit
import Testing

/// The still-decoder registry: each format goes to its own decoder, in order, and what none takes goes to FFmpeg.
@Suite struct StillDecoderTests {
    static let request = StillRequest(maximumSize: .longestSide(64), allowsUpscaling: false, appliesOrientation: true,
                                      allowsShrinkOnLoad: true, pixelLimit: MediaInspector.defaultPixelLimit)

    /// The names of the registered decoders that recognise a file's head.
    static func recognisers(_ path: String) throws -> [String] {
        let head = try #require(ImageHeader.head(path: path))
        return StillDecoders.registered.filter { $0.recognizes(head) }.map { String(describing: type(of: $0)) }
    }

    @Test func registrationOrderIsJPEGThenWebPThenHEIF() {
        #expect(
            StillDecoders.registered.map { String(describing: type(of: $0)) } == [
                "JPEGStillDecoder", "WebPStillDecoder", "HEIFStillDecoder",
            ])
    }

    @Test func aJPEGGoesToItsDecoderAndAPNGToFFmpeg() throws {
        let jpeg = Corpus.sample("large_6000x4000.jpg"), png = Corpus.sample("image.png")
        #expect(try Self.recognisers(jpeg) == ["JPEGStillDecoder"])
        let head = try #require(ImageHeader.head(path: jpeg))
        let still = try #require(try StillDecoders.thumbnail(path: jpeg, head: head, request: Self.request))
        #expect((still.thumbnail.image.width, still.thumbnail.image.height) == (64, 43))
        #expect(still.timeline.isStill && still.timeline.codec == "mjpeg" && still.timeline.displayWidth == 6000)
        // PNG has no decoder of its own: nil, so FFmpeg reads it (and info is FFmpeg's).
        #expect(try Self.recognisers(png).isEmpty)
        let pngHead = try #require(ImageHeader.head(path: png))
        #expect(try StillDecoders.thumbnail(path: png, head: pngHead, request: Self.request) == nil)
        #expect(StillDecoders.inspect(path: png, head: pngHead, pixelLimit: 1 << 30, verifiesDecoding: true) == nil)
    }

    @Test(.enabled(if: Corpus.available, "needs ../shared/media"))
    func webPAndHEIFGoToTheirDecodersAndHEIFDescribesItself() throws {
        #expect(try Self.recognisers(Corpus.path("androidx-media/webp/ic_launcher_round.webp")) == ["WebPStillDecoder"])
        let heic = Corpus.path("androidx-media/heif/sample_still_photo.heic")
        #expect(try Self.recognisers(heic) == ["HEIFStillDecoder"])
        let head = try #require(ImageHeader.head(path: heic))
        let info = try #require(
            StillDecoders.inspect(
                path: heic, head: head, pixelLimit: MediaInspector.defaultPixelLimit, verifiesDecoding: true))
        #expect(info.container == "heif" && info.isStill && info.error == nil)
        // Over the pixel limit: refused from the header, before decoding.
        let small = StillRequest(
            maximumSize: .longestSide(64), allowsUpscaling: false, appliesOrientation: true, allowsShrinkOnLoad: true,
            pixelLimit: 100)
        #expect(throws: MediaError.self) { try StillDecoders.thumbnail(path: heic, head: head, request: small) }
    }
}
