import FFmpegBridge
import Foundation
import MediaTime

/// The per-file outputs other than single thumbnails: contact sheets (with blank tiles replaced) and WebVTT sprites.
extension BatchRunner {
    /// Blank tiles replaced by the first non-blank frame among a few nearby times (one more open of the file,
    /// only when some tile is blank; those times are decoded exactly, so they really differ); a replacement must
    /// fall between its neighbours, so the sheet stays in time order. A tile stays as it is when nothing qualifies.
    /// With `scenes` (the scene of each planned time, by index), a tile's replacement comes from its own scene: its
    /// label names that scene, and a scene that is all one colour is what the file has there.
    func replacingBlankTiles(
        _ good: [(Int, Thumbnail)], generator: ThumbnailGenerator,
        timeline: ThumbnailGenerator.Timeline, scenes: [Scene]? = nil
    ) throws -> [(Int, Thumbnail)] {
        guard !timeline.isStill, timeline.duration.isNumeric, good.count > 1 else { return good }
        let blank = good.indices.filter { BlankFrames.isBlank(good[$0].1.image) }
        guard !blank.isEmpty else { return good }
        let start = timeline.start.seconds, end = start + timeline.duration.seconds
        let spacing = timeline.duration.seconds / Double(good.count + 1)
        /// Where tile `i`'s replacement may come from, and how far apart the times tried are.
        func range(_ i: Int) -> (lo: Double, hi: Double, spacing: Double) {
            guard let scenes, scenes.indices.contains(good[i].0) else { return (start, end, spacing) }
            let scene = scenes[good[i].0]
            return (scene.start.seconds, (scene.start + scene.duration).seconds - 0.001, scene.duration.seconds / 2)
        }
        var asks: [(tile: Int, time: TimeExpression)] = []
        for b in blank {
            let r = range(b)
            for t in BlankFrames.alternatives(to: good[b].1.requestedTime, spacing: r.spacing, start: r.lo, end: r.hi) {
                asks.append((b, t))
            }
        }
        var exact = generator
        exact.setExact()
        var candidates: [Int: [Thumbnail]] = [:]
        for r in try exact.generate(at: asks.map(\.time)) {
            if case .success(let t) = r.result, !BlankFrames.isBlank(t.image) {
                candidates[asks[r.index].tile, default: []].append(t)
            }
        }
        var out = good
        var previous = -Double.infinity
        for i in out.indices {
            if blank.contains(i) {
                // The next tile's picture, or where it was asked for if it is blank too (it moves later).
                let next = i + 1 >= out.count ? .infinity
                    : blank.contains(i + 1) ? out[i + 1].1.requestedTime.seconds : out[i + 1].1.actualTime.seconds
                let r = range(i)
                if let t = candidates[i]?.first(where: {
                    $0.actualTime.seconds > previous && $0.actualTime.seconds < next
                        && $0.actualTime.seconds >= r.lo && $0.actualTime.seconds <= r.hi
                }) {
                    out[i].1 = t
                }
            }
            previous = out[i].1.actualTime.seconds
        }
        return out
    }

    /// A contact sheet of `good`; with `scenes` (the scene of each planned time, by index), each tile is labelled
    /// with its scene's start and length instead of the frame's time.
    func writeSheet(_ good: [(Int, Thumbnail)], columns: Int, timeline: ThumbnailGenerator.Timeline, source: String,
                    naming: BatchNaming, scenes: [Scene]? = nil, into result: inout BatchFileResult) throws {
        guard !good.isEmpty else { return }
        var style = options.sheetStyle
        style.columns = columns
        var labels = BatchRunner.tileLabels(
            good.map(\.1.actualTime), start: timeline.start, absolute: options.absoluteTimes)
        if let scenes, good.allSatisfy({ scenes.indices.contains($0.0) }) {
            let starts = BatchRunner.tileLabels(
                good.map { scenes[$0.0].start }, start: timeline.start, absolute: options.absoluteTimes)
            labels = zip(good, starts).map { g, start in
                "\(start) +\(String(format: "%.1f", scenes[g.0].duration.seconds))s"
            }
        }
        let (title, details) = BatchRunner.sheetHeader(source: source, timeline: timeline)
        let sheet = try ImageComposer.contactSheet(
            zip(good, labels).map { ($0.0.1.image, $0.1) }, style: style, title: title,
            details: details, path: source)
        let name = naming.name(source: source, index: 0, seconds: nil, ext: options.format.fileExtension)
            .replacingOccurrences(of: "-0.", with: "-sheet.")
        try emit(sheet.encoded(as: options.format, quality: options.quality), name: name, into: &result)
        for (index, t) in good { result.records.append(record(source, index, t, output: name)) }
    }

    /// Tile labels: times from the start of the file (`absolute`: presentation timestamps), one format per sheet.
    static func tileLabels(_ times: [MediaTime], start: MediaTime, absolute: Bool) -> [String] {
        let origin = absolute || !start.isNumeric ? 0 : start.seconds
        return SheetTimes.labels(times.map { $0.seconds - origin })
    }

    /// A sheet's header: the file's name, then its facts (size on disk, duration, picture, codec, frame rate, bit
    /// rate) and its sound, from the container's headers as the thumbnails' open read them (no second open: a URL
    /// is not fetched again).
    static func sheetHeader(source: String, timeline: ThumbnailGenerator.Timeline) -> (String, [String]) {
        let title = (Redaction.display(source) as NSString).lastPathComponent
        var facts: [String] = []
        var st = stat()
        if !Demuxer.isURL(source), stat(source, &st) == 0 { facts.append(byteCount(Int64(st.st_size))) }
        if timeline.duration.isNumeric {
            facts.append(
                SheetTimes.label(timeline.duration.seconds, digits: 2, hours: timeline.duration.seconds >= 3600))
        }
        facts.append("\(timeline.displayWidth)×\(timeline.displayHeight)")
        if let v = timeline.video {
            facts.append(
                v.codec + (v.profile.map { " \($0)" } ?? "") + (v.bitDepth.map { $0 > 8 ? " \($0)-bit" : "" } ?? ""))
            if let fps = v.averageFrameRate ?? v.frameRate, fps > 0 {
                facts.append(String(format: fps == fps.rounded() ? "%.0f fps" : "%.3g fps", fps))
            }
            if v.hdr != .none { facts.append("HDR " + v.hdr.rawValue.uppercased()) }
        } else {
            facts.append(timeline.codec)
        }
        if let b = timeline.bitRate, b > 0 {
            facts.append(b >= 1_000_000 ? String(format: "%.1f Mb/s", Double(b) / 1e6) : "\(b / 1000) kb/s")
        }
        let audio =
            timeline.audio.isEmpty
            ? "no audio"
            : "audio: "
                + timeline.audio.map { a in
                    let ch = a.channels == 1 ? "mono" : a.channels == 2 ? "stereo" : "\(a.channels) ch"
                    let rate = a.sampleRate % 1000 == 0
                        ? "\(a.sampleRate / 1000)" : String(format: "%.1f", Double(a.sampleRate) / 1000)
                    return "\(a.codec) \(rate) kHz \(ch)"
                }.joined(separator: ", ")
        return (title, [facts.joined(separator: "  ·  "), audio])
    }

    static func byteCount(_ n: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var v = Double(n), i = 0
        while v >= 1024 && i < units.count - 1 { v /= 1024; i += 1 }
        return i == 0 ? "\(n) B" : String(format: v >= 100 ? "%.0f" : "%.1f", v) + " " + units[i]
    }

    /// Sprites of at most 10×10 tiles, and a track whose cues tile the whole timeline (from 0, as web players count)
    /// with no gap: each thumbnail's cue runs from halfway after the one before it (0 for the first) to halfway to
    /// the next (the end for the last) — for a `.track` plan, exactly its interval; with `scenes`, from each scene's
    /// start to the next one's.
    func writeVTT(_ good: [(Int, Thumbnail)], timeline: ThumbnailGenerator.Timeline, source: String,
                  naming: BatchNaming, scenes: [Scene]? = nil, into result: inout BatchFileResult) throws {
        guard !good.isEmpty else { return }
        let perSprite = 100
        let base = naming.name(source: source, index: 0, seconds: nil, ext: "vtt").replacingOccurrences(
            of: "-0.vtt", with: "")
        var cues: [(start: Double, end: Double, target: String)] = []
        let start = timeline.start.isNumeric ? timeline.start.seconds : 0
        let end =
            timeline.duration.isNumeric ? timeline.duration.seconds : (good.last!.1.requestedTime.seconds - start + 1)
        for chunkStart in stride(from: 0, to: good.count, by: perSprite) {
            let chunk = Array(good[chunkStart..<min(good.count, chunkStart + perSprite)])
            let (sprite, rects) = ImageComposer.sprite(chunk.map(\.1.image), columns: 10)
            let spriteName = "\(base)-sprite-\(chunkStart / perSprite).\(options.format.fileExtension)"
            try emit(sprite.encoded(as: options.format, quality: options.quality), name: spriteName, into: &result)
            for (k, (index, t)) in chunk.enumerated() {
                let r = rects[k]
                let target = "\(spriteName)#xywh=\(r.x),\(r.y),\(r.w),\(r.h)"
                let i = chunkStart + k
                let here = t.requestedTime.seconds - start
                var cueStart = i == 0 ? 0 : (good[i - 1].1.requestedTime.seconds - start + here) / 2
                var cueEnd =
                    i + 1 < good.count
                    ? (here + good[i + 1].1.requestedTime.seconds - start) / 2 : max(end, here + 0.001)
                // By scene: each cue runs from its scene's start to the next shown scene's.
                if let scenes, scenes.indices.contains(index) {
                    if i > 0 { cueStart = scenes[index].start.seconds - start }
                    if i + 1 < good.count, scenes.indices.contains(good[i + 1].0) {
                        cueEnd = scenes[good[i + 1].0].start.seconds - start
                    }
                }
                cues.append((cueStart, cueEnd, target))
                result.records.append(record(source, index, t, output: target))
            }
        }
        try emit(Array(WebVTT.track(cues).utf8), name: base + ".vtt", into: &result)
    }
}
