import Foundation
import MediaTime
import ScrubKit
import Locking

/// Drawing `scrubkit play`'s screen: the picture, the hover preview, the bar and the status line, from one reading of
/// the player each time.
extension PlayerApp {
    /// The sound's part of the status line: the volume, "muted", or why there is no sound (in full for 5 s).
    func soundLabel(now: Double) -> String {
        let s = player.soundStatus
        guard s.isAvailable else {
            guard let problem = s.problem else { return "" }
            if problem != soundProblemSeen { soundProblemSeen = problem; soundNoticeUntil = now + 5 }
            return now < soundNoticeUntil ? "no sound (\(problem))" : "no sound"
        }
        let level =
            (s.streamCount > 1 ? "audio \(s.streamNumber)/\(s.streamCount) " : "")
            + (s.isMuted ? "muted" : "vol \(Int((s.volume * 100).rounded()))%")
            + (player.playsScrubSound ? "" : ", scrub sound off")
        return level
    }

    /// The hover box for the pointer at `pointerColumn`; label only without `pictures`.
    func hoverBox(pointerColumn: Int, pictures: Bool, _ info: PlayerMediaInfo?) -> HoverPreviewBox {
        HoverPreviewBox(layout: layout, renderer: pictures ? renderer : nil, cellPixels: cellPixels,
                        aspect: info?.hasVideo == true ? aspectRatio(info) : nil, pointerColumn: pointerColumn)
    }

    func draw(_ info: PlayerMediaInfo?) {
        var out = ""
        let now = player.clock.now()
        let pointerColumn = hoverPreview.pointer?.column ?? 0
        let hoverPlan = hoverPreview.plan(
            box: hoverBox(pointerColumn: pointerColumn, pictures: hover != nil && hover?.failure == nil, info),
            answer: hover?.newest, renderer: renderer)
        // Pacing: the next picture waits until the terminal had as long as the last one took to write.
        // kitty's pictures go outside the synchronized update: kitty holds what comes inside one in a bounded
        // buffer, and a large picture overflowed it (no picture shown, "too much data in pending mode").
        var unsynchronized = ""
        var picture = ""
        let g = composer.pictureGeometry(layout: layout, cellPixels: cellPixels, aspect: aspectRatio(info))
        // One reading of the player for the picture, the bar and the status line.
        let snap = player.snapshot(takingFrame: renderer.drawsPictures && now - lastPictureAt >= lastPictureCost)
        // Subtitles, read once: bitmap ones are drawn into the picture, text goes in the rows under it.
        let subtitles: (cues: [SubtitleCue], problem: MediaError?) =
            showsSubtitles ? player.subtitles(at: snap.frame?.time ?? snap.time) : ([], nil)
        let bitmaps = subtitles.cues.filter { !$0.pictures.isEmpty }
        let bitmapsChanged = bitmaps.map(\.start) != bitmapsDrawn
        if let frame = snap.frame {
            lastImage = frame.image
            lastImageTime = frame.time
            picture = composer.paint(frame.image.drawing(bitmaps, text: false), geometry: g, cellPixels: cellPixels)
            lastImageUnpainted = picture.isEmpty
            bitmapsDrawn = bitmaps.map(\.start)
        } else if hoverPlan.needsPicture || lastImageUnpainted || bitmapsChanged, let image = lastImage {
            // What the preview covered, a picture the renderer put off (kitty had not read the one before: paused,
            // no later frame would ever bring it), or bitmap subtitles that came or went while paused.
            picture = composer.paint(image.drawing(bitmaps, text: false), geometry: g, cellPixels: cellPixels)
            lastImageUnpainted = picture.isEmpty
            bitmapsDrawn = bitmaps.map(\.start)
        }
        let overlay = hoverPreview.draw(
            painted: !picture.isEmpty, renderer: renderer, cellPixels: cellPixels, color: composer.color)
        if renderer.writesPicturesUnsynchronized {
            unsynchronized = picture + overlay.picture
            out += hoverPlan.erase + overlay.label
        } else {
            out += hoverPlan.erase + picture + overlay.picture + overlay.label
        }
        let current = snap.time, start = snap.start, span = snap.seekableSpan
        shownTime = current
        var line = StatusLine(
            playing: snap.rate > 0, current: current - start, duration: snap.duration, rate: rates[rateIndex],
            exactSeeks: exact, graphics: graphicsLabel, dropped: player.frameStatistics.dropped)
        line.sound = soundLabel(now: now)
        line.problem = player.readingStatus.description
        let chapters = info?.chapters ?? []
        if let i = chapters.index(at: current) {
            line.chapter = "\(i + 1)/\(chapters.count)" + (chapters[i].title.map { " " + $0 } ?? "")
        }
        line.loop = loopMarks.label(start: start)
        line.entry = entryLabel
        let (subtitleStatus, subtitleRows) = subtitleParts(subtitles)
        line.subtitle = subtitleStatus
        line.notice = notice.withLock { n in n.flatMap { now < $0.until ? $0.text : nil } } ?? ""
        let fraction = snap.fraction
        let spans = span.isNumeric && span > .zero
        let ticks = spans ? chapters.dropFirst().map { ($0.start - start).fraction(of: span) } : []
        let marks =
            spans ? loopMarks.marks.map { (fraction: ($0.time - start).fraction(of: span), letter: $0.letter) } : []
        let status = composer.status(layout: layout, line: line, fraction: fraction, ticks: ticks, marks: marks)
        if status != lastStatus { out += status; lastStatus = status }
        if !hoverPlan.erase.isEmpty { loudnessDrawn = -1; tallDrawn = nil }   // (an erased box may have covered them)
        if !hoverPlan.erase.isEmpty { subtitleDrawn = nil }
        out += subtitleRows
        out += loudnessRow()
        out += loudnessPicture(info, fraction: fraction)
        guard !out.isEmpty || !unsynchronized.isEmpty, !quit.load(ordering: .relaxed) else { return }
        let began = player.clock.now()
        if !unsynchronized.isEmpty { terminal.write(unsynchronized) }
        if !out.isEmpty { terminal.write("\u{1B}[?2026h" + out + "\u{1B}[?2026l") }
        let took = player.clock.now() - began
        if out.count + unsynchronized.count > 4096 { lastPictureAt = began; lastPictureCost = took }
    }
}
