import Foundation
import Locking
import MediaTime
@testable import ScrubKit
import Testing

/// Media whose streams do what our own clips never do, each 60 s with a 320×180 picture of ~4 Mbit/s (noise: it does
/// not compress), so that reading the file whole and reading what is played differ by megabytes.
enum StreamShape: String, CaseIterable, CustomTestStringConvertible {
    /// Picture and sound to the end: the reference.
    case soundToTheEnd
    /// A narration over a screen recording: the sound ends after 2 s.
    case soundEndsEarly
    /// The sound starts 10 s in (an edit list in MP4).
    case soundStartsLate
    /// No sound from 5 s to 35 s (Matroska keeps the hole).
    case holeInTheSound
    /// The picture ends at 20 s, the sound goes on to 60 s.
    case pictureEndsFirst
    /// Two subtitles, at 1 s and 50 s, in Matroska.
    case sparseSubtitles
    /// Sound with a cover picture (one packet at the start).
    case coverPicture

    var testDescription: String { rawValue }

    /// Seconds of the stream that carries the file's bytes (the picture's; the sound's under a cover picture).
    var seconds: Double { self == .pictureEndsFirst ? 20 : 60 }

    /// The made file (nil when ffmpeg failed).
    var path: String? {
        guard let picture = StreamShape.picture else { return nil }
        func tone(_ seconds: Int) -> [String] { ["-f", "lavfi", "-i", "sine=f=440:d=\(seconds):sample_rate=48000"] }
        let copy = ["-map", "0:v", "-map", "1:a", "-c:v", "copy", "-c:a", "aac"]
        switch self {
        case .soundToTheEnd:
            return Reference.make("shape-normal.mp4", ["-i", picture] + tone(60) + copy)
        case .soundEndsEarly:
            return Reference.make("shape-early-end.mp4", ["-i", picture] + tone(2) + copy)
        case .soundStartsLate:
            return Reference.make("shape-late-start.mp4", ["-i", picture, "-itsoffset", "10"] + tone(50) + copy)
        case .holeInTheSound:
            let hole = ["-af", "aselect='lt(t\\,5)+gte(t\\,35)'"]
            return Reference.make("shape-hole.mkv", ["-i", picture] + tone(60) + hole + copy)
        case .pictureEndsFirst:
            return Reference.make("shape-short-picture.mp4", ["-t", "20", "-i", picture] + tone(60) + copy)
        case .sparseSubtitles:
            let srt = Reference.madeDirectory.appendingPathComponent("shape-sparse.srt").path
            let cues = "1\n00:00:01,000 --> 00:00:02,000\nThe first line\n\n"
                + "2\n00:00:50,000 --> 00:00:51,000\nThe last line\n"
            guard FileManager.default.createFile(atPath: srt, contents: Data(cues.utf8)) else { return nil }
            let subtitles = ["-map", "2:s", "-c:s", "srt"]
            return Reference.make("shape-sparse-subs.mkv", ["-i", picture] + tone(60) + ["-i", srt] + copy + subtitles)
        case .coverPicture:
            let still = ["-f", "lavfi", "-i", "testsrc2=size=320x320", "-frames:v", "1"]
            guard let cover = Reference.make("shape-cover.png", still) else { return nil }
            return Reference.make("shape-cover.m4a", tone(60) + ["-i", cover, "-map", "0:a", "-map", "1:v",
                                                                 "-c:a", "aac", "-b:a", "256k", "-c:v", "png",
                                                                 "-disposition:v", "attached_pic"])
        }
    }

    /// The noisy 60 s picture all shapes share (encoded once).
    static var picture: String? {
        Reference.make("shape-picture.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=60",
                                             "-vf", "noise=alls=20:allf=t", "-c:v", "libx264", "-preset", "ultrafast",
                                             "-g", "50", "-pix_fmt", "yuv420p"])
    }
}

/// The player's reader stays within its bounds — the read-ahead past what is played, the queues' bytes — whatever
/// the streams do, and the picture plays on where the sound has nothing. Before, a chain waiting on a stream that had
/// ended (sound that stops after 2 s) or had a long hole made the reader read the rest of the file: the whole 60 s
/// for 8 s played, over HTTP too.
@Suite(.enabled(if: Reference.available, "needs ffmpeg to make the shapes"), .timeLimit(.minutes(3)))
struct PlayerReadBoundsTests {
    /// What one play read.
    struct Played {
        /// The media time reached.
        var reached: Double
        /// Bytes the reader read, and the most its queues held at once.
        var read: Int
        var peakQueued: Int
    }

    /// A stand-in sound device taking its samples at twice real time (the sound leads the clock: the whole plays that
    /// fast, and the picture's chain keeps up with it as on a real machine).
    final class PacedOutput: SoundOutput, @unchecked Sendable {   // unchecked: immutable
        let rate: Int, channels: Int
        init(rate: Int, channels: Int) { (self.rate, self.channels) = (rate, channels) }
        func write(_ samples: [Int16]) throws {
            usleep(UInt32(Double(samples.count / channels) / Double(rate) / 2 * 1e6))
        }
        var latency: Double? { 0.05 }
        func flush() {}
    }

    /// Plays `path` until `seconds` of media time have played, sound going to a ``PacedOutput``, frames taken as a
    /// front end takes them (for at most 30 s of wall time), then pauses and lets the reader settle: what it read
    /// then is what it reads for the time reached (however busy the machine was meanwhile).
    static func play(_ path: String, seconds: Double) async throws -> Played {
        let sound = SoundOptions(open: { rate, channels, _ in PacedOutput(rate: rate, channels: channels) })
        let player = Player(path: path, sound: sound)
        let status = await player.waitUntilReady()
        try #require(status == .readyToPlay, "\(status)")
        player.setVideoOutputSize(width: 64, height: 36)
        if !player.subtitleTracks.isEmpty { player.subtitleTrack = 0 }
        player.play()
        // The picture taken as a terminal's refresh loop takes it: on a thread of its own, every 4 ms. (Polled from a
        // task, it waited on the test run's cooperative pool, which the suite's other tests keep busy: the picture's
        // chain then lagged the sound by up to 9 s and the queues held that much more.)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            NamedThread.start("test.display") {
                let end = Date().addingTimeInterval(30)
                while (player.currentTime - player.startTime).seconds < seconds && Date() < end {
                    _ = player.frameForDisplay()
                    _ = player.subtitles(at: player.currentTime)
                    usleep(4000)
                }
                done.resume()
            }
        }
        player.pause()
        try await Task.sleep(nanoseconds: 500_000_000)
        let reached = (player.currentTime - player.startTime).seconds
        let stats = try #require((player.pipeline as? FilePlayback)?.readStatistics)
        return Played(reached: reached, read: stats.bytes, peakQueued: stats.peakQueuedBytes)
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    /// 8 s of a local file: the clock reaches 8 s (the picture plays on where the sound has nothing); the reader reads
    /// what the time reached holds, its second ahead, a waiting stream's lag of 2 s, a GOP and what the chains decode
    /// ahead — under 6 s more — and its queues hold under 12 s at once (the sound kept behind: under 1 MB here; the
    /// picture's chain lagging the sound on a busy machine: 1–2 s; the whole rest of the file, 52 s, before).
    @Test(arguments: StreamShape.allCases)
    func aLocalFileIsReadAsItIsPlayed(shape: StreamShape) async throws {
        let path = try #require(shape.path, "made \(shape)")
        let played = try await PlayerReadBoundsTests.play(path, seconds: 8)
        let size = PlayerReadBoundsTests.size(path)
        let perSecond = Double(size) / shape.seconds
        #expect(played.reached >= 8, "the clock reached 8 s: \(played.reached)")
        #expect(Double(played.read) < (played.reached + 6) * perSecond,
                "read \(played.read) of \(size) bytes: \(Double(played.read) / perSecond) s for \(played.reached) s")
        #expect(Double(played.peakQueued) < 12 * perSecond + 1_000_000,
                "queued at most \(played.peakQueued) bytes: \(Double(played.peakQueued) / perSecond) s worth")
    }
}

extension PlayerReadBoundsTests {
    /// tools/http-range-server on the folder of made files for `body`, with the bytes and requests it served.
    static func serving<T>(_ body: (_ base: String, _ served: () -> (bytes: Int, requests: Int)) async throws -> T)
        async throws -> T {
        let dir = Reference.madeDirectory.path
        let portFile = dir + "/port-\(UUID().uuidString.prefix(8))", stats = portFile + ".json"
        let fd = open(portFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        let tool = Corpus.packageRoot.appendingPathComponent("tools/http-range-server").path
        let server = Spawned(["/usr/bin/python3", tool, dir, "--stats", stats], environment: ["PATH": "/usr/bin:/bin"],
                             output: fd)
        close(fd)
        let spawned = try #require(server, "the HTTP server started")
        defer { spawned.stop(); unlink(portFile); unlink(stats) }
        var port: Int? = nil
        for _ in 0..<200 where port == nil {
            let text = try? String(contentsOfFile: portFile, encoding: .utf8)
            port = text.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if port == nil { usleep(20_000) }
        }
        let base = "http://127.0.0.1:\(try #require(port, "the server printed its port"))"
        return try await body(base) {
            let data = (try? Data(contentsOf: URL(fileURLWithPath: stats))) ?? Data()
            let d = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            return ((d?["bytes"] as? Int) ?? 0, (d?["requests"] as? Int) ?? 0)
        }
    }

    /// The same over HTTP: the server counts what it sent — the time reached, 5 s read ahead, a waiting stream's lag
    /// of 5 s, a GOP, what the sockets hold — under 20 s more (the whole file is 60 s), and half a megabyte for the
    /// opening's reads (the index, a cover picture); the queues hold under 30 s (5 s ahead, the picture's chain lagging
    /// the sound under the whole suite's load: 21 s seen).
    @Test(arguments: StreamShape.allCases)
    func aURLIsDownloadedAsItIsPlayed(shape: StreamShape) async throws {
        let path = try #require(shape.path, "made \(shape)")
        let perSecond = Double(PlayerReadBoundsTests.size(path)) / shape.seconds
        try await PlayerReadBoundsTests.serving { base, served in
            let url = base + "/" + (path as NSString).lastPathComponent
            let played = try await PlayerReadBoundsTests.play(url, seconds: 8)
            let sent = served()
            #expect(played.reached >= 8, "the clock reached 8 s: \(played.reached)")
            let worth = Double(sent.bytes) / perSecond
            #expect(Double(sent.bytes) < (played.reached + 20) * perSecond + 512_000,
                    "sent \(sent.bytes) bytes in \(sent.requests) requests: \(worth) s for \(played.reached) s")
            #expect(Double(played.peakQueued) < 30 * perSecond + 1_000_000,
                    "queued at most \(played.peakQueued) bytes: \(Double(played.peakQueued) / perSecond) s worth")
        }
    }
}

