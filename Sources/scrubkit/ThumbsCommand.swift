import Foundation
import MediaTime
import ScrubKit
import ScrubTerminal
import Locking

/// `scrubkit thumbs INPUT... --out DIR`
enum ThumbsCommand {
    static let spec = CommandSpec(
        name: "thumbs",
        abstract:
            "Extract thumbnails from many files: one open per file, files in parallel, a progress bar, a JSON "
                + "manifest.",
        forms: ["INPUT..."],
        options: [
            OptionSpec(
                names: ["--out"], takesValue: true, valueName: "DIR",
                help: "Output directory (created if needed). Default: thumbs"),
            OptionSpec(
                names: ["-n", "--count"], takesValue: true, valueName: "N",
                help:
                    "N thumbnails evenly spread, avoiding the very first and last frames (default 10; with --vtt, one "
                        + "every 2-10 s).", range: 1...10_000, whole: true),
            OptionSpec(
                names: ["--every"], takesValue: true, valueName: "T", help: "One thumbnail every T (e.g. 10s, 500ms)."),
            OptionSpec(
                names: ["--at"], takesValue: true, valueName: "T1,T2",
                help: "These times (12.5s, 1:02, 50%, …), comma-separated."),
        ] + OutputOptions.specs + [
            OptionSpec(
                names: ["--exact"], takesValue: false,
                help: "Frame-exact times (decodes from the keyframe before each)."),
            OptionSpec(names: ["--fast"], takesValue: false, help: "Keyframes at or before each time (fastest)."),
            OptionSpec(
                names: ["--tolerance"], takesValue: true, valueName: "T",
                help: "Accept a frame up to T before each time (default 1s)."),
            OptionSpec(
                names: ["--approximate"], takesValue: false,
                help:
                    "Where the data near a time is damaged, keep the nearest frame that decodes (\"approximate\": true "
                        + "in the manifest) instead of failing that time."
            ),
            OptionSpec(
                names: ["--name"], takesValue: true, valueName: "TEMPLATE",
                help: "Output names; {stem} {name} {srcext} {index} {index1} {time} {ext}. Default {name}-{index}.{ext}"
            ),
            OptionSpec(
                names: ["-j", "--jobs"], takesValue: true, valueName: "N",
                help: "Files at once (default: number of cores).", range: 1...256, whole: true),
            OptionSpec(
                names: ["--json"], takesValue: true, valueName: "FILE|-",
                help: "JSON-lines manifest: a record per thumbnail or failure, then a summary."),
            OptionSpec(
                names: ["--resume"], takesValue: false,
                help:
                    "Skip files whose outputs from an earlier run with the same settings are complete (and whose "
                        + "source has not changed)."
            ),
            OptionSpec(
                names: ["--cache"], takesValue: false,
                help:
                    "Keep each file's outputs in $XDG_CACHE_HOME/scrubkit (a file seen before with the same settings, "
                        + "and unchanged, is written from there without decoding), and give file managers each file's "
                            + "thumbnail (freedesktop.org cache)."
            ),
            OptionSpec(
                names: ["--shard"], takesValue: true, valueName: "K/N",
                help: "Process only shard K of N (stable hash of each path), for parallel jobs."),
            OptionSpec(
                names: ["--sheet"], takesValue: true, valueName: "CxR",
                help: "One contact sheet per file: C columns × R rows, timestamps and a header."),
            OptionSpec(
                names: ["--columns"], takesValue: true, valueName: "C",
                help: "Contact sheet with C columns (with --rows; same as --sheet CxR).", range: 1...20, whole: true,
                conflicts: ["--sheet"]),
            OptionSpec(
                names: ["--rows"], takesValue: true, valueName: "R", help: "Contact sheet with R rows.",
                range: 1...20, whole: true, conflicts: ["--sheet"]),
            OptionSpec(
                names: ["--spacing"], takesValue: true, valueName: "PX",
                help: "With --sheet: pixels between and around tiles (default 8).",
                range: 0...200, whole: true, requires: ["--sheet", "--columns", "--rows"]),
            OptionSpec(
                names: ["--background"], takesValue: true, valueName: "COLOR",
                help: "With --sheet: #rrggbb or black/white/gray/darkgray/lightgray/navy (default #181818).",
                requires: ["--sheet", "--columns", "--rows"]),
            OptionSpec(
                names: ["--font"], takesValue: true, valueName: "FONT",
                help:
                    "With --sheet: a font file or fontconfig name ('DejaVu Serif', 'sans-serif:bold'); default "
                        + "sans-serif (DejaVu Sans).",
                requires: ["--sheet", "--columns", "--rows"]),
            OptionSpec(
                names: ["--absolute-times"], takesValue: false,
                help:
                    "With --sheet: label tiles with presentation timestamps (default: time from the start of the "
                        + "file).",
                requires: ["--sheet", "--columns", "--rows"]),
            OptionSpec(
                names: ["--skip"], takesValue: true, valueName: "P%",
                help:
                    "Leave out P% of the timeline at each end when spreading --count times (default: 7% for sheets, 0 "
                        + "otherwise)."
            ),
            OptionSpec(
                names: ["--best"], takesValue: false,
                help:
                    "Representative frames: around each time, the best-looking frame (not black, blank or a fade; the "
                        + "sharpest, most colourful). Default for sheets."
            ),
            OptionSpec(
                names: ["--no-best"], takesValue: false,
                help: "With --sheet: take the frames at the times as they are.",
                requires: ["--sheet", "--columns", "--rows"]),
        ] + FrameCriteriaOptions.specs + [
            OptionSpec(
                names: ["--keep-blank"], takesValue: false,
                help: "With --sheet: keep blank tiles (by default a fade or solid frame is replaced by a nearby frame)."
            ),
            OptionSpec(
                names: ["--preview"], takesValue: true, valueName: "F",
                help:
                    "An animated preview per file instead of thumbnails (as scrubkit preview): NAME-preview.webp, .gif "
                        + "or .mp4; --count excerpts (default \(PreviewCommand.defaults.count)), --max-size.",
                values: ["webp", "gif", "mp4"],
                conflicts: ["--sheet", "--columns", "--rows", "--vtt", "--scenes", "--every", "--at"]),
            OptionSpec(
                names: ["--excerpt"], takesValue: true, valueName: "SECONDS",
                help:
                    "With --preview: length of each excerpt (default "
                        + "\(PreviewCommand.seconds(PreviewCommand.defaults.excerptSeconds))).",
                range: 0.001...60, requires: ["--preview"]),
            OptionSpec(
                names: ["--fps"], takesValue: true, valueName: "N",
                help: "With --preview: frames per second (default \(PreviewCommand.defaults.framesPerSecond)).",
                range: 1...60, whole: true, requires: ["--preview"]),
            OptionSpec(
                names: ["--scenes"], takesValue: false,
                help:
                    "One thumbnail (or tile) per scene: the cuts are found first (one fast pass; kept with --cache), "
                        + "then the longest scenes are shown, or the longest split when there are fewer than --count "
                            + "(or the sheet's tiles); with --vtt, a cue per scene.",
                conflicts: ["--every", "--at"]),
            OptionSpec(
                names: ["--vtt"], takesValue: false,
                help:
                    "Sprites and a WebVTT thumbnail track per file (for web players' seek previews): by default one "
                        + "thumbnail per interval of a hundredth of the file, 2 s to 10 s (at most 1000), cues "
                            + "covering 0 to the end with no gap."
            ),
            OptionSpec(names: ["-q", "--quiet"], takesValue: false, help: "No progress output."),
            OptionSpec(
                names: ["--max-pixels"], takesValue: true, valueName: "N",
                help: "Refuse pictures above N pixels (default 150000000).", range: 1...Double(Int32.max) * 4,
                whole: true),
        ],
        discussion: """
        INPUT is a file, a directory (searched recursively for media files), @LIST (one path per line) or - (paths on
        standard input). Bad files are reported and skipped; the exit status is 1 when anything failed.
        Outputs are written atomically; a run killed at any point leaves no partial file, and --resume finishes it.
        """,
        operands: .media,
        examples: [
            Example(
                title: "Eight thumbnails of every video under a folder, with a manifest",
                command: "scrubkit thumbs ~/Videos --out thumbs --count 8 --json manifest.jsonl"),
            Example(
                title: "A 4×5 contact sheet per file", command: "scrubkit thumbs film.mkv --out sheets --sheet 4x5"),
            Example(
                title: "Sprites and a WebVTT track for a web player's seek bar",
                command: "scrubkit thumbs film.mkv --out web --vtt"),
            Example(
                title: "Finish a batch that was interrupted", command: "scrubkit thumbs @list.txt --out out --resume"),
            Example(
                title: "The second of three workers sharing one output folder",
                command: "scrubkit thumbs /data/videos --out /data/thumbs --shard 2/3"),
        ],
        exclusive: [["--count", "--every", "--at"], ["--exact", "--fast", "--tolerance"], ["--sheet", "--vtt"]],
        operandCount: 1...Int.max, operandNoun: "input")

    static func run(_ args: [String]) throws -> Int32 {
        let p = try ParsedArguments(args, spec: spec)
        let (opts, shard) = try batchOptions(p)
        // Before any decoding: a sheet needs a font.
        if opts.sheet != nil, let problem = SheetStyle.fontProblem(opts.sheetStyle.font) {
            printError("scrubkit: \(problem)"); return 1
        }

        let all = BatchInputs.expand(p.positional)
        let mine = shard.map { s in all.filter { BatchInputs.shard(of: $0, count: s.n) == s.k } } ?? all
        let runner: BatchRunner
        do { runner = try BatchRunner(options: opts) } catch let e as MediaError {
            printError("scrubkit: \(e)"); return 1
        }

        let manifestTarget = p.value("--json")
        let streamToStdout = manifestTarget == "-"
        // The manifest grows as files complete (each file's lines in one write, flushed to disk), the summary last: a
        // run killed at any point leaves every finished file recorded.
        var manifestFile: ManifestFile? = nil
        if let target = manifestTarget, !streamToStdout {
            do { manifestFile = try ManifestFile(path: target) } catch { printError("scrubkit: \(error)"); return 1 }
        }
        // Counts only: a batch of 100,000 files keeps no per-file state after reporting it.
        let totals = Locked((files: 0, failed: 0, thumbnails: 0))
        let writeFailure = Locked<String?>(nil)
        let progress = BatchProgress(total: mine.count, quiet: p.flag("--quiet"))
        runner.run(sources: mine, allSources: all, onStart: { progress.started($0) }, onFinish: { [manifestFile] r in
            progress.finished(r)
            let text = lines(r).map { $0 + "\n" }.joined()
            if streamToStdout { printOut(String(text.dropLast())) }
            totals.withLock { $0.files += 1; $0.failed += r.failed ? 1 : 0; $0.thumbnails += r.records.count }
            if let m = manifestFile, let problem = m.append(text) { writeFailure.withLock { $0 = $0 ?? problem } }
        })
        progress.finish()
        let finished = totals.withLock { $0 }
        let failed = finished.failed
        let summary = JSON.object([("summary", .object([
            ("files", .int(finished.files)), ("failed", .int(failed)),
            ("thumbnails", .int(finished.thumbnails)),
            ("shard", shard.map { .string("\($0.k)/\($0.n)") } ?? .null),
        ]))]).text
        if streamToStdout { printOut(summary) }
        if let m = manifestFile {
            if let problem = m.append(summary + "\n") ?? writeFailure.withLock({ $0 }) {
                printError("scrubkit: \(problem)"); return 1
            }
        }
        return failed > 0 ? 1 : 0
    }

    /// The `--json FILE` manifest, appended to as files complete; each append is flushed to disk before the next file
    /// is reported. Thread-safe.
    final class ManifestFile: Sendable {
        let path: String
        private let fd: Int32

        init(path: String) throws {
            self.path = path
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw MediaError(
                    .writeFailed, path: path, "cannot create the manifest: \(String(cString: strerror(errno)))")
            }
        }

        deinit { close(fd) }

        /// Appends `text` in one write and flushes it; a message when that failed.
        func append(_ text: String) -> String? {
            if let failure = FileIO.writeAll(text, to: fd) { return "\(path): cannot write the manifest: \(failure)" }
            if let failure = FileIO.flush(fd) { return "\(path): cannot flush the manifest: \(failure)" }
            return nil
        }
    }

    /// Manifest lines of one file: a record per thumbnail, then its failures.
    static func lines(_ r: BatchFileResult) -> [String] {
        r.records.sorted { $0.index < $1.index }.map(\.json.text) + r.errors.map { e in
            var fields: [(String, JSON)] = [("source", .string(Redaction.display(r.source)))]
            if let i = e.index { fields.append(("index", .int(i))) }
            fields.append(("error", .string(e.error.description)))
            return JSON.object(fields).text
        }
    }
}
