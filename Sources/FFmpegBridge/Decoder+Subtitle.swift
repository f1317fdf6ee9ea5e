import CFFmpeg
import MediaTime

/// One subtitle event as its decoder gives it: when it shows, and its text (ASS event lines: FFmpeg turns SubRip,
/// WebVTT and mov_text into ASS) or its pictures (PGS, DVB, VobSub).
public struct DecodedSubtitle: Sendable {
    /// When it starts showing, on the stream's timeline.
    public var start: MediaTime
    /// When it stops; invalid when the event does not say (it lasts until the next one).
    public var end: MediaTime
    /// ASS event lines (`ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`) or plain text lines.
    public var assLines: [String]
    /// Pictures, placed on the subtitle stream's canvas.
    public var bitmaps: [SubtitleBitmap]
}

/// A subtitle picture: RGBA pixels (straight alpha) placed at `x`, `y` on the stream's canvas.
public struct SubtitleBitmap: Sendable, Equatable {
    /// Where its top left corner lies on the canvas.
    public var x: Int
    /// Where its top left corner lies on the canvas.
    public var y: Int
    /// Its size in pixels.
    public var width: Int
    /// Its size in pixels.
    public var height: Int
    /// `width × height × 4` bytes: R, G, B, A.
    public var rgba: [UInt8]
}

extension Decoder {
    /// The size subtitle pictures are placed on (the stream's canvas, PGS's video size); 0×0 when the stream says
    /// none.
    public var subtitleCanvas: (width: Int, height: Int) { (Int(context.pointee.width), Int(context.pointee.height)) }

    /// Decodes one packet of a subtitle stream; nil when it holds no event (or an event that shows nothing: the end
    /// of the one before, as PGS and DVB say it).
    public func decodeSubtitle(_ packet: Packet) throws -> DecodedSubtitle? {
        var subtitle = AVSubtitle()
        var got: Int32 = 0
        try check(avcodec_decode_subtitle2(context, &subtitle, &got, packet.pointer), "decode subtitle")
        guard got != 0 else { return nil }
        defer { avsubtitle_free(&subtitle) }
        let pts = packet.timestamp
        guard pts != MediaTime.noTimestamp else { return nil }
        let base = MediaTime(pts: pts, timeBase: timeBase)
        let start = base + MediaTime(value: Int64(subtitle.start_display_time), timescale: 1000)
        var end = MediaTime.invalid
        if subtitle.end_display_time > subtitle.start_display_time && subtitle.end_display_time != UInt32.max {
            end = base + MediaTime(value: Int64(subtitle.end_display_time), timescale: 1000)
        } else if packet.pointer.pointee.duration > 0 {
            end = base + MediaTime(pts: packet.pointer.pointee.duration, timeBase: timeBase)
        }
        var lines: [String] = []
        var bitmaps: [SubtitleBitmap] = []
        for i in 0..<Int(subtitle.num_rects) {
            guard let rect = subtitle.rects[i] else { continue }
            let r = rect.pointee
            switch r.type {
            case SUBTITLE_ASS: if let ass = r.ass { lines.append(String(cString: ass)) }
            case SUBTITLE_TEXT: if let text = r.text { lines.append(String(cString: text)) }
            case SUBTITLE_BITMAP:
                if let bitmap = Decoder.bitmap(r) { bitmaps.append(bitmap) }
            default: break
            }
        }
        guard !lines.isEmpty || !bitmaps.isEmpty else {
            // (An empty event ends the one before: PGS and DVB clear the screen this way.)
            return DecodedSubtitle(start: start, end: start, assLines: [], bitmaps: [])
        }
        return DecodedSubtitle(start: start, end: end, assLines: lines, bitmaps: bitmaps)
    }

    /// A paletted subtitle picture (8-bit indices, a palette of 32-bit ARGB words) as RGBA; nil when empty or odd.
    static func bitmap(_ r: AVSubtitleRect) -> SubtitleBitmap? {
        let (w, h) = (Int(r.w), Int(r.h))
        guard w > 0, h > 0, w <= 8192, h <= 8192, let indices = r.data.0, let paletteBytes = r.data.1, r.nb_colors > 0
        else { return nil }
        let stride = Int(r.linesize.0)
        guard stride >= w else { return nil }
        let colors = Int(min(r.nb_colors, 256))
        let palette = UnsafeRawPointer(paletteBytes).bindMemory(to: UInt32.self, capacity: colors)
        var rgba = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let index = Int(indices[y * stride + x])
                guard index < colors else { continue }
                let argb = palette[index]
                let o = (y * w + x) * 4
                rgba[o] = UInt8(truncatingIfNeeded: argb >> 16)
                rgba[o + 1] = UInt8(truncatingIfNeeded: argb >> 8)
                rgba[o + 2] = UInt8(truncatingIfNeeded: argb)
                rgba[o + 3] = UInt8(truncatingIfNeeded: argb >> 24)
            }
        }
        return SubtitleBitmap(x: Int(r.x), y: Int(r.y), width: w, height: h, rgba: rgba)
    }
}
