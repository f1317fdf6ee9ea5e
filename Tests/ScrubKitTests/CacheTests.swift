import FFmpegBridge
import Foundation
import MediaTime
@testable import ScrubKit
import Synchronization
import Testing

private func tempDir() throws -> String {
    let d = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-cache-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
    return d
}

private func s(_ v: Int64, _ scale: Int32 = 1) -> MediaTime { MediaTime(value: v, timescale: scale) }

struct MemoryCacheTests {
    @Test func evictsTheLeastRecentlyUsedUnderTheBudget() {
        let c = MemoryCache<String, Int>(budget: 100)
        c.insert(1, for: "a", cost: 40)
        c.insert(2, for: "b", cost: 40)
        #expect(c.value(for: "a") == 1)          // a is now the most recent
        c.insert(3, for: "c", cost: 40)          // 120 > 100: b (least recent) goes
        #expect(c.value(for: "b") == nil)
        #expect(c.value(for: "a") == 1 && c.value(for: "c") == 3)
        #expect(c.totalCost == 80 && c.count == 2)
        #expect(c.keysByRecency == ["c", "a"])
        #expect(c.statistics.evictions == 1)
    }

    @Test func replacingAnEntryUpdatesItsCostAndAnOversizedOneIsNotKept() {
        let c = MemoryCache<String, Int>(budget: 100)
        c.insert(1, for: "a", cost: 60)
        c.insert(2, for: "a", cost: 10)
        #expect(c.totalCost == 10 && c.value(for: "a") == 2)
        c.insert(3, for: "big", cost: 101)
        #expect(c.value(for: "big") == nil && c.value(for: "a") == 2, "a too-big value neither stays nor evicts others")
        c.removeValue(for: "a")
        #expect(c.count == 0 && c.totalCost == 0)
    }

    @Test func manyThreadsKeepItConsistent() {
        let c = MemoryCache<Int, [UInt8]>(budget: 10_000)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for i in 0..<3000 {
                let k = (i * 7 + worker) % 300
                if c.value(for: k) == nil {
                    c.insert([UInt8](repeating: UInt8(k % 256), count: 50 + k % 100), for: k, cost: 50 + k % 100)
                }
                if i % 97 == 0 { c.removeValue(for: k) }
            }
        }
        #expect(c.totalCost <= 10_000)
        #expect(c.keysByRecency.count == c.count)
        // Every value is the one stored for its key.
        for k in c.keysByRecency {
            #expect(c.value(for: k).map { $0.count == 50 + k % 100 && $0.first == UInt8(k % 256) } == true)
        }
    }
}

struct DiskCacheTests {
    @Test func roundTripsAndSurvivesANewInstance() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let payload = (0..<5000).map { UInt8($0 % 251) }
        #expect(DiskCache(directory: d, budget: 1 << 20).store(payload, for: "k1"))
        let again = DiskCache(directory: d, budget: 1 << 20)
        #expect(again.bytes(for: "k1") == payload)
        #expect(again.bytes(for: "k2") == nil)
        var st = stat()
        #expect(stat(again.entryPath(for: "k1"), &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(stat(d + "/entries", &st) == 0 && st.st_mode & 0o777 == 0o700)
    }

    @Test func damagedOrCutEntriesAreDiscardedNeverServed() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let warnings = Mutex<[String]>([])
        let c = DiskCache(directory: d, budget: 1 << 20, warn: { m in warnings.withLock { $0.append(m) } })
        let payload = [UInt8](repeating: 7, count: 1000)
        c.store(payload, for: "flip")
        c.store(payload, for: "cut")
        // One byte of the payload changed (bit rot), one entry cut short (a torn write).
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: c.entryPath(for: "flip"))))
        bytes[bytes.count - 10] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: c.entryPath(for: "flip")))
        let cut = try [UInt8](Data(contentsOf: URL(fileURLWithPath: c.entryPath(for: "cut"))))
        try Data(cut.prefix(cut.count - 100)).write(to: URL(fileURLWithPath: c.entryPath(for: "cut")))
        #expect(c.bytes(for: "flip") == nil)
        #expect(c.bytes(for: "cut") == nil)
        #expect(!FileManager.default.fileExists(atPath: c.entryPath(for: "flip")), "a damaged entry is removed")
        #expect(c.statistics.discarded == 2)
        #expect(warnings.withLock { $0.count } == 1, "one warning per kind of trouble")
    }

    @Test func noDamageAnywhereInAnEntryIsServedOrCrashes() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let c = DiskCache(directory: d, budget: 1 << 20)
        let payload = (0..<64).map { UInt8($0) }
        c.store(payload, for: "k")
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: c.entryPath(for: "k"))))
        // Every byte of the entry (header lengths included) with each of three bit patterns flipped.
        for i in 0..<good.count {
            for flip: UInt8 in [0x80, 0x01, 0xFF] {
                var bad = good
                bad[i] ^= flip
                #expect(DiskCache.decode(bad, key: Array("k".utf8)) == nil, "byte \(i) ^ \(flip)")
            }
        }
        for n in 0..<good.count { #expect(DiskCache.decode(Array(good.prefix(n)), key: Array("k".utf8)) == nil) }
        #expect(DiskCache.decode(good, key: Array("k".utf8)) == payload)
        // And the payloads a thumbnail cache and a batch keep, cut short: nothing decodes from them.
        let thumb = Thumbnail(
            requestedTime: s(1), actualTime: s(1), image: RGBImage(width: 2, height: 2), orientation: .identity,
            isExact: true)
        let bytes = ThumbnailCache.encodeThumbnail(thumb)
        #expect(ThumbnailCache.decodeThumbnail(bytes)?.image == thumb.image)
        for n in 0..<bytes.count { #expect(ThumbnailCache.decodeThumbnail(Array(bytes.prefix(n))) == nil) }
    }

    @Test func anEntryOfAnotherKeyAtTheSamePathIsAMiss() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let c = DiskCache(directory: d, budget: 1 << 20)
        c.store([1, 2, 3], for: "other")
        // Pretend "mine" hashes to the same file: copy other's entry there.
        try DiskCache.makeDirectories((c.entryPath(for: "mine") as NSString).deletingLastPathComponent)
        try FileManager.default.copyItem(atPath: c.entryPath(for: "other"), toPath: c.entryPath(for: "mine"))
        #expect(c.bytes(for: "mine") == nil)
    }

    @Test func sweepsTheLeastRecentlyUsedDownUnderTheBudget() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let c = DiskCache(directory: d, budget: 100_000)
        let blob = [UInt8](repeating: 1, count: 9_000)
        for i in 0..<8 { c.store(blob, for: "e\(i)") }
        // Make e0 the most recently used: older modification times for the others.
        for i in 1..<8 {
            var times = [timespec(tv_sec: 1_000_000 + i, tv_nsec: 0), timespec(tv_sec: 1_000_000 + i, tv_nsec: 0)]
            utimensat(AT_FDCWD, c.entryPath(for: "e\(i)"), &times, 0)
        }
        #expect(c.bytes(for: "e0") != nil)
        for i in 8..<14 { c.store(blob, for: "e\(i)") }   // 14 × ~9 KB > 100 KB: a sweep runs
        let u = c.usage()
        #expect(u.bytes <= 100_000, "\(u)")
        #expect(c.bytes(for: "e0") != nil, "recently used survives")
        #expect(c.bytes(for: "e1") == nil, "the least recently used went first")
        #expect(c.bytes(for: "e13") != nil)
    }

    @Test func anUnwritableDirectoryIsAWarningAndAMiss() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let file = d + "/plain-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let warnings = Mutex<[String]>([])
        let c = DiskCache(
            directory: file + "/cache", budget: 1 << 20, warn: { m in warnings.withLock { $0.append(m) } })
        #expect(!c.store([1, 2, 3], for: "k"))
        #expect(!c.store([1, 2, 3], for: "k2"))
        #expect(c.bytes(for: "k") == nil)
        #expect(warnings.withLock { $0.count } == 1 && warnings.withLock { $0[0] }.contains("cannot write"))
    }
}

struct SourceIdentityTests {
    @Test func seesRewritesTouchesAndRenamesOver() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let f = d + "/clip.mp4"
        try Data("first".utf8).write(to: URL(fileURLWithPath: f))
        let a = try #require(SourceIdentity(path: f))
        #expect(SourceIdentity(path: f) == a)
        // Same size, modification time put back: the change time still moves.
        var st = stat(); stat(f, &st)
        usleep(20_000)
        try Data("frist".utf8).write(to: URL(fileURLWithPath: f))
        var times = [st.st_atim, st.st_mtim]
        utimensat(AT_FDCWD, f, &times, 0)
        let b = try #require(SourceIdentity(path: f))
        #expect(b.modified == a.modified && b.size == a.size)
        #expect(b != a)
        // Another file renamed over the path.
        try Data("other".utf8).write(to: URL(fileURLWithPath: d + "/new"))
        rename(d + "/new", f)
        #expect(SourceIdentity(path: f)?.inode != a.inode)
        #expect(SourceIdentity(path: "https://example.com/a.mp4") == nil)
        #expect(SourceIdentity(path: d) == nil, "a directory has no identity")
    }
}

struct PNGTextTests {
    @Test func addsAndReadsTextChunks() throws {
        let png = try RGBImage(width: 4, height: 3).encoded(as: .png)
        let tagged = try #require(
            PNGText.adding([("Thumb::URI", "file:///a%20b.mp4"), ("Thumb::MTime", "1234")], to: png))
        #expect(PNGText.attributes(of: tagged) == ["Thumb::URI": "file:///a%20b.mp4", "Thumb::MTime": "1234"])
        // Still a PNG that decodes.
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        try Data(tagged).write(to: URL(fileURLWithPath: d + "/t.png"))
        let t = try ThumbnailGenerator(path: d + "/t.png").image(at: .absolute(.zero))
        #expect(t.image.width == 4 && t.image.height == 3)
        // A flipped bit in a text chunk fails its CRC.
        var bad = tagged
        bad[40] ^= 1
        #expect(PNGText.attributes(of: bad) == nil)
        #expect(PNGText.attributes(of: Array("not a png at all, not at all, no".utf8)) == nil)
    }
}

struct DesktopThumbnailTests {
    @Test func urisAndNamesFollowGLibAndTheSpec() {
        // What GLib's g_filename_to_uri gives for this name (checked with python3-gi).
        #expect(DesktopThumbnails.uri(forPath: "/tmp/a b#?;%[]!$&'()*+,=:@~_Été日.mp4")
                == "file:///tmp/a%20b%23%3F%3B%25%5B%5D!$&'()*+,=:@~_%C3%89t%C3%A9%E6%97%A5.mp4")
        // RFC 1321's test vectors.
        #expect(Checksum.md5Hex([]) == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(Checksum.md5Hex(Array("abc".utf8)) == "900150983cd24fb0d6963f7d28e17f72")
        let desk = DesktopThumbnails(root: "/c/thumbnails", application: "scrubkit-1")
        #expect(desk.thumbnailPath(uri: "file:///home/jens/photos/me.png", flavor: .normal)
                == "/c/thumbnails/normal/c6ee772d9e49320e97ec29a7eb5b1697.png")   // the spec's own example
        #expect(DesktopThumbnails.Flavor.covering(200) == .large && DesktopThumbnails.Flavor.covering(1025) == nil)
    }
}

@Suite(.enabled(if: Corpus.samplesAvailable, "needs samples/"))
struct ThumbnailCacheTests {
    @Test func aRepeatedRequestIsServedAndAChangedFileIsNot() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let clip = d + "/clip.mp4"
        try FileManager.default.copyItem(atPath: Corpus.sample("h264_gop2s.mp4"), toPath: clip)
        let cache = ThumbnailCache(directory: d + "/cache")
        var gen = ThumbnailGenerator(path: clip)
        gen.maximumSize = .longestSide(64)
        gen.cache = cache
        let first = try gen.image(at: .absolute(s(3)))
        #expect(cache.memory.statistics.hits == 0 && cache.memory.count == 1)
        let second = try gen.image(at: .absolute(s(3)))
        #expect(cache.memory.statistics.hits == 1)
        #expect(second.image == first.image && second.actualTime == first.actualTime)
        // Another setting is another entry.
        var exact = gen
        exact.setExact()
        _ = try exact.image(at: .absolute(s(3)))
        #expect(cache.memory.count == 2)
        // A fresh process (new memory tier) finds it on disk.
        var fresh = gen
        fresh.cache = ThumbnailCache(directory: d + "/cache")
        let fromDisk = try fresh.image(at: .absolute(s(3)))
        #expect(fresh.cache!.disk!.statistics.hits == 1)
        #expect(
            fromDisk.image == first.image && fromDisk.actualTime == first.actualTime
                && fromDisk.orientation == first.orientation)
        // The file replaced by another clip at the same path: made again, from the new file.
        try FileManager.default.removeItem(atPath: clip)
        try FileManager.default.copyItem(atPath: Corpus.sample("rotated90.mp4"), toPath: clip)
        let replaced = try gen.image(at: .absolute(s(1)))
        let direct = try { var g = gen; g.cache = nil; return try g.image(at: .absolute(s(1))) }()
        #expect(replaced.image == direct.image)
        #expect(replaced.image.height == 64, "portrait now")
        let again = try gen.image(at: .absolute(s(3)))
        #expect(again.image != first.image)
    }

    @Test func scrubbingBackRepaintsFromThePreviewCache() async throws {
        let pipe = FilePlayback(path: Corpus.sample("h264_gop2s.mp4"))
        defer { pipe.close() }
        let loaded: Result<PlayerMediaInfo, MediaError> = await withCheckedContinuation { c in
            pipe.load { c.resume(returning: $0) }
        }
        _ = try loaded.get()
        pipe.setOutputSize(width: 64, height: 36)
        func seek(_ t: MediaTime) async -> MediaTime? {
            await withCheckedContinuation { c in
                pipe.seek(to: t, toleranceBefore: .positiveInfinity, toleranceAfter: .zero) { c.resume(returning: $0) }
            }
        }
        let a = try #require(await seek(s(5)))
        let pictureA = try #require(pipe.takeFrame(atOrBefore: a))
        let before = pipe.previewStatistics
        let b = try #require(await seek(s(1)))
        #expect(pipe.takeFrame(atOrBefore: b) != nil)
        let a2 = try #require(await seek(s(5)))
        let pictureA2 = try #require(pipe.takeFrame(atOrBefore: a2))
        let after = pipe.previewStatistics
        #expect(after.decoded - before.decoded == 1, "only the seek to 1 s was decoded")
        #expect(after.fromCache - before.fromCache == 1)
        #expect(a2 == a && pictureA2.time == pictureA.time && pictureA2.image == pictureA.image)
        // Playing on from there: the decoder is positioned after the cached picture.
        var next: VideoFrame? = nil
        let end = Date().addingTimeInterval(5)
        // Looks once more after the deadline: a task starved by the suite's synchronous tests may wake past it.
        while next == nil {
            let late = Date() >= end
            next = pipe.takeFrame(atOrBefore: a + s(1))
            if next != nil || late { break }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(next.map { $0.time > a } == true, "\(String(describing: next?.time))")
    }
}

/// One builder for what decides the pixels: the cache key and the batch signature both come from it.
@Suite struct SettingsKeyTests {
    @Test func theBatchSignatureFollowsEveryGeneratorSettingItSets() throws {
        let base = BatchOptions(outputDirectory: "/tmp/x")
        var variants: [BatchOptions] = []
        var o = base; o.maximumSize = .longestSide(100); variants.append(o)
        o = base; o.toleranceBefore = .zero; variants.append(o)
        o = base; o.toleranceAfter = MediaTime(value: 1, timescale: 1); variants.append(o)
        o = base; o.acceptsApproximateFrames = true; variants.append(o)
        o = base; o.selectsRepresentativeFrames = !base.selectsRepresentativeFrames; variants.append(o)
        o = base; o.format = .png; variants.append(o)
        o = base; o.quality = 50; variants.append(o)
        o = base; o.times = .count(3); variants.append(o)
        let signatures = variants.map(\.signature)
        #expect(Set(signatures).count == variants.count && !signatures.contains(base.signature), "\(signatures)")
        #expect(
            base.signature == BatchOptions(outputDirectory: "/elsewhere").signature,
            "the output directory is not a setting")
        // The generator-side part is the generator's own settings key, the one the cache key is built from.
        let gen = base.generator(for: "/a.mp4", parallelFiles: 1)
        #expect(base.signature.contains(gen.settingsKey.joined(separator: "|")))
        let identity = try #require(SourceIdentity(path: Corpus.sample("image.png")))
        let key = gen.cacheKey(for: .absolute(.zero), identity: identity)
        #expect(key.parts == [TimeExpression.absolute(.zero).description] + gen.settingsKey)
        // Entry names on disk are what earlier releases wrote (a user's cache stays valid across the key type).
        #expect(
            key.description == (["pixels", "v1", identity.description, "0s"] + gen.settingsKey).joined(separator: "|"))
        #expect(
            gen.fileCacheKey(for: .absolute(.zero), format: .png, quality: 80, identity: identity, via: "desktop:s")
                .description
                == (["file", "v1", identity.description, "0s"] + gen.settingsKey + ["png", "q80", "desktop:s"]).joined(
                    separator: "|"))
    }
}
