import FFmpegBridge
import Foundation
import MediaTime

/// What one benchmark mode does with a file.
public enum BenchMode: String, Sendable, CaseIterable {
    /// Decode the full picture and keep it as RGBA (what a naive app holds).
    case fullRGBA = "full-rgba"
    /// Downsample to 1600 px / 320 px with shrink-on-load (JPEG `lowres`) where it applies …
    case fit1600 = "1600px"
    case fit320 = "320px"
    /// … and without it (JPEG only: the difference is the point).
    case fit1600NoShrink = "1600px-no-shrink"
    case fit320NoShrink = "320px-no-shrink"

    /// The modes worth running for a file.
    public static func modes(isStill: Bool) -> [BenchMode] {
        isStill ? [.fullRGBA, .fit1600NoShrink, .fit1600, .fit320NoShrink, .fit320] : [.fullRGBA, .fit1600, .fit320]
    }
}

/// One measurement, taken inside the child process that did the work.
public struct BenchSample: Sendable {
    /// The mode measured.
    public var mode: BenchMode
    /// The input file.
    public var path: String
    /// Width of the result in pixels.
    public var width: Int
    /// Height of the result in pixels.
    public var height: Int
    /// Seconds of work (open, decode, scale), start-up excluded.
    public var seconds: Double
    /// Resident memory before the work (process and libraries loaded), at its peak, and with the result held.
    public var baselineRSS: Int
    /// Peak resident bytes during the work.
    public var peakRSS: Int
    /// Resident bytes with the result held.
    public var steadyRSS: Int
    /// Bytes of the result as RGBA (w × h × 4): the floor no implementation can go under while holding it.
    public var theoreticalBytes: Int { width * height * 4 }
    /// Bytes held above the baseline with the result.
    public var aboveBaseline: Int { steadyRSS - baselineRSS }
    /// Peak bytes above the baseline.
    public var peakAboveBaseline: Int { peakRSS - baselineRSS }

    /// The sample as the child process reports it.
    public var json: JSON {
        .object([
            ("mode", .string(mode.rawValue)), ("path", .string(path)), ("width", .int(width)), ("height", .int(height)),
            ("seconds", .double(seconds)), ("baselineRSS", .int(baselineRSS)), ("peakRSS", .int(peakRSS)),
            ("steadyRSS", .int(steadyRSS)), ("theoreticalBytes", .int(theoreticalBytes)),
        ])
    }

    /// A sample read back from a child's JSON; nil when a field is missing.
    public init?(json obj: [String: Any]) {
        guard let m = (obj["mode"] as? String).flatMap(BenchMode.init(rawValue:)), let p = obj["path"] as? String,
            let w = obj["width"] as? Int, let h = obj["height"] as? Int,
            let s = (obj["seconds"] as? Double) ?? (obj["seconds"] as? Int).map(Double.init),
            let b = obj["baselineRSS"] as? Int, let pk = obj["peakRSS"] as? Int, let st = obj["steadyRSS"] as? Int
        else { return nil }
        (mode, path, width, height, seconds, baselineRSS, peakRSS, steadyRSS) = (m, p, w, h, s, b, pk, st)
    }

    init(
        mode: BenchMode, path: String, width: Int, height: Int, seconds: Double, baselineRSS: Int, peakRSS: Int,
        steadyRSS: Int
    ) {
        (self.mode, self.path, self.width, self.height, self.seconds) = (mode, path, width, height, seconds)
        (self.baselineRSS, self.peakRSS, self.steadyRSS) = (baselineRSS, peakRSS, steadyRSS)
    }
}

/// Decode vs downsample, measured properly: each mode runs in a fresh process (see `scrubkit bench`); this is the
/// part that runs inside it.
public enum DecodeBenchmark {
    /// Resident and peak resident memory of this process, from /proc/self/status (bytes).
    public static func memory() -> (rss: Int, peak: Int) {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        func kb(_ key: String) -> Int {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return 0 }
            return (Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0)
                * 1024
        }
        return (kb("VmRSS:"), kb("VmHWM:"))
    }

    /// Runs `mode` on `path` in this process and measures it, holding the result until measured.
    public static func measure(_ mode: BenchMode, path: String) throws -> BenchSample {
        // Warm the libraries the work uses (code pages, first allocations) so the baseline is "ready to work".
        _ = ImageFormat.png.isAvailable
        let baseline = memory().rss
        let clock = SystemClock()
        let start = clock.now()
        var held: [UInt8] = []
        var size = (0, 0)
        switch mode {
        case .fullRGBA:
            let source = try VideoSource(path: path, pixelLimit: MediaInspector.defaultPixelLimit)
            let extractor = try FrameExtractor(source: source, plan: DecodePlan())
            let t = source.isStill ? MediaTime.zero : try source.resolve(.fraction(numerator: 1, denominator: 2))
            let found = try extractor.frame(
                at: t, toleranceBefore: .positiveInfinity, toleranceAfter: .positiveInfinity)
            let (w, h) = (found.frame.width, found.frame.height)
            held = try Scaler().rgba(from: found.frame, width: w, height: h)
            size = (w, h)
        case .fit1600, .fit320, .fit1600NoShrink, .fit320NoShrink:
            var g = ThumbnailGenerator(path: path)
            g.maximumSize = .longestSide(mode == .fit1600 || mode == .fit1600NoShrink ? 1600 : 320)
            g.allowsShrinkOnLoad = mode == .fit1600 || mode == .fit320
            g.setFastest()
            let thumb = try g.image(at: .fraction(numerator: 1, denominator: 2))
            // Held as RGBA, like the full mode, so the two compare like for like.
            held = [UInt8](repeating: 255, count: thumb.image.width * thumb.image.height * 4)
            for i in 0..<(thumb.image.width * thumb.image.height) {
                held[i * 4] = thumb.image.pixels[i * 3]
                held[i * 4 + 1] = thumb.image.pixels[i * 3 + 1]
                held[i * 4 + 2] = thumb.image.pixels[i * 3 + 2]
            }
            size = (thumb.image.width, thumb.image.height)
        }
        let seconds = clock.now() - start
        let after = memory()
        withExtendedLifetime(held) {}
        return BenchSample(mode: mode, path: path, width: size.0, height: size.1, seconds: seconds,
                           baselineRSS: baseline, peakRSS: after.peak, steadyRSS: after.rss)
    }

    /// Generates the default inputs in `directory` unless present: a 6048×4024 JPEG (the size of the well-known
    /// downsampling write-up) and a 2 s 4K H.264 clip. Returns their paths.
    public static func defaultInputs(in directory: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let jpeg = (directory as NSString).appendingPathComponent("photo-6048x4024.jpg")
        let clip = (directory as NSString).appendingPathComponent("clip-3840x2160-h264.mp4")
        if !FileManager.default.fileExists(atPath: jpeg) {
            try AtomicFile.write(pattern(width: 6048, height: 4024, frame: 0).encoded(as: .jpeg, quality: 90), to: jpeg)
        }
        if !FileManager.default.fileExists(atPath: clip) {
            let tmp = clip + ".partial.mp4"
            let writer = try VideoWriter(path: tmp, width: 3840, height: 2160, fps: 30, gop: 30)
            for f in 0..<60 { try writer.append(pattern(width: 3840, height: 2160, frame: f).packed) }
            try writer.finish()
            do { try FileIO.moveIntoPlace(tmp, over: clip) }
            catch { throw MediaError(.writeFailed, path: clip, "cannot move into place: \(error)") }
        }
        return [jpeg, clip]
    }

    /// A photo-like test picture: smooth colour fields, moving shapes and fine grain (so codecs have work to do).
    static func pattern(width: Int, height: Int, frame: Int) -> RGBImage {
        var px = [UInt8](repeating: 0, count: width * height * 3)
        var seed: UInt32 = 2463534242 &+ UInt32(frame)
        px.withUnsafeMutableBufferPointer { p in
            for y in 0..<height {
                let fy = Double(y) / Double(height)
                for x in 0..<width {
                    let fx = Double(x) / Double(width)
                    seed ^= seed << 13; seed ^= seed >> 17; seed ^= seed << 5
                    let grain = Int(seed & 15) - 8
                    let cx = fx - 0.5 - 0.2 * sin(Double(frame) / 10), cy = fy - 0.5
                    let ring = (cx * cx + cy * cy) < 0.04 ? 60 : 0
                    let i = (y * width + x) * 3
                    p[i] = UInt8(clamping: Int(200 * fx) + ring + grain)
                    p[i + 1] = UInt8(clamping: Int(180 * fy) + grain + 30)
                    p[i + 2] = UInt8(clamping: Int(120 * (1 - fx * fy)) + ring / 2 + grain + 40)
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: px)
    }
}
