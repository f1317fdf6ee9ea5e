import Foundation
import Testing
@testable import ScrubKit

@Suite struct PlaylistTests {
    func folder(_ files: [String]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-pl-\(UUID().uuidString.prefix(8))"
        ).path
        for f in files {
            let path = "\(dir)/\(f)"
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try #require(FileManager.default.createFile(atPath: path, contents: Data()))
        }
        return dir
    }

    @Test func aFolderGivesItsPlayableFilesInNaturalOrder() throws {
        let dir = try folder([
            "clip10.mp4", "clip2.MKV", "Clip1.webm", "song.flac", "cover.jpg", "notes.txt", ".hidden.mp4",
            "sub/clip0.mp4",
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let names = try Playlist.entries(of: [dir]).map { String($0.dropFirst(dir.count + 1)) }
        #expect(names == ["Clip1.webm", "clip2.MKV", "clip10.mp4", "song.flac"])
        let all = try Playlist.entries(of: [dir], recursive: true).map { String($0.dropFirst(dir.count + 1)) }
        #expect(all == ["Clip1.webm", "clip2.MKV", "clip10.mp4", "song.flac", "sub/clip0.mp4"])
        let empty = try folder(["a.txt"])
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(throws: MediaError.self) { try Playlist.entries(of: [empty]) }
    }

    @Test func anM3ULists() throws {
        let dir = try folder(["a.mp4", "b.mp4", "inner/c.mp4"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "#EXTM3U\n#EXTINF:1,c\nc.mp4\n".write(toFile: "\(dir)/inner/list.m3u8", atomically: true, encoding: .utf8)
        let list = "\u{FEFF}#EXTM3U\r\n# a comment\r\na.mp4\r\n\r\nfile://\(dir)/b.mp4\r\ninner/list.m3u8\r\n"
            + "http://127.0.0.1:9/x.mp4\r\n"
        try list.write(toFile: "\(dir)/list.m3u", atomically: true, encoding: .utf8)
        let entries = try Playlist.entries(of: ["\(dir)/list.m3u"])
        #expect(entries == ["\(dir)/a.mp4", "\(dir)/b.mp4", "\(dir)/inner/c.mp4", "http://127.0.0.1:9/x.mp4"])
        // An HLS playlist is a stream FFmpeg plays, not a list of files.
        try "#EXTM3U\n#EXT-X-TARGETDURATION:2\nseg0.ts\n".write(
            toFile: "\(dir)/stream.m3u8", atomically: true, encoding: .utf8)
        #expect(try Playlist.entries(of: ["\(dir)/stream.m3u8"]) == ["\(dir)/stream.m3u8"])
        // A list naming itself ends with an error, not a hang.
        try "self.m3u\n".write(toFile: "\(dir)/self.m3u", atomically: true, encoding: .utf8)
        #expect(throws: MediaError.self) { try Playlist.entries(of: ["\(dir)/self.m3u"]) }
    }

    @Test func advancingStopsAtTheEndsUnlessItLoops() {
        var p = Playlist(entries: ["a", "b", "c"], start: 1)
        #expect(p.current == "b" && p.position == "2/3")
        #expect(p.advance(by: 1) && p.current == "c")
        #expect(!p.advance(by: 1) && p.current == "c")
        #expect(p.advance(by: -2) && p.current == "a")
        #expect(!p.advance(by: -1) && p.current == "a")
        p.loops = true
        #expect(p.advance(by: -1) && p.current == "c")
        #expect(p.advance(by: 1) && p.current == "a")
        #expect(Playlist(entries: ["a"], start: 9).current == "a")
    }

    @Test func shufflingKeepsEveryEntry() {
        struct Counter: RandomNumberGenerator {
            var n: UInt64 = 0; mutating func next() -> UInt64 { n &+= 0x9E37_79B9_7F4A_7C15; return n }
        }
        var p = Playlist(entries: (1...20).map(String.init), start: 5)
        var g = Counter()
        p.shuffle(using: &g)
        #expect(p.entries.sorted() == (1...20).map(String.init).sorted() && p.entries != (1...20).map(String.init))
        #expect(p.index == 0)
    }
}
