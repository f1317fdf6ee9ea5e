import Foundation
import ScrubKit

/// The representative-frame thresholds as options (`thumb` and `thumbs`), and the candidates as JSON.
enum FrameCriteriaOptions {
    /// `--min-contrast`, `--dark-below`, `--bright-above`, `--min-sharpness`.
    static let specs: [OptionSpec] = [
        OptionSpec(
            names: ["--min-contrast"], takesValue: true, valueName: "N",
            help:
                "Representative frames: luma spread (0-255) under which a frame is one flat colour, black, white or "
                    + "flat (default 6).", range: 0...255),
        OptionSpec(
            names: ["--dark-below"], takesValue: true, valueName: "N",
            help: "Representative frames: mean luma (0-255) under which a frame is black or a fade (default 35).",
            range: 0...255),
        OptionSpec(
            names: ["--bright-above"], takesValue: true, valueName: "N",
            help: "Representative frames: mean luma (0-255) over which a frame is white or a fade (default 225).",
            range: 0...255),
        OptionSpec(
            names: ["--min-sharpness"], takesValue: true, valueName: "N",
            help:
                "Representative frames: detail (Laplacian variance) under which a frame is blurry (default 20; 0 "
                    + "accepts any).", range: 0...1_000_000),
    ]

    /// The criteria the options give (the defaults for those not given).
    static func parse(_ p: ParsedArguments, command: String) throws -> FrameCriteria {
        var c = FrameCriteria()
        if let v = try p.number("--min-contrast") { c.minimumContrast = v }
        if let v = try p.number("--dark-below") { c.darkBelow = v }
        if let v = try p.number("--bright-above") { c.brightAbove = v }
        if let v = try p.number("--min-sharpness") { c.minimumSharpness = v }
        return c
    }

    /// The frames considered, in the order tried: time, why each was passed over, and its measures.
    static func json(_ candidates: [FrameCandidate]) -> JSON {
        .array(candidates.map { c in
            JSON.object([
                ("time", c.time.isNumeric ? .seconds(c.time.seconds) : .null),
                ("rejected", .array(c.rejections.map { .string($0.rawValue) })),
                ("luma", .double((c.score.meanLuma * 10).rounded() / 10)),
                ("contrast", .double((c.score.lumaSpread * 10).rounded() / 10)),
                ("sharpness", .double((c.score.sharpness * 10).rounded() / 10)),
            ])
        })
    }
}
