import FFmpegBridge
import Foundation
import MediaTime
import Synchronization
import Locking

/// Runs a batch: files in parallel (`jobs` at once, one open per file, GOP-aware times), outputs written
/// atomically, progress reported per file, resumable.
public final class BatchRunner: Sendable {
    /// The settings of this run.
    public let options: BatchOptions
    let stateFile: String
    let state: Locked<[String: JournalEntry]>
    private let budget: PixelBudget

    /// Name of the resume journal kept in the output directory.
    public static let stateFileName = ".scrubkit-thumbs.state.jsonl"

    /// A runner for `options`: creates the output directory and reads the resume journals there. Throws when the
    /// directory cannot be made.
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
        let began = SystemClock().now()
        var result = BatchFileResult(source: source)
        let key = BatchInputs.identity(of: source)
        // The source as it is now: a file replaced at the same path (or rewritten, touched) is redone.
        let sourceIdentity = SourceIdentity(path: source)
        let identity = sourceIdentity?.description ?? ""
        if options.resume, let done = state.withLock({ $0[key] }), done.signature == options.signature,
            done.identity == identity,
            done.records.allSatisfy({ BatchRunner.isValidOutput(path: outputPath($0.output), format: options.format) })
        {
            result.records = done.records
            result.resumed = true
            return result
        }
        let cacheKey =
            options.cache == nil
            ? nil
            : sourceIdentity.map {
                CacheKey(
                    .batch, identity: $0,
                    parts: [options.signature, naming.name(source: source, index: 0, seconds: nil, ext: "x")])
            }
        if let cacheKey, let restored = restore(cacheKey, into: result, key: key, identity: identity, began: began) {
            return restored
        }
        if let preview = options.preview {
            writePreview(preview, of: source, naming: naming, into: &result)
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
                    gen.representativeWindow = .within(
                        scenes!.map { MediaTimeRange(start: $0.start, duration: $0.duration) })
                } catch let e as MediaError where e.kind == .noVideo {}
            }
            let (timeline, results) = try gen.generate(planning: { t in
                // The file is open and its size known; hold its share of the memory budget while it decodes.
                reserved = budget.reserve(t.displayWidth * t.displayHeight)
                if t.isStill { return [.absolute(.zero)] }
                var (start, duration) = (t.start, t.duration)
                if case .count = plan, options.skipsEdges > 0, duration.isNumeric {
                    let edge = MediaTime(
                        seconds: duration.seconds * min(0.45, options.skipsEdges), preferredTimescale: 90000)
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
                let tenth =
                    timeline.duration.isNumeric
                    ? timeline.start + timeline.duration.multiplied(byRatio: 1, divisor: 10) : timeline.start
                let pick = good.min {
                    abs(($0.1.requestedTime - tenth).seconds) < abs(($1.1.requestedTime - tenth).seconds)
                }!
                desktop.offer(
                    pick.1, path: source, identity: id,
                    originalLongestSide: max(timeline.displayWidth, timeline.displayHeight))
            }
            try write(
                good, generator: gen, timeline: timeline, source: source, naming: naming, scenes: scenes, into: &result)
        } catch let e as MediaError {
            result.errors.append((nil, e))
        } catch {
            result.errors.append((nil, MediaError(.decodeFailed, path: source, "\(error)")))
        }
        return finished(result, key: key, identity: identity, cacheKey: cacheKey, began: began)
    }

    /// A file's result recorded (resume state, cache) and timed.
    /// The file's outputs as a run with the same settings left them in the cache, written again; nil when they are
    /// not there or cannot be written (the file is then made from the source).
    private func restore(
        _ cacheKey: CacheKey, into result: BatchFileResult, key: String, identity: String, began: Double
    ) -> BatchFileResult? {
        guard let cached = cachedOutputs(cacheKey, source: result.source) else { return nil }
        do {
            for (name, bytes) in cached.files { try AtomicFile.write(bytes, to: outputPath(name)) }
        } catch {
            return nil
        }
        var result = result
        result.records = cached.records
        result.cached = true
        remember(key, identity: identity, result.records)
        result.seconds = SystemClock().now() - began
        return result
    }

    /// The file's animated preview, written as `NAME-preview.EXT`.
    private func writePreview(
        _ preview: PreviewOptions, of source: String, naming: BatchNaming, into result: inout BatchFileResult
    ) {
        do {
            let (bytes, report) = try PreviewMaker.render(source, options: preview)
            let name = naming.name(source: source, index: 0, seconds: nil, ext: preview.format.rawValue)
                .replacingOccurrences(of: "-0.", with: "-preview.")
            try emit(bytes, name: name, into: &result)
            result.records.append(
                BatchRecord(
                    source: source, index: 0, requestedTime: report.excerpts.first?.seconds ?? 0,
                    actualTime: report.excerpts.first?.seconds ?? 0, output: name,
                    width: report.width, height: report.height, approximate: false))
        } catch let e as MediaError {
            result.errors.append((nil, e))
        } catch {
            result.errors.append((nil, MediaError(.writeFailed, path: source, "\(error)")))
        }
    }

    /// The thumbnails made, written as the batch asks: a contact sheet, sprites and a WebVTT track, or a file each.
    private func write(
        _ made: [(Int, Thumbnail)], generator gen: ThumbnailGenerator, timeline: ThumbnailGenerator.Timeline,
        source: String, naming: BatchNaming, scenes: [Scene]?, into result: inout BatchFileResult
    ) throws {
        var good = made
        if let sheet = options.sheet {
            if options.skipsBlankFrames {
                good = try replacingBlankTiles(good, generator: gen, timeline: timeline, scenes: scenes)
            }
            try writeSheet(
                good, columns: sheet.columns, timeline: timeline, source: source, naming: naming, scenes: scenes,
                into: &result)
        } else if options.vtt {
            try writeVTT(good, timeline: timeline, source: source, naming: naming, scenes: scenes, into: &result)
        } else {
            for (index, t) in good {
                let name = naming.name(
                    source: source, index: index, seconds: t.requestedTime.seconds, ext: options.format.fileExtension)
                try emit(t.encoded(as: options.format, quality: options.quality), name: name, into: &result)
                result.records.append(record(source, index, t, output: name))
            }
        }
    }

    private func finished(
        _ result: BatchFileResult, key: String, identity: String, cacheKey: CacheKey?, began: Double
    ) -> BatchFileResult {
        var result = result
        if !result.failed {
            remember(key, identity: identity, result.records)
            if let cacheKey { storeOutputs(result, key: cacheKey) }
        }
        result.outputs = []
        result.seconds = SystemClock().now() - began
        // A big file's decoder buffers were freed, but glibc keeps them in its arenas: hand them back, so a long
        // batch's footprint follows what is being decoded now rather than the largest file seen so far.
        HeapMemory.releaseFreedMemory()
        return result
    }

    func record(_ source: String, _ index: Int, _ t: Thumbnail, output: String) -> BatchRecord {
        BatchRecord(
            source: source, index: index, requestedTime: t.requestedTime.seconds, actualTime: t.actualTime.seconds,
            output: output, width: t.image.width, height: t.image.height, approximate: t.isApproximate)
    }

    /// Writes one output file (atomically) and keeps its bytes for the cache when there is one.
    func emit(_ bytes: [UInt8], name: String, into result: inout BatchFileResult) throws {
        try AtomicFile.write(bytes, to: outputPath(name))
        if options.cache != nil { result.outputs.append((name, bytes)) }
    }
}
