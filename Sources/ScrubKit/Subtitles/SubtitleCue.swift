import FFmpegBridge
import MediaTime

/// One subtitle shown for a while: its lines of text, or its pictures (PGS, DVB, VobSub) on the stream's canvas.
public struct SubtitleCue: Sendable, Equatable {
    /// When it appears, on the media's timeline.
    public var start: MediaTime
    /// When it goes; invalid when its event did not say (it then lasts until the next cue).
    public var end: MediaTime
    /// Its text, a line each (ASS reduced to text: override tags stripped, `\N` breaks kept).
    public var lines: [String]
    /// Its pictures (bitmap subtitles), placed on ``canvasWidth`` × ``canvasHeight``.
    public var pictures: [SubtitlePicture]
    /// The canvas bitmap pictures are placed on (the video's size when the stream states none).
    public var canvasWidth: Int
    /// The canvas's height.
    public var canvasHeight: Int

    /// A cue of text lines.
    public init(start: MediaTime, end: MediaTime, lines: [String]) {
        self.start = start
        self.end = end
        self.lines = lines
        pictures = []
        canvasWidth = 0
        canvasHeight = 0
    }

    /// Whether it shows nothing (an event that only ends the one before, as PGS and DVB send them).
    public var isEmpty: Bool { lines.isEmpty && pictures.isEmpty }

    /// The cue of a decoded event: ASS lines reduced to text (positioned signs and drawings left out), pictures as
    /// they are. Nil when nothing of it is shown (only signs) — unless it is an empty, clearing event.
    init?(_ event: DecodedSubtitle, canvas: (width: Int, height: Int)) {
        start = event.start
        end = event.end
        lines = event.assLines.flatMap { SubtitleCue.text(ofASSEvent: $0) ?? [] }
        pictures = event.bitmaps.map {
            SubtitlePicture(x: $0.x, y: $0.y, width: $0.width, height: $0.height, rgba: $0.rgba)
        }
        (canvasWidth, canvasHeight) = canvas
        if isEmpty && !(event.assLines.isEmpty && event.bitmaps.isEmpty) { return nil }
    }

    /// The text of an ASS event as FFmpeg's decoders give it (`ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,
    /// Effect,Text`, or a whole `Dialogue:` line), a line each: override blocks `{…}` stripped, `\N` and `\n` line
    /// breaks, `\h` a space. Nil for a positioned sign or a drawing (`\pos`, `\move`, `\p1`…), which a terminal
    /// cannot place.
    public static func text(ofASSEvent event: String) -> [String]? {
        let isDialogue = event.hasPrefix("Dialogue:")
        // (The text is the last field: it may hold commas itself.)
        var fields = 0, index = event.startIndex
        while fields < (isDialogue ? 9 : 8), let comma = event[index...].firstIndex(of: ",") {
            fields += 1
            index = event.index(after: comma)
        }
        guard fields == (isDialogue ? 9 : 8) else { return plain(event) }
        return plain(String(event[index...]))
    }

    static func plain(_ text: String) -> [String]? {
        var out = "", tags = "", inTags = false
        for ch in text {
            if inTags {
                if ch == "}" {
                    inTags = false
                    if tags.contains("\\pos(") || tags.contains("\\move(") || tags.firstMatch(of: /\\p[1-9]/) != nil {
                        return nil
                    }
                    tags = ""
                } else { tags.append(ch) }
            } else if ch == "{" { inTags = true } else { out.append(ch) }
        }
        out = out.replacingOccurrences(of: "\\N", with: "\n").replacingOccurrences(of: "\\n", with: "\n")
            .replacingOccurrences(of: "\\h", with: " ")
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        .filter { !$0.isEmpty }
        return lines
    }
}

/// A bitmap subtitle's picture: RGBA pixels (straight alpha) at `x`, `y` on its cue's canvas.
public struct SubtitlePicture: Sendable, Equatable {
    /// Where its top left corner lies on the canvas.
    public var x: Int
    /// Where its top left corner lies on the canvas.
    public var y: Int
    /// Its width in pixels.
    public var width: Int
    /// Its height in pixels.
    public var height: Int
    /// `width × height × 4` bytes: R, G, B, A.
    public var rgba: [UInt8]
}

/// The cues of one track, in order of start, each shown from its start to its end (or, without one, to the next
/// cue's start); a bitmap cue (a PGS or DVB display set) also ends where the next one starts, which replaces it.
struct SubtitleCues: Sendable {
    private(set) var cues: [SubtitleCue] = []
    /// Bytes of pictures held (bitmap tracks are bounded: the oldest go first).
    private var pictureBytes = 0
    static let pictureBudget = 32 << 20
    static let maximumCues = 50_000

    /// Adds `cue` (again: ignored).
    mutating func insert(_ cue: SubtitleCue) {
        let i = cues.firstIndex { $0.start > cue.start } ?? cues.count
        if cues[..<i].reversed().prefix(while: { $0.start == cue.start }).contains(where: { $0 == cue }) { return }
        guard cues.count < SubtitleCues.maximumCues else { return }
        cues.insert(cue, at: i)
        pictureBytes += cue.pictures.reduce(0) { $0 + $1.rgba.count }
        while pictureBytes > SubtitleCues.pictureBudget, let oldest = cues.firstIndex(where: { !$0.pictures.isEmpty }),
            oldest != i
        {
            pictureBytes -= cues[oldest].pictures.reduce(0) { $0 + $1.rgba.count }
            cues.remove(at: oldest)
        }
    }

    /// The cues showing at `time`, in order of start.
    func active(at time: MediaTime) -> [SubtitleCue] {
        let upTo = cues.firstIndex { $0.start > time } ?? cues.count
        var out: [SubtitleCue] = []
        for i in 0..<upTo where !cues[i].isEmpty {
            let next = i + 1 < cues.count ? cues[i + 1].start : MediaTime.positiveInfinity
            let end =
                !cues[i].end.isNumeric
                ? next : cues[i].pictures.isEmpty ? cues[i].end : MediaTime.minimum(cues[i].end, next)
            if time < end { out.append(cues[i]) }
        }
        return out
    }
}
