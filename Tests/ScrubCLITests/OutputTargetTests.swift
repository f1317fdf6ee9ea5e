import Foundation
import Testing

/// `-o` never replaces what is not a regular file: a device or FIFO is written into, `-` is standard output, a
/// symbolic link is followed and its target replaced (the link stays).
@Suite struct OutputTargetTests {
    let image = Scrub.packageRoot.appendingPathComponent("samples/image.png").path

    func scratch() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-out-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        ).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    func fileType(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : 0
    }

    @Test func devNullStaysADevice() throws {
        let r = try Scrub.run(["thumb", image, "--max-size", "32", "-o", "/dev/null"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(fileType("/dev/null") == S_IFCHR, "/dev/null is still a character device")
    }

    @Test func aFIFOIsWrittenInto() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/pipe.jpg"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Held open read-write here, so the writer's open never waits for a reader (no hang whatever happens); the
        // picture is read back once scrubkit has exited.
        let fd = open(fifo, O_RDWR | O_NONBLOCK)
        #expect(fd >= 0)
        defer { close(fd) }
        let r = try Scrub.run(["thumb", image, "--max-size", "32", "-o", fifo])
        #expect(r.status == 0, "\(r.stderr)")
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { break }
            bytes += chunk[..<n]
        }
        #expect(bytes.starts(with: [0xFF, 0xD8, 0xFF]), "a JPEG came through the FIFO (\(bytes.count) bytes)")
        #expect(fileType(fifo) == S_IFIFO, "still a FIFO")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["pipe.jpg"], "no temporary file left")
    }

    @Test func dashIsStandardOutput() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sink = dir + "/stdout.bin"
        #expect(FileManager.default.createFile(atPath: sink, contents: nil))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Scrub.binary)
        p.arguments = ["thumb", image, "--max-size", "32", "--format", "png", "-o", "-", "--json"]
        p.standardOutput = FileHandle(forWritingAtPath: sink)
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let out = FileManager.default.contents(atPath: sink) ?? Data()
        #expect(out.starts(with: [0x89, 0x50, 0x4E, 0x47]), "standard output holds the PNG alone")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["stdout.bin"])
        let two = try Scrub.run(["thumb", image, "--at", "1", "--at", "2", "-o", "-"])
        #expect(two.status == 64, "one picture only on standard output")
    }

    @Test func aSymlinkIsFollowedAndKept() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/real", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/links", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: dir + "/real/t.jpg", contents: Data("old".utf8)))
        #expect(symlink("../real/t.jpg", dir + "/links/t.jpg") == 0)
        let r = try Scrub.run(["thumb", image, "--max-size", "32", "-o", dir + "/links/t.jpg"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(fileType(dir + "/links/t.jpg") == S_IFLNK, "the link is still a link")
        let data = FileManager.default.contents(atPath: dir + "/real/t.jpg") ?? Data()
        #expect(data.starts(with: [0xFF, 0xD8, 0xFF]), "its target holds the new JPEG")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir + "/real") == ["t.jpg"], "no temporary file left")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/links") == ["t.jpg"])
    }
}
