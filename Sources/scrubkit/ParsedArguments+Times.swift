import MediaTime
import ScrubKit

/// Durations and seek tolerances as `thumb` and `thumbs` read them: one parser, one message.
extension ParsedArguments {
    /// `name`'s value as a duration (`0.5s`, `200ms`, `1:30`), nil when not given; a usage error naming `example`
    /// when it is not one.
    func duration(_ name: String, example: String = "0.5s or 200ms", command: String) throws -> MediaTime? {
        guard let text = value(name) else { return nil }
        guard case .absolute(let t)? = try? TimeExpression(parsing: text) else {
            throw UsageError(message: "\(name) expects a duration such as \(example), got '\(text)'", command: command)
        }
        return t
    }

    /// The tolerances `--exact` (none), `--fast` (infinite: the keyframe before) or `--tolerance T` (T before, none
    /// after) ask for; nil when none of them is given.
    func tolerances(command: String) throws -> (before: MediaTime, after: MediaTime)? {
        if flag("--exact") { return (.zero, .zero) }
        if flag("--fast") { return (.positiveInfinity, .positiveInfinity) }
        return try duration("--tolerance", command: command).map { ($0, .zero) }
    }
}
