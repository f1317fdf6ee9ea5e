import FFmpegBridge
import Foundation
import MediaTime

/// The per-file outputs other than single thumbnails: contact sheets (with blank tiles replaced) and WebVTT sprites.
extension BatchRunner {
    /// Blank tiles replaced by the first non-blank frame among a few nearby times (one more open of the file,
    /// only when some tile is blank; those times are decoded exactly, so they really differ); a replacement must
    /// fall between its neighbours, so the sheet stays in time order. A tile stays as it is when nothing qualifies.
    func replacingBlankTiles(_ good: [(Int, Thumbnail)], generator: ThumbnailGenerator,
                             timeline: ThumbnailGenerator.Timeline) throws -> [(Int, Thumbnail)] {
        guard !timeline.isStill, timeline.duration.isNumeric, good.count > 1 else { return good }
        let blank = good.indices.filter { BlankFrames.isBlank(good[$0].1.image) }
        guard !blank.isEmpty else { return good }
        let start = timeline.start.seconds, end = start + timeline.duration.seconds
        let spacing = timeline.duration.seconds / Double(good.count + 1)
        var asks: [(tile: Int, time: TimeExpression)] = []
        for b in blank {
            for t in BlankFrames.alternatives(to: good[b].1.requestedTime, spacing: spacing, start: start, end: end) { asks.append((b, t)) }
        }
        var exact = generator
        exact.setExact()
        var candidates: [Int: [Thumbnail]] = [:]
        for r in try exact.generate(at: asks.map(\.time)) {
            if case .success(let t) = r.result, !BlankFrames.isBlank(t.image) { candidates[asks[r.index].tile, default: []].append(t) }
        }
        var out = good
        var previous = -Double.infinity
        for i in out.indices {
            if blank.contains(i) {
                // The next tile's picture, or where it was asked for if it is blank too (it moves later).
                let next = i + 1 >= out.count ? .infinity
                    : blank.contains(i + 1) ? out[i + 1].1.requestedTime.seconds : out[i + 1].1.actualTime.seconds
                if let t = candidates[i]?.first(where: { $0.actualTime.seconds > previous && $0.actualTime.seconds < next }) {
                    out[i].1 = t
                }
            }
            previous = out[i].1.actualTime.seconds
        }
        return out
    }

    func writeSheet(_ good: [(Int, Thumbnail)], columns: Int, timeline: ThumbnailGenerator.Timeline, source: String,
                    naming: BatchNaming, into result: inout BatchFileResult) throws {
        guard !good.isEmpty else { return }
        let file = (source as NSString).lastPathComponent
        var header = file
        if timeline.duration.isNumeric { header += "  " + timeline.duration.formatted(fractionDigits: 1) }
        header += "  \(timeline.displayWidth)×\(timeline.displayHeight)  \(timeline.codec)"
        let sheet = ImageComposer.contactSheet(good.map { ($0.1.image, $0.1.actualTime) }, columns: columns, header: header)
        let name = naming.name(source: source, index: 0, seconds: nil, ext: options.format.fileExtension)
            .replacingOccurrences(of: "-0.", with: "-sheet.")
        try emit(ImageEncoder.encode(sheet, as: options.format, quality: options.quality), name: name, into: &result)
        for (index, t) in good { result.records.append(record(source, index, t, output: name)) }
    }

    /// Sprites of at most 10×10 tiles, and a track whose cue i spans [time_i, time_i+1) on a timeline starting at 0.
    func writeVTT(_ good: [(Int, Thumbnail)], timeline: ThumbnailGenerator.Timeline, source: String,
                  naming: BatchNaming, into result: inout BatchFileResult) throws {
        guard !good.isEmpty else { return }
        let perSprite = 100
        let base = naming.name(source: source, index: 0, seconds: nil, ext: "vtt").replacingOccurrences(of: "-0.vtt", with: "")
        var cues: [(start: Double, end: Double, target: String)] = []
        let start = timeline.start.isNumeric ? timeline.start.seconds : 0
        let end = timeline.duration.isNumeric ? timeline.duration.seconds : (good.last!.1.requestedTime.seconds - start + 1)
        for chunkStart in stride(from: 0, to: good.count, by: perSprite) {
            let chunk = Array(good[chunkStart..<min(good.count, chunkStart + perSprite)])
            let (sprite, rects) = ImageComposer.sprite(chunk.map(\.1.image), columns: 10)
            let spriteName = "\(base)-sprite-\(chunkStart / perSprite).\(options.format.fileExtension)"
            try emit(ImageEncoder.encode(sprite, as: options.format, quality: options.quality), name: spriteName, into: &result)
            for (k, (index, t)) in chunk.enumerated() {
                let r = rects[k]
                let target = "\(spriteName)#xywh=\(r.x),\(r.y),\(r.w),\(r.h)"
                let cueStart = t.requestedTime.seconds - start
                let globalNext = chunkStart + k + 1
                let cueEnd = globalNext < good.count ? good[globalNext].1.requestedTime.seconds - start : max(end, cueStart + 0.001)
                cues.append((cueStart, cueEnd, target))
                result.records.append(record(source, index, t, output: target))
            }
        }
        try emit(Array(WebVTT.track(cues).utf8), name: base + ".vtt", into: &result)
    }
}
