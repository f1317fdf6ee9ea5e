import FFmpegBridge
import Foundation

/// The ffmpeg/ffprobe CLIs as reference implementations (installed by tools/setup-deps).
enum Reference {
    static func which(_ tool: String) -> String? {
        for dir in ["/usr/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: "\(dir)/\(tool)") {
            return "\(dir)/\(tool)"
        }
        return nil
    }
    static var available: Bool { which("ffmpeg") != nil && which("ffprobe") != nil }

    static func run(_ tool: String, _ args: [String]) -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: which(tool) ?? "/usr/bin/\(tool)")
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return Data() }
        let d = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return d
    }

    /// Where ``make(_:_:)`` puts what it makes (one directory per test process).
    static let madeDirectory: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-made-\(getpid())")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    /// A file made by the ffmpeg CLI (`args` before the output name), once per test process; nil when ffmpeg failed.
    /// Made aside and renamed: tests run in parallel and may ask for the same file.
    static func make(_ name: String, _ args: [String]) -> String? {
        let out = madeDirectory.appendingPathComponent(name).path
        if !FileManager.default.fileExists(atPath: out) {
            let part = madeDirectory.appendingPathComponent("part-\(UUID().uuidString)-\(name)").path
            _ = run("ffmpeg", ["-v", "error", "-y"] + args + [part])
            _ = rename(part, out)
        }
        return FileManager.default.fileExists(atPath: out) ? out : nil
    }

    /// Presentation times of every video frame, as ffprobe reports them (best-effort timestamps), sorted.
    static func frameTimes(_ path: String) -> [Double] {
        let out = run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time",
                "-of", "csv=p=0", path,
            ])
        return String(decoding: out, as: UTF8.self).split(separator: "\n")
            .compactMap { Double($0.split(separator: ",").first.map(String.init) ?? "") }.sorted()
    }

    /// Presentation times of the key frames, as ffprobe reports them, sorted.
    static func keyframeTimes(_ path: String) -> [Double] {
        let out = run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame,best_effort_timestamp_time",
                "-of", "csv=p=0", path,
            ])
        return String(decoding: out, as: UTF8.self).split(separator: "\n").compactMap { line -> Double? in
            let f = line.split(separator: ",")
            return f.count >= 2 && f[0] == "1" ? Double(f[1]) : nil
        }.sorted()
    }

    /// ffmpeg's render of the frame at `time` (it auto-rotates and honours the frame's matrix/range), scaled to
    /// w×h with the area filter, as packed RGB.
    static func render(
        _ path: String, at time: Double?, width: Int, height: Int, extraFilters: String = "", scaleOptions: String = ""
    ) -> [UInt8] {
        var args = ["-v", "error"]
        if let time { args += ["-ss", String(format: "%.6f", time)] }
        args += [
            "-i", path, "-frames:v", "1", "-vf", "\(extraFilters)scale=\(width):\(height):flags=area\(scaleOptions)",
            "-f", "rawvideo", "-pix_fmt", "rgb24", "-",
        ]
        return [UInt8](run("ffmpeg", args))
    }

    /// Mean absolute difference per channel value.
    static func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        var sum = 0
        for i in 0..<a.count { sum += abs(Int(a[i]) - Int(b[i])) }
        return Double(sum) / Double(a.count)
    }
}
