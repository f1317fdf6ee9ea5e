import MediaTime

/// The progress/slider bar: maps time ↔ column so both ends are reachable and a column's time maps back to it
/// (within half a column), and draws the played part, the knob, times and play state.
public struct SliderBar: Sendable {
    /// First column of the track (0-based) and its width in cells (≥ 2).
    public var origin: Int
    /// The track's width in cells (at least 2).
    public var width: Int

    /// A track starting at column `origin` (0-based), `width` cells wide (at least 2).
    public init(origin: Int, width: Int) {
        self.origin = origin
        self.width = max(2, width)
    }

    /// The column showing `fraction` (clamped to [0, 1]): round(fraction × (width − 1)), so 0 → first, 1 → last.
    public func column(forFraction fraction: Double) -> Int {
        let f = fraction.isNaN ? 0 : min(1, max(0, fraction))
        return origin + Int((f * Double(width - 1)).rounded())
    }

    /// The fraction a click at `column` means (clamped to the track).
    public func fraction(forColumn column: Int) -> Double {
        let c = min(max(column - origin, 0), width - 1)
        return Double(c) / Double(width - 1)
    }

    /// Whether `column` lies on the track.
    public func contains(column: Int) -> Bool { column >= origin && column < origin + width }

    /// The track: played part `━`, knob `●`, rest `─`, with a tick (`╋`, `┼`) at each of `ticks` (fractions:
    /// chapter starts) and each of `marks` drawn as its letter (an A-B loop's ends); with colour when allowed.
    public func render(
        fraction: Double, color: Bool, ticks: [Double] = [], marks: [(fraction: Double, letter: Character)] = []
    ) -> String {
        let knob = column(forFraction: fraction) - origin
        let tickColumns = Set(ticks.map { column(forFraction: $0) - origin })
        var letters: [Int: Character] = [:]
        for m in marks { letters[column(forFraction: m.fraction) - origin] = m.letter }
        let played = String((0..<knob).map { letters[$0] ?? (tickColumns.contains($0) ? "╋" : "━") })
        let rest = String(
            ((knob + 1)..<max(knob + 1, width)).map { letters[$0] ?? (tickColumns.contains($0) ? "┼" : "─") })
        if color {
            // The knob in the terminal's own foreground colour (bold), visible on dark and light backgrounds alike.
            return "\u{1B}[38;2;255;80;80m\(played)\u{1B}[39;1m●\u{1B}[22m\u{1B}[38;2;128;128;128m\(rest)\u{1B}[0m"
        }
        return played + "●" + rest
    }
}

/// The status line under the bar: play state, current / duration, remaining, rate, seek mode.
public struct StatusLine: Sendable {
    /// Playing (▶) or paused (⏸).
    public var playing: Bool
    /// The current media time.
    public var current: MediaTime
    /// The length; shown as unknown when not numeric.
    public var duration: MediaTime
    /// Playback rate (shown when not 1×).
    public var rate: Double
    /// Whether keyboard and mouse seeks land on exact frames.
    public var exactSeeks: Bool
    /// The graphics in use and why (`kitty (terminal query)`).
    public var graphics: String
    /// Frames dropped so far (shown when any).
    public var dropped: Int
    /// The sound: volume, "muted" or why there is none ("" to leave it out).
    public var sound = ""
    /// The chapter playing ("2/5 Title"; "" to leave it out).
    public var chapter = ""
    /// The A-B loop ("A 0:02.0", "A-B 0:02.0–0:05.0"; "" to leave it out).
    public var loop = ""
    /// A passing notice, shown right after the times ("cut written: …"; "" for none).
    public var notice = ""
    /// What is wrong with reading the media, shown right after the times while it lasts ("the server went away: …";
    /// "" for nothing).
    public var problem = ""
    /// The playlist's entry playing ("2/14 clip.mp4"; "" to leave it out: one file).
    public var entry = ""
    /// The subtitles ("sub 1/2 eng", "sub off"; "" to leave it out: none).
    public var subtitle = ""

    /// A status line with these facts.
    public init(
        playing: Bool, current: MediaTime, duration: MediaTime, rate: Double, exactSeeks: Bool, graphics: String,
        dropped: Int
    ) {
        self.playing = playing
        self.current = current
        self.duration = duration
        self.rate = rate
        self.exactSeeks = exactSeeks
        self.graphics = graphics
        self.dropped = dropped
    }

    /// Fits `width` columns: the times always, then the extras that fit.
    public func render(width: Int) -> String {
        let digits = duration.isNumeric && duration.seconds < 3600 ? 1 : 0
        let times = "\(current.formatted(fractionDigits: digits)) / \(duration.formatted(fractionDigits: digits))"
        let remaining = duration.isNumeric ? "-" + (duration - current).formatted(fractionDigits: digits) : ""
        let rateText = rate == 1 ? "1×" : String(format: "%g×", rate)
        // Glyphs common monospace fonts have (DejaVu Sans Mono has ▶ and ‖, not ⏸ or ⏯).
        var parts = [playing ? "▶ playing" : "‖ paused", times] + (problem.isEmpty ? [] : [problem])
            + (notice.isEmpty ? [] : [notice])
            + (entry.isEmpty ? [] : [entry]) + [remaining, rateText]
            + (chapter.isEmpty ? [] : ["ch " + chapter]) + (loop.isEmpty ? [] : [loop])
            + (subtitle.isEmpty ? [] : [subtitle])
            + (sound.isEmpty ? [] : [sound]) + [exactSeeks ? "exact seeks" : "fast seeks"]
        let help =
            "space play/pause  ←/→ 5s  ↑/↓ 60s  ,/. frame  0-9 %  [/] speed  e exact  m mute  / * vol  PgUp/Dn "
                + "chapter "
                + " l loop  c cut  s shot  q quit"
        var line = parts.joined(separator: "  ")
        // The graphics mode, with its reason when that fits ("blocks256 (tmux/screen: …)"), else the mode alone.
        let shortGraphics = graphics.split(separator: " ", maxSplits: 1).first.map(String.init) ?? graphics
        if line.count + 2 + graphics.count <= width {
            line += "  " + graphics; parts.append(graphics)
        } else if line.count + 2 + shortGraphics.count <= width {
            line += "  " + shortGraphics; parts.append(shortGraphics)
        }
        if dropped > 0, line.count + 12 <= width { line += "  \(dropped) dropped" }
        if line.count + 4 + help.count <= width { line += "    " + help }
        return String(line.prefix(width))
    }
}
