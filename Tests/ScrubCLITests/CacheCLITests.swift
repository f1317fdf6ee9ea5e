import Foundation
import Testing

/// `--cache` end to end: scrubkit's own cache, the desktop's (freedesktop.org) cache, and `--resume` on changed
/// sources.
/// Each test has its own `XDG_CACHE_HOME`.
@Suite struct CacheCLITests {
    let samples = Scrub.packageRoot.appendingPathComponent("samples")

    func tempDir() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-cachecli-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    func copy(_ sample: String, to path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: samples.appendingPathComponent(sample).path, toPath: path)
    }

    /// Runs a Python 3 script (an independent reader/writer of PNG files) with `args`; returns its standard output.
    func python(_ script: String, _ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script] + args
        let out = Pipe()
        p.standardOutput = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw CocoaError(.fileReadUnknown) }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes a solid-colour PNG with the given text chunks, from scratch (struct + zlib): another program's thumbnail.
    static let writePNG = """
    import struct, sys, zlib
    out, w, h, r, g, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), \
    int(sys.argv[6])
    def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    raw = b"".join(b"\\0" + bytes([r, g, b]) * w for _ in range(h))
    texts = b"".join(chunk(b"tEXt", a.encode("latin-1").replace(b"=", b"\\0", 1)) for a in sys.argv[7:])
    open(out, "wb").write(b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + \
    texts
                         + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    """

    /// Reads a PNG the way a desktop does: prints its text chunks as key=value lines, its mode bits and size.
    static let readPNG = """
    import os, struct, sys, zlib
    data = open(sys.argv[1], "rb").read()
    assert data[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    i, idat = 8, b""
    while i < len(data):
        n, t = struct.unpack(">I4s", data[i:i + 8]); d = data[i + 8:i + 8 + n]
        assert zlib.crc32(t + d) == struct.unpack(">I", data[i + 8 + n:i + 12 + n])[0]
        if t == b"IHDR": print("size=%dx%d" % struct.unpack(">II", d[:8]))
        if t == b"tEXt": k, v = d.split(b"\\0", 1); print(k.decode("latin-1") + "=" + v.decode("latin-1"))
        i += 12 + n
    print("mode=%o" % (os.stat(sys.argv[1]).st_mode & 0o777))
    print("dirmode=%o" % (os.stat(os.path.dirname(sys.argv[1])).st_mode & 0o777))
    """

    /// The spec's name for a file: MD5 of its file:// URI (escaped as GLib does).
    static let specName = """
    import hashlib, os, sys, urllib.parse
    uri = "file://" + urllib.parse.quote(os.path.abspath(sys.argv[1]), safe="!$&'()*+,-./:=@_~")
    print(uri); print(hashlib.md5(uri.encode()).hexdigest())
    """

    @Test func aRepeatedThumbnailIsReadFromTheCacheAndAReplacedFileIsNot() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let env = ["XDG_CACHE_HOME": d + "/cache"]
        let clip = d + "/clip.mp4"
        try copy("h264_gop2s.mp4", to: clip)
        let args = ["thumb", clip, "--at", "3", "--max-size", "96", "--cache", "--json"]
        let first = try Scrub.run(args + ["-o", d + "/a.jpg"], environment: env)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(Scrub.jsonLines(first.stdout).first?["cached"] == nil)
        let second = try Scrub.run(args + ["-o", d + "/b.jpg"], environment: env)
        let j = try #require(Scrub.jsonLines(second.stdout).first)
        #expect(j["cached"] as? Bool == true)
        #expect(j["actualTime"] as? Double == Scrub.jsonLines(first.stdout).first?["actualTime"] as? Double)
        #expect(FileManager.default.contentsEqual(atPath: d + "/a.jpg", andPath: d + "/b.jpg"))
        // `scrubkit cache` shows it; --clear empties it, and the next request is made again.
        let shown = try #require(Scrub.jsonLines(try Scrub.run(["cache", "--json"], environment: env).stdout).first)
        #expect(
            (shown["entries"] as? Int ?? 0) >= 1 && (shown["directory"] as? String)?.hasPrefix(d) == true, "\(shown)")
        let cleared = try #require(
            Scrub.jsonLines(try Scrub.run(["cache", "--clear", "--json"], environment: env).stdout).first)
        #expect(cleared["entries"] as? Int == 0)
        #expect(
            Scrub.jsonLines(try Scrub.run(args + ["-o", d + "/b2.jpg"], environment: env).stdout).first?["cached"]
                == nil)
        // The same path now holds another video: made again.
        try copy("rotated90.mp4", to: clip)
        let third = try Scrub.run(args + ["-o", d + "/c.jpg"], environment: env)
        let k = try #require(Scrub.jsonLines(third.stdout).first)
        #expect(k["cached"] == nil)
        #expect(k["width"] as? Int == 54 && k["height"] as? Int == 96, "\(k)")
    }

    @Test func cacheTroubleIsAWarningNeverAFailedThumbnail() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let clip = samples.appendingPathComponent("h264_gop2s.mp4").path
        // The cache "directory" is a regular file: nothing can be written there.
        try Data("x".utf8).write(to: URL(fileURLWithPath: d + "/not-a-dir"))
        let blocked = try Scrub.run(
            ["thumb", clip, "--at", "2", "--cache", "-o", d + "/x.jpg"],
            environment: ["XDG_CACHE_HOME": d + "/not-a-dir"])
        #expect(blocked.status == 0)
        #expect(blocked.stderr.contains("warning") && blocked.stderr.contains("cache"), "\(blocked.stderr)")
        #expect(FileManager.default.fileExists(atPath: d + "/x.jpg"))
        // A damaged entry: discarded with a warning, and the thumbnail is made again.
        let env = ["XDG_CACHE_HOME": d + "/cache"]
        _ = try Scrub.run(["thumb", clip, "--at", "2", "--cache", "-o", d + "/y.jpg"], environment: env)
        let entries = FileManager.default.enumerator(atPath: d + "/cache/scrubkit/entries")!.compactMap {
            $0 as? String
        }.filter { $0.hasSuffix(".entry") }
        #expect(entries.count == 1)
        let entry = d + "/cache/scrubkit/entries/" + entries[0]
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: entry)))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: entry))
        let damaged = try Scrub.run(
            ["thumb", clip, "--at", "2", "--cache", "--json", "-o", d + "/z.jpg"], environment: env)
        #expect(damaged.status == 0)
        #expect(damaged.stderr.contains("damaged"), "\(damaged.stderr)")
        #expect(Scrub.jsonLines(damaged.stdout).first?["cached"] == nil)
        #expect(FileManager.default.contentsEqual(atPath: d + "/y.jpg", andPath: d + "/z.jpg"))
    }

    @Test func desktopThumbnailsFollowTheSpecAndOtherProgramsThumbnailsAreUsed() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let env = ["XDG_CACHE_HOME": d + "/cache"]
        let clip = d + "/my clip #1.mp4"
        try copy("h264_gop2s.mp4", to: clip)
        let naming = try python(CacheCLITests.specName, [clip]).split(separator: "\n").map(String.init)
        let (uri, md5) = (naming[0], naming[1])
        var st = stat()
        stat(clip, &st)
        let mtime = Int(st.st_mtim.tv_sec)

        // Ours, read by an independent reader with the spec's rules.
        let made = try Scrub.run(
            ["thumb", clip, "--max-size", "200", "--cache", "-o", d + "/ours.jpg"], environment: env)
        #expect(made.status == 0, "\(made.stderr)")
        let png = d + "/cache/thumbnails/large/\(md5).png"
        let attrs = try python(CacheCLITests.readPNG, [png])
        #expect(attrs.contains("Thumb::URI=\(uri)\n"), "\(attrs)")
        #expect(attrs.contains("Thumb::MTime=\(mtime)\n"))
        #expect(attrs.contains("Thumb::Size=\(st.st_size)\n"))
        #expect(attrs.contains("size=256x144"), "largest side 256 for 'large'")
        #expect(attrs.contains("mode=600") && attrs.contains("dirmode=700"))

        // Another program's (solid red) thumbnail for this file, still current: used as it is.
        _ = try python(
            CacheCLITests.writePNG, [png, "256", "144", "255", "0", "0", "Thumb::URI=\(uri)", "Thumb::MTime=\(mtime)"])
        let hit = try Scrub.run(
            ["thumb", clip, "--max-size", "200", "--cache", "--json", "--format", "png", "-o", d + "/hit.png"],
            environment: env)
        let j = try #require(Scrub.jsonLines(hit.stdout).first)
        #expect(j["cached"] as? Bool == true && j["width"] as? Int == 200 && j["height"] as? Int == 113, "\(j)")
        #expect(try centrePixel(d + "/hit.png") == [255, 0, 0])

        // Made before the file last changed (MTime differs): not used, and replaced by a current one.
        _ = try python(
            CacheCLITests.writePNG,
            [png, "256", "144", "255", "0", "0", "Thumb::URI=\(uri)", "Thumb::MTime=\(mtime - 60)"])
        let stale = try Scrub.run(
            ["thumb", clip, "--max-size", "200", "--cache", "--json", "--format", "png", "-o", d + "/stale.png"],
            environment: env)
        #expect(Scrub.jsonLines(stale.stdout).first?["cached"] == nil)
        #expect(try centrePixel(d + "/stale.png") != [255, 0, 0])
        #expect(try python(CacheCLITests.readPNG, [png]).contains("Thumb::MTime=\(mtime)\n"))
    }

    @Test func filesThatCannotBeThumbnailedAreRememberedUntilTheyChange() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let env = ["XDG_CACHE_HOME": d + "/cache"]
        let bad = d + "/bad.mp4"
        try Data(String(repeating: "not a video ", count: 100).utf8).write(to: URL(fileURLWithPath: bad))
        let first = try Scrub.run(["thumb", bad, "--cache", "-o", d + "/x.jpg"], environment: env)
        #expect(first.status == 1)
        let md5 = try python(CacheCLITests.specName, [bad]).split(separator: "\n")[1]
        let version = try Scrub.run(["--version"]).stdout.split(separator: "\n")[0].split(separator: " ")[1]
        let fail = d + "/cache/thumbnails/fail/scrubkit-\(version)/\(md5).png"
        #expect(FileManager.default.fileExists(atPath: fail), "\(fail)")
        let second = try Scrub.run(["thumb", bad, "--cache", "-o", d + "/x.jpg"], environment: env)
        #expect(second.status == 1 && second.stderr.contains("remembered"), "\(second.stderr)")
        // Now a real video at that path: tried again, and it works.
        try copy("h264_gop2s.mp4", to: bad)
        let fixed = try Scrub.run(["thumb", bad, "--cache", "-o", d + "/x.jpg"], environment: env)
        #expect(fixed.status == 0, "\(fixed.stderr)")
    }

    @Test func batchesUseTheCacheAndResumeRedoesReplacedSources() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let env = ["XDG_CACHE_HOME": d + "/cache"]
        let src = d + "/src"
        try FileManager.default.createDirectory(atPath: src, withIntermediateDirectories: true)
        try copy("h264_gop2s.mp4", to: src + "/a.mp4")
        try copy("vfr.mp4", to: src + "/b.mp4")
        let args = ["thumbs", src, "--count", "3", "--max-size", "64"]
        let one = try Scrub.run(args + ["--out", d + "/one", "--cache"], environment: env)
        #expect(one.status == 0, "\(one.stderr)")
        let two = try Scrub.run(args + ["--out", d + "/two", "--cache"], environment: env)
        #expect((two.stdout + two.stderr).components(separatedBy: "(from the cache)").count - 1 == 2, "\(two.stderr)")
        for n in 0..<3 {
            #expect(
                FileManager.default.contentsEqual(atPath: d + "/one/a.mp4-\(n).jpg", andPath: d + "/two/a.mp4-\(n).jpg")
            )
        }
        // --resume: b.mp4 replaced by a portrait clip at the same path is redone; a.mp4 is not.
        try copy("rotated90.mp4", to: src + "/b.mp4")
        let resumed = try Scrub.run(args + ["--out", d + "/one", "--resume"], environment: env)
        let lines = resumed.stdout + resumed.stderr
        #expect(lines.contains("a.mp4: 3 thumbnails (already done)"), "\(lines)")
        #expect(lines.contains("b.mp4: 3 thumbnails in"), "\(lines)")
        let probe = try Scrub.run(["info", d + "/one/b.mp4-0.jpg", "--json"])
        #expect(probe.stdout.contains("\"height\":64"), "\(probe.stdout)")
        // File managers get each file's thumbnail: 300 px thumbnails give the 256 px ("large") desktop one.
        let big = try Scrub.run(
            ["thumbs", src + "/a.mp4", "--count", "3", "--max-size", "300", "--out", d + "/big", "--cache"],
            environment: env)
        #expect(big.status == 0)
        var st = stat()
        stat(src + "/a.mp4", &st)
        let md5 = try python(CacheCLITests.specName, [src + "/a.mp4"]).split(separator: "\n")[1]
        let attrs = try python(CacheCLITests.readPNG, [d + "/cache/thumbnails/large/\(md5).png"])
        #expect(attrs.contains("Thumb::MTime=\(st.st_mtim.tv_sec)\n") && attrs.contains("size=256x144"), "\(attrs)")
    }

    /// Runs mount(8)/umount(8); true when it worked.
    static func system(_ tool: String, _ args: [String]) -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// Whether this machine lets the tests mount a small tmpfs (root with the right to mount).
    static let canMountTmpfs: Bool = {
        guard getuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-mount-probe-\(getpid())")
            .path
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard system("/bin/mount", ["-t", "tmpfs", "-o", "size=16k", "tmpfs", probe]) else { return false }
        return system("/bin/umount", [probe])
    }()

    /// A full disk under the cache: a 64 KiB tmpfs, nearly filled.
    @Test(.enabled(if: CacheCLITests.canMountTmpfs, "needs the right to mount a tmpfs"))
    func aFullDiskIsAWarning() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let mnt = d + "/small"
        try FileManager.default.createDirectory(atPath: mnt, withIntermediateDirectories: true)
        try #require(CacheCLITests.system("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt]))
        defer { _ = CacheCLITests.system("/bin/umount", [mnt]) }
        try Data(count: 60 << 10).write(to: URL(fileURLWithPath: mnt + "/filler"))
        let clip = samples.appendingPathComponent("h264_gop2s.mp4").path
        for extra in [["--at", "2"], []] {
            let r = try Scrub.run(
                ["thumb", clip, "--max-size", "320", "--cache", "-o", d + "/x.jpg"] + extra,
                environment: ["XDG_CACHE_HOME": mnt])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("No space left on device") && r.stderr.contains("warning"), "\(r.stderr)")
        }
        let left = FileManager.default.enumerator(atPath: mnt)!.compactMap { $0 as? String }.filter {
            $0.hasSuffix(".tmp") || $0.hasSuffix(".entry") || $0.hasSuffix(".png")
        }
        #expect(left.isEmpty, "no partial entries: \(left)")
    }

    /// The middle pixel of a PNG, read with `scrubkit thumb --max-size 1` would average; read it with Python instead.
    func centrePixel(_ png: String) throws -> [Int] {
        let script = """
        import struct, sys, zlib
        data = open(sys.argv[1], "rb").read(); i = 8; idat = b""
        while i < len(data):
            n, t = struct.unpack(">I4s", data[i:i + 8]); d = data[i + 8:i + 8 + n]
            if t == b"IHDR": w, h, depth, ctype = struct.unpack(">IIBB", d[:10])
            if t == b"IDAT": idat += d
            i += 12 + n
        assert depth == 8 and ctype == 2
        raw = zlib.decompress(idat); stride = w * 3; rows = []; prev = bytearray(stride)
        for y in range(h):
            f = raw[y * (stride + 1)]; line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
            for x in range(stride):
                a = line[x - 3] if x >= 3 else 0; b = prev[x]; c = prev[x - 3] if x >= 3 else 0
                if f == 1: line[x] = (line[x] + a) & 255
                elif f == 2: line[x] = (line[x] + b) & 255
                elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
                elif f == 4:
                    p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            rows.append(line); prev = line
        m = rows[h // 2]; print(m[(w // 2) * 3], m[(w // 2) * 3 + 1], m[(w // 2) * 3 + 2])
        """
        return try python(script, [png]).split(separator: " ").compactMap { Int($0) }
    }
}

/// The shipped `share/thumbnailers/scrubkit.thumbnailer`, run the way a file manager runs it.
@Suite struct ThumbnailerEntryTests {
    @Test func itsExecLineMakesAPNGOfTheAskedSize() throws {
        let entry = try String(
            contentsOf: Scrub.packageRoot.appendingPathComponent("share/thumbnailers/scrubkit.thumbnailer"),
            encoding: .utf8)
        #expect(entry.hasPrefix("[Thumbnailer Entry]\n"))
        let exec = try #require(entry.split(separator: "\n").first { $0.hasPrefix("Exec=") }).dropFirst("Exec=".count)
        let mime = try #require(entry.split(separator: "\n").first { $0.hasPrefix("MimeType=") })
        #expect(mime.contains("video/mp4;") && mime.contains("video/x-matroska;") && mime.contains("image/heic;"))
        let d = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-thumbnailer-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: d) }
        for (sample, size) in [("rotated90.mp4", 128), ("h264_gop2s.mp4", 256)] {
            // Desktops pass the output as a temporary name, not always ending in .png.
            let out = d + "/out-\(size).tmp"
            let words = exec.split(separator: " ").map { w -> String in
                switch w {
                case "%i": return Scrub.packageRoot.appendingPathComponent("samples/\(sample)").path
                case "%o": return out
                case "%s": return String(size)
                default: return String(w)
                }
            }
            #expect(words.first == "scrubkit")
            let r = try Scrub.run(Array(words.dropFirst()))
            #expect(r.status == 0, "\(r.stderr)")
            let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            let w = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, h = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(max(w, h) == size, "\(sample): \(w)×\(h)")
        }
    }
}
