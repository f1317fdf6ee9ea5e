import Foundation
import MediaTime
import Testing
@testable import ScrubKit

/// The front door: what `MediaOpener.open` learns once (kind, chapters) and that requests open a file once.
@Suite(.enabled(if: Reference.available, "needs ffmpeg/ffprobe"))
struct MediaFactsTests {
    static var dir: URL { Reference.madeDirectory }

    /// A file made by the ffmpeg CLI: `args` before the output name.
    static func make(_ name: String, _ args: [String]) throws -> String {
        try #require(Reference.make(name, args), "ffmpeg made \(name)")
    }

    static func video(_ name: String = "clip.mkv") throws -> String {
        try make(name, ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=3", "-c:v", "mpeg4"])
    }

    static func lean(_ path: String) throws -> MediaFacts {
        try MediaOpener.open(path, .lean(pixelLimit: MediaInspector.defaultPixelLimit)).facts
    }

    @Test func chaptersAreTheContainersAsFFprobeReadsThem() throws {
        let meta = Self.dir.appendingPathComponent("chapters.txt")
        try """
        ;FFMETADATA1
        [CHAPTER]
        TIMEBASE=1/1000
        START=0
        END=1250
        title=Opening
        [CHAPTER]
        TIMEBASE=1/90000
        START=112500
        END=202500
        title=Schluß – “zwei”
        [CHAPTER]
        TIMEBASE=1/1000
        START=2250
        END=3000

        """.write(to: meta, atomically: true, encoding: .utf8)
        let path = try Self.make("chapters.mkv", ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=3",
                                                  "-i", meta.path, "-map", "0", "-map_chapters", "1", "-c:v", "mpeg4"])
        let facts = try Self.lean(path)
        let json = Reference.run("ffprobe", ["-v", "error", "-show_chapters", "-of", "json", path])
        let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
        let expected = try #require(object?["chapters"] as? [[String: Any]])
        try #require(expected.count == 3, "ffprobe reads the chapters written")
        #expect(facts.chapters.count == expected.count)
        for (c, e) in zip(facts.chapters, expected) {
            let start = Double(e["start_time"] as? String ?? "") ?? .nan
            let end = Double(e["end_time"] as? String ?? "") ?? .nan
            #expect(abs(c.start.seconds - start) < 1e-6, "start \(c.start) vs \(start)")
            #expect(abs(c.end.seconds - end) < 1e-6, "end \(c.end) vs \(end)")
            #expect(c.title == (e["tags"] as? [String: String])?["title"])
        }
        #expect(facts.chapters.map(\.title) == ["Opening", "Schluß – “zwei”", nil])
        #expect(MediaInspector().inspect(path: path).chapters == facts.chapters, "info reports the same chapters")
        #expect(try Self.lean(Self.video()).chapters.isEmpty)
    }

    @Test func kindRoutesEachFile() throws {
        let png = try Self.make("still.png", ["-f", "lavfi", "-i", "testsrc=size=64x48", "-frames:v", "1"])
        let wav = try Self.make("tone.wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=2"])
        let srt = Self.dir.appendingPathComponent("words.srt")
        try "1\n00:00:00,000 --> 00:00:01,000\nhello\n\n".write(to: srt, atomically: true, encoding: .utf8)

        let video = try Self.lean(Self.video())
        #expect(video.kind == .video && !video.isStill && video.video?.width == 64)
        #expect(video.durationKind == .known && abs(video.duration.seconds - 3) < 0.2)
        #expect(video.emptiness(path: "x") == nil)
        let still = try Self.lean(png)
        #expect(still.kind == .still && still.start == .zero && still.durationKind == .unknown)
        let audio = try Self.lean(wav)
        #expect(audio.kind == .audioOnly && audio.video == nil && audio.audioStreams.count == 1)
        #expect(abs(audio.duration.seconds - 2) < 0.05)
        let text = try Self.lean(srt.path)
        #expect(text.kind == .nothing)
        #expect(text.emptiness(path: srt.path)?.kind == .unsupported)
    }

    /// Counts FFmpeg opens of `path` while `body` runs (counting is process-wide; paths here are unique).
    func opens(of path: String, _ body: () async throws -> Void) async rethrows -> Int {
        MediaOpener.openCounts.withLock { if $0 == nil { $0 = [:] } }
        let before = MediaOpener.openCounts.withLock { $0?[path] ?? 0 }
        try await body()
        return MediaOpener.openCounts.withLock { $0?[path] ?? 0 } - before
    }

    @Test func audioOnlyMediaPlaysFromOneOpen() async throws {
        let wav = try Self.make("played.wav", ["-f", "lavfi", "-i", "sine=frequency=440:duration=2"])
        var player: Player?
        let n = await opens(of: wav) {
            let p = Player(path: wav, sound: nil)   // (with sound, a second demuxer reads the audio packets)
            _ = await p.waitUntilReady()
            player = p
        }
        #expect(player?.status == .readyToPlay)
        #expect(player?.mediaInfo?.hasVideo == false)
        #expect(player.map { abs($0.duration.seconds - 2) < 0.05 } == true)
        #expect(n == 1, "opened \(n) times")
    }

    @Test func infoAndAThumbnailOpenOnceEach() async throws {
        let path = try Self.video("once.mkv")
        let inspected = await opens(of: path) { #expect(MediaInspector().inspect(path: path).error == nil) }
        #expect(inspected == 1)
        let thumbnailed = try await opens(of: path) {
            let t = try ThumbnailGenerator(path: path).image(at: .absolute(MediaTime(value: 1, timescale: 1)))
            #expect(t.image.width > 0)
        }
        #expect(thumbnailed == 1)
    }

    @Test func chapterJumpsGoLikeMpvs() {
        func t(_ s: Int64) -> MediaTime { MediaTime(value: s, timescale: 1) }
        let chapters = [Chapter(start: t(0), end: t(60), title: "a"), Chapter(start: t(60), end: t(200), title: "b"),
                        Chapter(start: t(200), end: t(300), title: nil)]
        #expect(chapters.index(at: t(0)) == 0 && chapters.index(at: t(61)) == 1 && chapters.index(at: t(250)) == 2)
        #expect([Chapter(start: t(10), end: t(20), title: nil)].index(at: t(5)) == nil, "before the first chapter")
        #expect(chapters.jumpTarget(from: t(70), forward: true) == t(200))
        #expect(chapters.jumpTarget(from: t(250), forward: true) == nil, "no chapter after the last")
        #expect(chapters.jumpTarget(from: t(70), forward: false) == t(60), "back: the current chapter's start")
        #expect(chapters.jumpTarget(from: t(62), forward: false) == t(0), "near its start: the chapter before")
        #expect(chapters.jumpTarget(from: t(2), forward: false) == t(0), "the first chapter stays")
        #expect([Chapter]().jumpTarget(from: t(2), forward: true) == nil)
    }
}
