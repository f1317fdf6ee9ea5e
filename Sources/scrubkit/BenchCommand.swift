import Foundation
import ScrubKit

/// `scrubkit bench [FILE...]`: decode vs downsample memory and time, each mode in its own process.
enum BenchCommand {
    static let spec = CommandSpec(
        name: "bench",
        abstract:
            "Measure decode vs downsample: time and memory of full RGBA decoding vs 1600/320 px thumbnails, each run "
                + "in a fresh process.",
        forms: ["[FILE...]"],
        options: [
            OptionSpec(
                names: ["--runs"], takesValue: true, valueName: "N",
                help: "Runs per mode (default 5, at least 3); modes alternate run by run.",
                range: 3...100, whole: true),
            OptionSpec(
                names: ["--json"], takesValue: false,
                help: "One JSON object per file and mode (medians, min, max) instead of the table."),
            OptionSpec(
                names: ["--svg"], takesValue: true, valueName: "FILE",
                help: "Also write a chart of memory per mode as SVG."),
            OptionSpec(names: ["--png"], takesValue: true, valueName: "FILE", help: "Also write the chart as PNG."),
            OptionSpec(
                names: ["--inputs"], takesValue: true, valueName: "DIR",
                help: "Where the default inputs are generated (default: $TMPDIR/scrubkit-bench)."),
            OptionSpec(
                names: ["--cache"], takesValue: false,
                help:
                    "Instead: measure the thumbnail cache on FILE (decode vs memory-tier hit vs disk-tier hit, disk "
                        + "lookups at 100/1,000/10,000 entries)."
            ),
            OptionSpec(
                names: ["--child"], takesValue: true, valueName: "MODE",
                help: "(internal) run one mode in this process and print its measurement.", hidden: true),
        ],
        discussion: """
        Without FILE: a generated 6048×4024 JPEG and a generated 2 s 4K H.264 clip. Modes: full decode to RGBA kept in
        memory; 1600 px and 320 px thumbnails (for JPEG also without shrink-on-load). Each figure is measured inside
        its own child process from /proc/self/status: wall time of the work, peak RSS, RSS with the result held, RSS
        above the process's own baseline (libraries loaded), and the result's theoretical size (w × h × 4).
        """,
        operands: .media,
        examples: [
            Example(title: "Decode vs downsample on generated inputs", command: "scrubkit bench"),
            Example(
                title: "On your own files, with a chart",
                command: "scrubkit bench photo.jpg clip.mp4 --runs 5 --svg bench.svg"),
            Example(title: "What the thumbnail cache saves on one file", command: "scrubkit bench --cache clip.mp4"),
        ])

    /// `--cache`: the cache's figures for one file, as a table or JSON lines.
    static func runCache(_ p: ParsedArguments) throws -> Int32 {
        guard p.positional.count == 1 else { throw UsageError(message: "--cache measures one file", command: "bench") }
        let scratch = (NSTemporaryDirectory() as NSString).appendingPathComponent("scrubkit-bench-cache-\(getpid())")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let figures: [CacheBenchmark.Figure]
        do { figures = try CacheBenchmark.run(path: p.positional[0], scratch: scratch, progress: { printError($0) }) }
        catch let e as MediaError { printError("scrubkit: \(e)"); return 1 }
        let decode = figures[0].seconds
        for f in figures {
            if p.flag("--json") {
                printOut(
                    JSON.object([
                        ("measure", .string(f.name)), ("medianSeconds", .double(f.seconds)),
                        ("operations", .int(f.operations)),
                    ]).text)
            } else {
                let ratio = f.name.hasSuffix("hit") ? String(format: "  (%.5f× the decode)", f.seconds / decode) : ""
                printOut(
                    f.name.padding(toLength: 30, withPad: " ", startingAt: 0)
                        + String(format: "%10.3f ms", f.seconds * 1000) + ratio)
            }
        }
        return 0
    }

    static func run(_ args: [String]) throws -> Int32 {
        let p = try ParsedArguments(args, spec: spec)
        if let m = p.value("--child") {
            guard let mode = BenchMode(rawValue: m), p.positional.count == 1 else {
                throw UsageError(message: "bad --child call", command: "bench")
            }
            do { printOut(try DecodeBenchmark.measure(mode, path: p.positional[0]).json.text); return 0 } catch {
                printError("scrubkit: \(error)"); return 1
            }
        }
        if p.flag("--cache") { return try runCache(p) }
        let runs = try p.int("--runs") ?? 5
        var files = p.positional
        if files.isEmpty {
            let dir =
                p.value("--inputs") ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("scrubkit-bench")
            printError("generating default inputs in \(dir) (once)…")
            files = try DecodeBenchmark.defaultInputs(in: dir)
        }
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        var samples: [String: [BenchMode: [BenchSample]]] = [:]
        var failed = false
        for file in files {
            let info = MediaInspector(verifiesDecoding: false).inspect(path: file)
            if let e = info.error { printError("scrubkit: \(e)"); failed = true; continue }
            let modes = BenchMode.modes(isStill: info.isStill)
            for r in 0..<runs {
                for mode in (r % 2 == 0 ? modes : modes.reversed()) {
                    let out = Process()
                    out.executableURL = URL(fileURLWithPath: me)
                    out.arguments = ["bench", "--child", mode.rawValue, file]
                    let pipe = Pipe()
                    out.standardOutput = pipe
                    out.standardError = FileHandle.nullDevice
                    try out.run()
                    // (A signal ending the benchmark ends the measured child too.)
                    let ending = ProcessSignals.atExit { out.terminate() }
                    let data = pipe.fileHandleForReading.readDataToEndOfFile()
                    out.waitUntilExit()
                    ending.cancel()
                    guard let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                        let s = BenchSample(json: obj)
                    else {
                        printError("scrubkit: \(file): mode \(mode.rawValue) failed"); failed = true; continue
                    }
                    samples[file, default: [:]][mode, default: []].append(s)
                }
            }
        }
        var rows: [BenchChart.Row] = []
        for file in files {
            guard let byMode = samples[file] else { continue }
            let name = (file as NSString).lastPathComponent
            if !p.flag("--json") { printOut("\n\(name)  (\(runs) runs per mode, medians "
                + "[min–max])"); printOut(header) }
            for mode in BenchMode.allCases {
                guard let ss = byMode[mode], !ss.isEmpty else { continue }
                let secs = stats(ss.map(\.seconds)), peak = stats(ss.map { Double($0.peakRSS) / 1_048_576 })
                let held = stats(ss.map { Double($0.steadyRSS) / 1_048_576 }),
                    above = stats(ss.map { Double($0.aboveBaseline) / 1_048_576 })
                let peakAbove = stats(ss.map { Double($0.peakAboveBaseline) / 1_048_576 })
                let theory = Double(ss[0].theoreticalBytes) / 1_048_576
                rows.append(
                    BenchChart.Row(
                        label: "\(name) · \(mode.rawValue)", peak: peakAbove.median, held: above.median,
                        theoretical: theory))
                if p.flag("--json") {
                    func j(_ s: (median: Double, min: Double, max: Double)) -> JSON {
                        .object([("median", .double(s.median)), ("min", .double(s.min)), ("max", .double(s.max))])
                    }
                    printOut(
                        JSON.object([
                            ("path", .string(file)), ("mode", .string(mode.rawValue)), ("runs", .int(ss.count)),
                            ("width", .int(ss[0].width)), ("height", .int(ss[0].height)),
                            ("seconds", j(secs)), ("peakRSSMiB", j(peak)), ("heldRSSMiB", j(held)),
                            ("aboveBaselineMiB", j(above)), ("peakAboveBaselineMiB", j(peakAbove)),
                            ("theoreticalMiB", .double(theory)),
                        ]).text)
                } else {
                    printOut(row(mode.rawValue, "\(ss[0].width)×\(ss[0].height)", secs, peak, held, above, theory))
                }
            }
        }
        let title = "scrubkit bench: memory per mode"
        if let svg = p.value("--svg") {
            try AtomicFile.write(Array(BenchChart.svg(title: title, rows: rows).utf8), to: svg)
        }
        if let png = p.value("--png") {
            try AtomicFile.write(BenchChart.picture(title: title, rows: rows).encoded(as: .png), to: png)
        }
        return failed ? 1 : 0
    }

    static let header =
        "  mode               result        time ms               peak MiB              held MiB              above "
            + "base MiB        w×h×4 MiB"

    static func stats(_ xs: [Double]) -> (median: Double, min: Double, max: Double) {
        let s = xs.sorted()
        let mid = s.count / 2
        let median = s.count % 2 == 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2
        return (median, s.first ?? 0, s.last ?? 0)
    }

    static func row(
        _ mode: String, _ size: String, _ t: (median: Double, min: Double, max: Double),
        _ peak: (median: Double, min: Double, max: Double),
        _ held: (median: Double, min: Double, max: Double), _ above: (median: Double, min: Double, max: Double),
        _ theory: Double
    ) -> String {
        func f(_ s: (median: Double, min: Double, max: Double), _ scale: Double, _ digits: Int) -> String {
            let m = String(format: "%.\(digits)f", s.median * scale),
                lo = String(format: "%.\(digits)f", s.min * scale), hi = String(format: "%.\(digits)f", s.max * scale)
            return "\(m) [\(lo)–\(hi)]".padding(toLength: 22, withPad: " ", startingAt: 0)
        }
        return "  " + mode.padding(toLength: 19, withPad: " ", startingAt: 0)
            + size.padding(toLength: 14, withPad: " ", startingAt: 0)
            + f(t, 1000, 0) + f(peak, 1, 1) + f(held, 1, 1) + f(above, 1, 1) + String(format: "%.1f", theory)
    }
}
