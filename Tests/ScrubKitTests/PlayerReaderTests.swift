import FFmpegBridge
import Foundation
@testable import ScrubKit
import Testing
import Locking
import MediaTime

/// The player's one reader: every packet read once for all chains, reading bounded by the read-ahead, a move that
/// empties every queue, and a sound queue's back buffer.
@Suite(.enabled(if: Corpus.samplesAvailable, "needs the bundled samples (tools/make-samples)"))
struct PlayerReaderTests {
    /// A reader on `path`, once it opened (nil when it failed); with `playingAll`, every stream's queue is played
    /// before reading starts. (Marked one by one afterwards, the reader may read for the first while the picture's
    /// is still unplayed, which keeps only its newest packet: a second of pictures lost.)
    static func open(_ path: String, limits: PlayerReader.Limits? = nil,
                     playingAll: Bool = false) -> (PlayerReader, MediaFacts)? {
        let opened = Locked<MediaFacts??>(nil)
        let reader = PlayerReader(path: path, limits: limits) { reader, result in
            let facts = try? result.get().facts
            if playingAll, let facts { for s in facts.streams { reader.setPlayed(s.index, true) } }
            opened.withLock { $0 = .some(facts) }
        }
        let facts = opened.withLock(waitingUntil: { $0 != nil }, timeout: 20) { v, _ in v ?? nil }
        guard let facts else { reader.close(); return nil }
        return (reader, facts)
    }

    /// Every packet of each stream, counted by reading the file with a demuxer of its own.
    static func packetCounts(_ path: String) throws -> [Int: Int] {
        let demuxer = try MediaOpener.demux(path, .lean(pixelLimit: MediaInspector.defaultPixelLimit))
        let packet = try Packet()
        var counts: [Int: Int] = [:]
        while try demuxer.read(into: packet) { counts[packet.streamIndex, default: 0] += 1 }
        return counts
    }

    @Test func eachStreamGetsEveryPacketOnceFromOneRead() throws {
        let path = Corpus.sample("h264_gop2s.mp4")
        let (reader, facts) = try #require(PlayerReaderTests.open(path, playingAll: true))
        defer { reader.close() }
        let video = try #require(facts.video), audio = try #require(facts.audioStreams.first)
        let queues = [
            video.index: try #require(reader.stream(video.index)),
            audio.index: try #require(reader.stream(audio.index)),
        ]
        // Read the sound first to its end (the picture's packets wait in their played queue), then the picture.
        var got: [Int: Int] = [:]
        let packet = try Packet()
        for index in [audio.index, video.index] {
            while try queues[index]!.read(into: packet) {
                #expect(packet.streamIndex == index)
                got[index, default: 0] += 1
            }
        }
        let expected = try PlayerReaderTests.packetCounts(path)
        #expect(got[video.index] == expected[video.index])
        #expect(got[audio.index] == expected[audio.index])
        #expect(got[video.index, default: 0] > 100 && got[audio.index, default: 0] > 100)
        // One read of the file for both: the reader read each packet exactly once.
        #expect(reader.statistics.packets == expected.values.reduce(0, +))
    }

    @Test func aPlayedQueueIsFilledToItsReadAheadAndNoFurther() throws {
        let path = Corpus.sample("h264_gop2s.mp4")
        let limits = PlayerReader.Limits(readAhead: 1, keep: 1, lag: 2)
        let (reader, facts) = try #require(PlayerReaderTests.open(path, limits: limits))
        defer { reader.close() }
        let index = try #require(facts.video).index
        let video = try #require(reader.stream(index))
        video.setPlayed(true)
        // Wait until the reader stops (its count holds still), then look at what it read: about a second of 8.
        var last = -1
        for _ in 0..<100 {
            Thread.sleep(forTimeInterval: 0.05)
            let now = reader.statistics.packets
            if now == last && now > 0 { break }
            last = now
        }
        let total = try PlayerReaderTests.packetCounts(path).values.reduce(0, +)
        let read = reader.statistics.packets
        #expect(read > 0)
        #expect(
            read < total / 3, "read \(read) of \(total) packets with nothing taken: the read-ahead bound does not hold")
        // Taking packets makes it read on.
        let packet = try Packet()
        for _ in 0..<(read + 10) { _ = try video.read(into: packet) }
        #expect(reader.statistics.packets > read)
    }

    @Test func aMoveEmptiesEveryQueueAndTheSoundQueueCanGoBackWithoutOne() throws {
        let path = Corpus.sample("h264_gop2s.mp4")
        let (reader, facts) = try #require(PlayerReaderTests.open(path))
        defer { reader.close() }
        let stream = try #require(facts.audioStreams.first)
        let audio = try #require(reader.stream(stream.index))
        audio.setPlayed(true)
        let packet = try Packet()
        func seconds(_ p: Packet) -> Double {
            Double(p.pts) * Double(stream.timeBase.num) / Double(stream.timeBase.den)
        }
        // Play three seconds of sound, then go back to 1 s from the kept packets: no move, the same packets again.
        var t = 0.0
        while t < 3, try audio.read(into: packet) { t = seconds(packet) }
        let serial = reader.serial
        let back = Int64(1.0 * Double(stream.timeBase.den) / Double(stream.timeBase.num))
        #expect(audio.reposition(at: back))
        #expect(try audio.read(into: packet))
        #expect(seconds(packet) <= 1.0 && seconds(packet) > 0.9)
        #expect(reader.serial == serial)
        // A time the queue does not hold is refused (the caller moves the file instead).
        #expect(!audio.reposition(at: back * 7))
        // A seek moves the file: the serial goes up and the next packet is from the new place. (By the picture's
        // stream, as the player's picture chain seeks: every stream then starts at its keyframe, here at 6 s. Sought
        // by the sound's, the picture would start at the keyframe before — 4 s — and the sound 2 s later in the
        // file:
        // with the picture not played, the sound would be in a gap until something takes the reader on.)
        let video = try #require(facts.video)
        let pictureTime = Int64(6.0 * Double(video.timeBase.den) / Double(video.timeBase.num))
        try audio.seek(streamIndex: video.index, timestamp: pictureTime)
        #expect(reader.serial == serial + 1)
        #expect(try audio.read(into: packet))
        #expect(seconds(packet) >= 5.0 && seconds(packet) < 6.5)
    }
}
