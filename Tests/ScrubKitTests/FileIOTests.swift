import Foundation
@testable import ScrubKit
import ScrubTerminal
import Testing

/// The file-I/O fence: whole writes, replaces that leave nothing half-done, failures named by step.
@Suite struct FileIOTests {
    static func tempDir() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-fileio-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    @Test func temporaryFilesAreHiddenBesideTheTargetAndNamedForTheirOwner() throws {
        let d = try Self.tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let tmp = FileIO.temporaryPath(beside: d + "/out.gif")
        let name = (tmp as NSString).lastPathComponent
        #expect((tmp as NSString).deletingLastPathComponent == d, "beside it: one file system, an atomic rename")
        #expect(name.hasPrefix(".out.gif.\(FileIO.ownerMarker)~\(getpid()).") && name.hasSuffix(".tmp"), "\(name)")
        #expect(FileIO.temporaryPath(beside: d + "/out.gif") != tmp, "two writers never share one")
        // The sweep reads the names it makes: ours while we live stays; ours of a gone process goes.
        _ = FileManager.default.createFile(atPath: tmp, contents: Data([1]))
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run(); gone.waitUntilExit()
        let dead = d + "/.x.jpg.\(FileIO.ownerMarker)~\(gone.processIdentifier).7.tmp"
        _ = FileManager.default.createFile(atPath: dead, contents: Data([1]))
        FileIO.removeStaleTemporaryFiles(in: d)
        #expect(FileManager.default.fileExists(atPath: tmp))
        #expect(!FileManager.default.fileExists(atPath: dead))
    }

    @Test func replaceWritesTheWholeFileAndLeavesNoTemporary() throws {
        let d = try Self.tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let target = d + "/out.bin"
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try "old".write(toFile: target, atomically: false, encoding: .utf8)
        for durability in [FileIO.Durability.none, .data] {
            try FileIO.replace(target, with: bytes, temporary: d + "/.out.tmp", mode: 0o600, durability: durability)
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: target))) == bytes)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: d) == ["out.bin"])
        var st = stat()
        #expect(stat(target, &st) == 0 && st.st_mode & 0o777 == 0o600)
    }

    @Test func aFailedReplaceNamesItsStepAndRemovesTheTemporary() throws {
        let d = try Self.tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        // The target is a directory that is not empty: the rename fails, after the temporary was written.
        try FileManager.default.createDirectory(atPath: d + "/busy/inside", withIntermediateDirectories: true)
        #expect(throws: FileIO.Failure.self) {
            try FileIO.replace(
                d + "/busy", with: [1, 2, 3], temporary: d + "/.busy.tmp", mode: 0o644, durability: .data)
        }
        do {
            try FileIO.replace(d + "/busy", with: [1], temporary: d + "/.busy.tmp", mode: 0o644, durability: .none)
        } catch {
            #expect(
                error.step == .rename && (error.errno == EISDIR || error.errno == ENOTEMPTY), "\(error.step) \(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: d + "/.busy.tmp"), "temporary removed")
        // A temporary that cannot be created (no such directory).
        do {
            try FileIO.replace(d + "/none/x", with: [1], temporary: d + "/none/.x.tmp", mode: 0o644, durability: .none);
            Issue.record("no error")
        } catch { #expect(error.step == .create && error.errno == ENOENT) }
    }

    @Test func writeAllSendsEveryByteThroughAPipeAndReportsAClosedOne() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let bytes = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0) }   // far more than a pipe holds at once
        let received = ManagedBox()
        let readEnd = fds[0]
        let reader = Thread {
            var all: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 65536)
            while true { let n = read(readEnd, &buf, buf.count); if n <= 0 { break }; all += buf[0..<n] }
            received.set(all)
        }
        reader.start()
        #expect(FileIO.writeAll(bytes, to: fds[1]) == nil)
        close(fds[1])
        #expect(received.wait() == bytes)
        close(fds[0])
        // A descriptor that is not open. (Not fds[1] again: tests run in parallel, and its number may already be
        // another test's new pipe — this "x" once landed in terminalInputTimesOutThenReadsThenSeesTheEnd's.)
        let failure = FileIO.writeAll("x", to: -1)
        #expect(failure?.step == .write && failure?.errno == EBADF)
    }

    @Test func readExactlyGivesNilShortOfTheCount() throws {
        let d = try Self.tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        try Data([1, 2, 3, 4]).write(to: URL(fileURLWithPath: d + "/f"))
        let fd = open(d + "/f", O_RDONLY); defer { close(fd) }
        #expect(FileIO.readExactly(fd, count: 3) == [1, 2, 3])
        #expect(FileIO.readExactly(fd, count: 2) == nil, "only one byte left")
    }

    @Test func appendAddsWholeLinesAfterOthers() throws {
        let d = try Self.tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        for i in 0..<3 { #expect(FileIO.append(Array("line \(i)\n".utf8), toFileAt: d + "/j", mode: 0o644) == nil) }
        #expect(try String(contentsOfFile: d + "/j", encoding: .utf8) == "line 0\nline 1\nline 2\n")
    }

    @Test func terminalInputTimesOutThenReadsThenSeesTheEnd() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]) }
        #expect(TerminalInput.read(fds[0], waitingAtMost: 20) == .timedOut)
        _ = FileIO.writeAll("q", to: fds[1])
        #expect(TerminalInput.read(fds[0], waitingAtMost: 1000) == .bytes([UInt8(ascii: "q")]))
        close(fds[1])
        #expect(TerminalInput.read(fds[0], waitingAtMost: 1000) == .closed)
    }
}

/// A value handed from a thread, waited for.
private final class ManagedBox: @unchecked Sendable {   // guarded by `done`: set once before signal, read after wait
    private var value: [UInt8] = []
    private let done = DispatchSemaphore(value: 0)
    func set(_ v: [UInt8]) { value = v; done.signal() }
    func wait() -> [UInt8] { done.wait(); return value }
}
