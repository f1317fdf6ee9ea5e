import FFmpegBridge
import Foundation
import MediaTime
import Synchronization
import Locking

/// One thumbnail in the manifest.
public struct BatchRecord: Sendable {
    /// The source file (or URL, shown with its secrets redacted).
    public var source: String
    /// The position of its time among the file's requested times.
    public var index: Int
    /// The time asked for, in seconds on the file's presentation timeline.
    public var requestedTime: Double
    /// The presentation time of the frame delivered, in seconds.
    public var actualTime: Double
    /// The file (with a `#xywh=` fragment for sprite tiles).
    public var output: String
    /// The thumbnail's width in pixels.
    public var width: Int
    /// The thumbnail's height in pixels.
    public var height: Int
    /// The frame is outside the tolerance (damaged data, `acceptsApproximateFrames`).
    public var approximate = false

    /// The manifest line (`--json`): source, index, times, output, size[, approximate].
    public var json: JSON {
        .object([("source", .string(Redaction.display(source))), ("index", .int(index)), ("requestedTime", .seconds(requestedTime)),
                 ("actualTime", .seconds(actualTime)), ("output", .string(output)), ("width", .int(width)), ("height", .int(height))]
                + (approximate ? [("approximate", .bool(true))] : []))
    }
}

extension BatchRecord {
    /// A record read back from its JSON form (resume journals, cache entries).
    init?(json r: [String: Any]) {
        guard let s = r["source"] as? String, let i = r["index"] as? Int, let o = r["output"] as? String,
              let w = r["width"] as? Int, let h = r["height"] as? Int else { return nil }
        self.init(source: s, index: i, requestedTime: (r["requestedTime"] as? Double) ?? 0,
                  actualTime: (r["actualTime"] as? Double) ?? 0, output: o, width: w, height: h,
                  approximate: (r["approximate"] as? Bool) ?? false)
    }
}

/// What happened to one source file.
public struct BatchFileResult: Sendable {
    /// The source file as given.
    public var source: String
    /// The thumbnails written for it.
    public var records: [BatchRecord] = []
    /// Failures: the whole file (index nil) or single times.
    public var errors: [(index: Int?, error: MediaError)] = []
    /// Served from an earlier run (`--resume`).
    public var resumed = false
    /// Written from the cache (nothing decoded).
    public var cached = false
    /// The files written, kept only while a cache needs them.
    var outputs: [(name: String, bytes: [UInt8])] = []
    /// Wall time spent on the file.
    public var seconds: Double = 0
    /// Whether the file or any of its times failed.
    public var failed: Bool { !errors.isEmpty }
}

/// Runs a batch: files in parallel (`jobs` at once, one open per file, GOP-aware times), outputs written
/// atomically, progress reported per file, resumable.
public final class BatchRunner: Sendable {
    /// The settings of this run.
    public let options: BatchOptions
    private let stateFile: String
    private let state: Locked<[String: JournalEntry]>
    private let budget: PixelBudget

    /// Name of the resume journal kept in the output directory.
    public static let stateFileName = ".scrubkit-thumbs.state.jsonl"

    /// A runner for `options`: creates the output directory and reads the resume journals there. Throws when the directory cannot be made.
    public init(options: BatchOptions) throws {
        self.options = options
        do {
            try FileManager.default.createDirectory(atPath: options.outputDirectory, withIntermediateDirectories: true)
        } catch {
            throw MediaError(.writeFailed, path: options.outputDirectory, "cannot create the output directory")
        }
        let journal = options.shardLabel.map { ".scrubkit-thumbs.state.\($0).jsonl" } ?? BatchRunner.stateFileName
        stateFile = (options.outputDirectory as NSString).appendingPathComponent(journal)
        state = Locked(options.resume ? BatchRunner.loadStates(in: options.outputDirectory) : [:])
        budget = PixelBudget(capacity: options.pixelBudget)
        FileIO.removeStaleTemporaryFiles(in: options.outputDirectory)
    }

    /// Processes `sources` (all of them: shard first if needed). `allSources` decides output names (collisions),
    /// so pass the unsharded list. Callbacks arrive on worker threads, serialised.
    public func run(sources: [String], allSources: [String], onStart: @Sendable @escaping (String) -> Void,
                    onFinish: @Sendable @escaping (BatchFileResult) -> Void) {
        let naming = BatchNaming(template: options.nameTemplate, allSources: allSources)
        let next = Atomic<Int>(0)
        let report = Locked(())
        let jobs = max(1, min(options.jobs, sources.count))
        DispatchQueue.concurrentPerform(iterations: jobs) { _ in
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < sources.count else { return }
                report.withLock { _ in onStart(sources[i]) }
                let result = process(sources[i], naming: naming, parallelFiles: jobs)
                report.withLock { _ in onFinish(result) }
            }
        }
    }

    /// One file, start to finish.
    func process(_ source: String, naming: BatchNaming, parallelFiles: Int) -> BatchFileResult {
        let began = Date()
        var result = BatchFileResult(source: source)
        let key = BatchInputs.identity(of: source)
        // The source as it is now: a file replaced at the same path (or rewritten, touched) is redone.
        let sourceIdentity = SourceIdentity(path: source)
        let identity = sourceIdentity?.description ?? ""
        if options.resume, let done = state.withLock({ $0[key] }), done.signature == options.signature, done.identity == identity,
           done.records.allSatisfy({ BatchRunner.isValidOutput(path: outputPath($0.output), format: options.format) }) {
            result.records = done.records
            result.resumed = true
            return result
        }
        let cacheKey = options.cache == nil ? nil : sourceIdentity.map {
            CacheKey(.batch, identity: $0, parts: [options.signature, naming.name(source: source, index: 0, seconds: nil, ext: "x")])
        }
        if let cacheKey, let cached = cachedOutputs(cacheKey, source: source) {
            do {
                for (name, bytes) in cached.files { try AtomicFile.write(bytes, to: outputPath(name)) }
                result.records = cached.records
                result.cached = true
                remember(key, identity: identity, result.records)
                result.seconds = Date().timeIntervalSince(began)
                return result
            } catch {
                // (Written again below from the source.)
            }
        }
        if let preview = options.preview {
            do {
                let (bytes, report) = try PreviewMaker.render(source, options: preview)
                let name = naming.name(source: source, index: 0, seconds: nil, ext: preview.format.rawValue)
                    .replacingOccurrences(of: "-0.", with: "-preview.")
                try emit(bytes, name: name, into: &result)
                result.records.append(BatchRecord(source: source, index: 0, requestedTime: report.excerpts.first?.seconds ?? 0,
                                                  actualTime: report.excerpts.first?.seconds ?? 0, output: name,
                                                  width: report.width, height: report.height, approximate: false))
            } catch let e as MediaError {
                result.errors.append((nil, e))
            } catch {
                result.errors.append((nil, MediaError(.writeFailed, path: source, "\(error)")))
            }
            return finished(result, key: key, identity: identity, cacheKey: cacheKey, began: began)
        }
        var gen = options.generator(for: source, parallelFiles: parallelFiles)
        let plan = options.sheet.map { BatchTimes.count($0.columns * $0.rows) } ?? options.times
        var reserved = 0
        defer { if reserved > 0 { budget.release(reserved) } }
        var scenes: [Scene]? = nil   // (with --scenes: the scene of each planned time)
        do {
            if options.scenes {
                // One per scene: the cuts first (their own pass over the file, or the cache), then the scenes to show
                // (as many as asked; for a track, every scene up to its limit); each representative frame is searched
                // for inside its scene. (A still has none: planned as usual.)
                do {
                    let all = try SceneDetector().detect(in: source, cache: options.cache).scenes
                    let n: Int
                    if case .count(let c) = plan { n = c } else { n = min(all.count, BatchTimes.trackLimit) }
                    scenes = SceneDetector.choose(n, from: all)
                    gen.representativeWindow = .within(scenes!.map { MediaTimeRange(start: $0.start, duration: $0.duration) })
                } catch let e as MediaError where e.kind == .noVideo {}
            }
            let (timeline, results) = try gen.generate(planning: { t in
                // The file is open and its size known; hold its share of the memory budget while it decodes.
                reserved = budget.reserve(t.displayWidth * t.displayHeight)
                if t.isStill { return [.absolute(.zero)] }
                var (start, duration) = (t.start, t.duration)
                if case .count = plan, options.skipsEdges > 0, duration.isNumeric {
                    let edge = MediaTime(seconds: duration.seconds * min(0.45, options.skipsEdges), preferredTimescale: 90000)
                    (start, duration) = (start + edge, duration - edge - edge)
                }
                if let scenes { return scenes.map { .absolute($0.middle) } }
                guard let times = plan.times(start: start, duration: duration) else {
                    throw MediaError(.invalidRequest, path: source, "duration unknown: use --at with absolute times")
                }
                return times
            })
            var good: [(Int, Thumbnail)] = []
            for r in results {
                switch r.result {
                case .success(let t): good.append((r.index, t))
                case .failure(let e): result.errors.append((r.index, e))
                }
            }
            if let desktop = options.desktop, let id = sourceIdentity, !good.isEmpty {
                let tenth = timeline.duration.isNumeric ? timeline.start + timeline.duration.multiplied(byRatio: 1, divisor: 10) : timeline.start
                let pick = good.min { abs(($0.1.requestedTime - tenth).seconds) < abs(($1.1.requestedTime - tenth).seconds) }!
                desktop.offer(pick.1, path: source, identity: id, originalLongestSide: max(timeline.displayWidth, timeline.displayHeight))
            }
            if let sheet = options.sheet {
                if options.skipsBlankFrames { good = try replacingBlankTiles(good, generator: gen, timeline: timeline, scenes: scenes) }
                try writeSheet(good, columns: sheet.columns, timeline: timeline, source: source, naming: naming, scenes: scenes, into: &result)
            } else if options.vtt {
                try writeVTT(good, timeline: timeline, source: source, naming: naming, scenes: scenes, into: &result)
            } else {
                for (index, t) in good {
                    let name = naming.name(source: source, index: index, seconds: t.requestedTime.seconds, ext: options.format.fileExtension)
                    try emit(t.encoded(as: options.format, quality: options.quality), name: name, into: &result)
                    result.records.append(record(source, index, t, output: name))
                }
            }
        } catch let e as MediaError {
            result.errors.append((nil, e))
        } catch {
            result.errors.append((nil, MediaError(.decodeFailed, path: source, "\(error)")))
        }
        return finished(result, key: key, identity: identity, cacheKey: cacheKey, began: began)
    }

    /// A file's result recorded (resume state, cache) and timed.
    private func finished(_ result: BatchFileResult, key: String, identity: String, cacheKey: CacheKey?, began: Date) -> BatchFileResult {
        var result = result
        if !result.failed {
            remember(key, identity: identity, result.records)
            if let cacheKey { storeOutputs(result, key: cacheKey) }
        }
        result.outputs = []
        result.seconds = Date().timeIntervalSince(began)
        // A big file's decoder buffers were freed, but glibc keeps them in its arenas: hand them back, so a long
        // batch's footprint follows what is being decoded now rather than the largest file seen so far.
        HeapMemory.releaseFreedMemory()
        return result
    }

    func record(_ source: String, _ index: Int, _ t: Thumbnail, output: String) -> BatchRecord {
        BatchRecord(source: source, index: index, requestedTime: t.requestedTime.seconds, actualTime: t.actualTime.seconds,
                    output: output, width: t.image.width, height: t.image.height, approximate: t.isApproximate)
    }

    /// Writes one output file (atomically) and keeps its bytes for the cache when there is one.
    func emit(_ bytes: [UInt8], name: String, into result: inout BatchFileResult) throws {
        try AtomicFile.write(bytes, to: outputPath(name))
        if options.cache != nil { result.outputs.append((name, bytes)) }
    }

    // MARK: - Cache

    /// A file's outputs in the cache: records (JSON lines), then each file as name and bytes.
    private func storeOutputs(_ result: BatchFileResult, key: CacheKey) {
        var w = ByteWriter()
        let records = Array(result.records.map { $0.json.text }.joined(separator: "\n").utf8)
        w.int(records.count); w.bytes += records
        w.int(result.outputs.count)
        for (name, bytes) in result.outputs {
            let n = Array(name.utf8)
            w.int(n.count); w.bytes += n
            w.int(bytes.count); w.bytes += bytes
        }
        options.cache?.store(w.bytes, for: key)
    }

    private func cachedOutputs(_ key: CacheKey, source: String) -> (records: [BatchRecord], files: [(String, [UInt8])])? {
        guard let b = options.cache?.bytes(for: key) else { return nil }
        var r = ByteReader(b)
        func take(_ n: Int) -> [UInt8]? {
            guard n >= 0, n <= b.count - r.offset else { return nil }
            defer { r.offset += n }
            return Array(b[r.offset..<(r.offset + n)])
        }
        guard let rn = r.int(), let rtext = take(rn), let count = r.int(), count >= 0, count < 1_000_000 else { return nil }
        var files: [(String, [UInt8])] = []
        for _ in 0..<count {
            guard let nn = r.int(), let name = take(nn), let bn = r.int(), let bytes = take(bn) else { return nil }
            files.append((String(decoding: name, as: UTF8.self), bytes))
        }
        var records: [BatchRecord] = []
        for line in String(decoding: rtext, as: UTF8.self).split(separator: "\n") {
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  var rec = BatchRecord(json: obj) else { return nil }
            rec.source = source   // (the manifest shows it redacted, as typed this time)
            records.append(rec)
        }
        return (records, files)
    }

    func outputPath(_ name: String) -> String {
        let file = name.split(separator: "#").first.map(String.init) ?? name
        return (options.outputDirectory as NSString).appendingPathComponent(file)
    }

    // MARK: - Resume journal

    /// One finished file in a resume journal: the settings it was made with, the source's identity then
    /// (``SourceIdentity``; empty for URLs), and its records.
    struct JournalEntry {
        var signature: String
        var identity: String
        var records: [BatchRecord]
    }

    private func remember(_ key: String, identity: String, _ records: [BatchRecord]) {
        let line = JSON.object([("source", .string(key)), ("signature", .string(options.signature)), ("identity", .string(identity)),
                                ("records", .array(records.map(\.json)))]).text + "\n"
        // (Only the journal file grows: this run never looks a file up twice, so the loaded state stays as it was and
        // a long batch's memory does not grow with the files done.)
        state.withLock { _ in
            // O_APPEND: each line lands whole; a crash loses at most the line being written, whose outputs are
            // then simply redone.
            _ = FileIO.append(Array(line.utf8), toFileAt: stateFile, mode: 0o644)
        }
    }

    /// Every resume journal in `dir` (the unsharded one and each shard's), merged.
    static func loadStates(in dir: String) -> [String: JournalEntry] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
            .filter { $0.hasPrefix(".scrubkit-thumbs.state") && $0.hasSuffix(".jsonl") }.sorted()
        var out: [String: JournalEntry] = [:]
        for n in names { out.merge(loadState((dir as NSString).appendingPathComponent(n))) { _, new in new } }
        return out
    }

    static func loadState(_ path: String) -> [String: JournalEntry] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var out: [String: JournalEntry] = [:]
        for line in text.split(separator: "\n") {
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let source = obj["source"] as? String, let sig = obj["signature"] as? String,
                  let recs = obj["records"] as? [[String: Any]] else { continue }
            let records = recs.compactMap { BatchRecord(json: $0) }
            // (A line without an identity, from an older scrubkit, never matches: the file is redone once.)
            out[source] = JournalEntry(signature: sig, identity: (obj["identity"] as? String) ?? "-", records: records)
        }
        return out
    }

    /// An output counts as done when it exists, is non-empty and starts with its format's signature.
    public static func isValidOutput(path: String, format: ImageFormat) -> Bool {
        guard let h = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? h.close() }
        guard let head = try? h.read(upToCount: 12), head.count >= 4 else { return false }
        let b = [UInt8](head)
        if path.hasSuffix(".vtt") { return b.starts(with: Array("WEBV".utf8)) }
        if path.hasSuffix("-preview.gif") { return b.starts(with: Array("GIF8".utf8)) }
        if path.hasSuffix("-preview.mp4") { return b.count >= 8 && Array(b[4..<8]) == Array("ftyp".utf8) }
        if path.hasSuffix("-preview.webp") { return b.count >= 12 && Array(b[8..<12]) == Array("WEBP".utf8) }
        switch format {
        case .png: return b.starts(with: [0x89, 0x50, 0x4E, 0x47])
        case .jpeg: return b.starts(with: [0xFF, 0xD8])
        case .webp: return b.count >= 12 && Array(b[8..<12]) == Array("WEBP".utf8)
        }
    }

}
