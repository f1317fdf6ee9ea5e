import Foundation
import MediaTime
import ScrubKit

/// `scrubkit cut FILE --from T --to T [-o OUT]`
enum CutCommand {
    static let spec = CommandSpec(
        name: "cut",
        abstract: "Copy a section of a video into a new file without re-encoding: every stream kept, chapters trimmed.",
        forms: ["FILE"],
        options: [
            OptionSpec(
                names: ["--from"], takesValue: true, valueName: "TIME",
                help:
                    "Where the section starts: 12.5, 12.5s, 90ms, 1:02:03.250, 50% or 3/4 (default: the start). The "
                        + "cut starts on the keyframe at or before it."
            ),
            OptionSpec(
                names: ["--to"], takesValue: true, valueName: "TIME",
                help: "Where it ends, written the same way (default: the end)."),
            OptionSpec(
                names: ["-o", "--output"], takesValue: true, valueName: "OUT",
                help:
                    "The new file; its name's extension chooses the container. Default: NAME-cut-FROM-TO.EXT beside "
                        + "the file."
            ),
            OptionSpec(
                names: ["--exact"], takesValue: false,
                help:
                    "Start on the asked frame: re-encode the pictures from it to the next keyframe (a smart cut; "
                        + "H.264, HEVC), copy the rest."
            ),
            OptionSpec(
                names: ["--json"], takesValue: false,
                help: "Print {path, output, start, requestedStart, end, reencoded, streams, chapters, notes}."),
        ],
        discussion: """
        Packets are copied as they are (as ffmpeg -c copy, or LosslessCut), so the cut is as fast as the disk and
        loses nothing. A copy can only start on a keyframe: the cut starts on the picture's keyframe at or before
        --from, and says so when that is earlier. Sound and subtitles are kept from there to --to; chapters that
        overlap the section are kept, trimmed to it; the copy's timeline starts at 0. A stream the output's container
        cannot hold (a subtitle format MP4 has no place for) is left out with one line why. With --exact (a "smart cut",
        like LosslessCut's experimental mode) the pictures from --from to the next keyframe are decoded and encoded
        again with libx264 or libx265, matched to the stream (size, pixel format, aspect, colour; visually lossless),
        and everything after is copied, so the cut starts on the asked frame; where that cannot be done (another codec
        than H.264 or HEVC, no encoder) it starts on the keyframe before, with one line why. The output is written
        atomically: nothing is left behind when the cut fails. Times are on the file's presentation timeline, as
        thumb --at places them and ffprobe shows them (a picture that starts after the sound starts later on it), and
        so are the times the cut reports. Exit status 1 when the file cannot be cut.
        """,
        operands: .media,
        examples: [
            Example(
                title: "Two minutes from 1:30, into an MP4 beside the film",
                command: "scrubkit cut film.mp4 --from 1:30 --to 3:30"),
            Example(
                title: "The last quarter of a recording, as Matroska",
                command: "scrubkit cut talk.mkv --from 75% -o ending.mkv"),
        ],
        operandCount: 1...1)

    static func run(_ args: [String]) throws -> Int32 {
        let p = try ParsedArguments(args, spec: spec)
        let path = p.positional[0]
        let from = try time(p.value("--from"), default: .absolute(.zero))
        let to = try time(p.value("--to"), default: .fraction(numerator: 1, denominator: 1))
        let output =
            p.value("--output")
            ?? LosslessCut.defaultOutput(for: path, from: p.value("--from") ?? "start", to: p.value("--to") ?? "end")
        do {
            let r = try LosslessCut.cut(path, from: from, to: to, output: output, exact: p.flag("--exact"))
            if p.flag("--json") {
                printOut(
                    JSON.object([
                        ("path", .string(Redaction.display(path))), ("output", .string(r.output)),
                        ("start", .seconds(r.start.seconds)), ("requestedStart", .seconds(r.requestedStart.seconds)),
                        ("end", .seconds(r.end.seconds)), ("reencoded", .seconds(r.reencoded.seconds)),
                        ("streams", .int(r.streams)), ("chapters", .int(r.chapters)),
                        ("notes", .array(r.notes.map { .string($0) })),
                    ]).text)
            } else {
                for note in r.notes { printError("scrubkit: \(Redaction.display(path)): \(note)") }
                var line =
                    "\(r.output)  \(r.start.formatted(fractionDigits: 3))–\(r.end.formatted(fractionDigits: 3)), "
                        + "\(r.streams) stream\(r.streams == 1 ? "" : "s")"
                if r.chapters > 0 { line += ", \(r.chapters) chapter\(r.chapters == 1 ? "" : "s")" }
                if r.start < r.requestedStart {
                    line +=
                        " (starts on the keyframe at \(r.start.formatted(fractionDigits: 3)), before "
                            + "\(r.requestedStart.formatted(fractionDigits: 3)))"
                }
                if r.reencoded > .zero { line += " (the first \(r.reencoded.formatted(fractionDigits: 3)) re-encoded)" }
                printOut(line)
            }
            return 0
        } catch let e as MediaError {
            printError("scrubkit: \(e)")
            return 1
        }
    }

    private static func time(_ text: String?, default value: TimeExpression) throws -> TimeExpression {
        guard let text else { return value }
        do { return try TimeExpression(parsing: text) } catch let e as TimeExpressionError {
            throw UsageError(message: e.description, command: "cut")
        }
    }
}
