import CFontconfig
import Glibc
import CFreeType
import Locking

/// Text rendered to an alpha mask: coverage 0–255 per pixel, `baseline` rows from the top.
public struct TextMask: Sendable {
    /// Width of the mask in pixels.
    public var width: Int
    /// Height of the mask in pixels.
    public var height: Int
    /// Row of the baseline, from the top.
    public var baseline: Int
    /// Coverage, 0–255, row after row.
    public var alpha: [UInt8]
}

/// No usable font.
public struct FontError: Error, Sendable, CustomStringConvertible {
    /// What went wrong with the font.
    public var description: String
}

/// Font files found with fontconfig (calls are serialised: fontconfig's default configuration is shared state).
public enum FontLocator {
    /// The font used when none is named: fontconfig's `sans-serif` (DejaVu Sans on Debian).
    public static let defaultPattern = "sans-serif"

    private static let lock = Locked<[String: String?]>([:])

    /// The file for `name`: an existing file path as is; otherwise a fontconfig pattern (`DejaVu Sans`,
    /// `sans-serif:bold`, `Noto Serif:italic`). Nil when fontconfig has no font at all.
    public static func file(for name: String) -> String? {
        // A path names that file or nothing (fontconfig would otherwise answer with some other font).
        if name.contains("/") { return access(name, R_OK) == 0 ? name : nil }
        return lock.withLock { cache in
            if let hit = cache[name] { return hit }
            let found = match(pattern: name, covering: nil)
            cache[name] = found
            return found
        }
    }

    /// A font file with a glyph for `scalar` (the default font first), or nil when no installed font has one.
    public static func file(covering scalar: UInt32) -> String? {
        let key = "U+\(scalar)"
        return lock.withLock { cache in
            if let hit = cache[key] { return hit }
            let found = match(pattern: defaultPattern, covering: scalar)
            cache[key] = found
            return found
        }
    }

    private static func match(pattern: String, covering scalar: UInt32?) -> String? {
        guard let pat = FcNameParse(pattern) else { return nil }
        defer { FcPatternDestroy(pat) }
        var charset: OpaquePointer? = nil
        if let scalar {
            charset = FcCharSetCreate()
            FcCharSetAddChar(charset, scalar)
            FcPatternAddCharSet(pat, "charset", charset)
        }
        defer { if let charset { FcCharSetDestroy(charset) } }
        FcConfigSubstitute(nil, pat, FcMatchPattern)
        FcDefaultSubstitute(pat)
        var result = FcResultNoMatch
        guard let font = FcFontMatch(nil, pat, &result) else { return nil }
        defer { FcPatternDestroy(font) }
        if let scalar {
            var has: OpaquePointer? = nil
            guard FcPatternGetCharSet(font, "charset", 0, &has) == FcResultMatch, FcCharSetHasChar(has, scalar) != 0
            else { return nil }
        }
        var file: UnsafeMutablePointer<FcChar8>? = nil
        guard FcPatternGetString(font, "file", 0, &file) == FcResultMatch, let file else { return nil }
        let path = String(cString: file)
        return access(path, R_OK) == 0 ? path : nil
    }
}

/// Anti-aliased text with FreeType: kerning, and characters the font lacks drawn from another installed font that
/// has them (fontconfig), else the font's missing-glyph box. One instance per task (FreeType objects are not shared).
public final class TextRenderer {
    /// The main font's file.
    public let fontPath: String
    private var library: FT_Library?
    private var faces: [String: FT_Face] = [:]
    private var fallback: [UInt32: String?] = [:]

    /// The font named by `font` (a file, or a fontconfig pattern; nil: `sans-serif`, which is DejaVu Sans on Debian).
    /// Throws when there is none or it does not load.
    public init(font: String? = nil) throws {
        guard let path = FontLocator.file(for: font ?? FontLocator.defaultPattern) else {
            throw FontError(description: font.map { "no font found for '\($0)'" }
                            ?? "no font installed (install fonts-dejavu-core, or give --font FILE)")
        }
        fontPath = path
        var lib: FT_Library? = nil
        guard FT_Init_FreeType(&lib) == 0 else { throw FontError(description: "FreeType did not start") }
        library = lib
        guard face(path) != nil else {
            FT_Done_FreeType(lib)
            library = nil
            throw FontError(description: "cannot load the font \(path)")
        }
    }

    deinit {
        for f in faces.values { FT_Done_Face(f) }
        if let library { FT_Done_FreeType(library) }
    }

    private func face(_ path: String) -> FT_Face? {
        if let f = faces[path] { return f }
        var f: FT_Face? = nil
        guard FT_New_Face(library, path, 0, &f) == 0, let f else { return nil }
        faces[path] = f
        return f
    }

    /// The face and glyph index that draw `scalar`.
    private func glyph(_ scalar: UInt32) -> (FT_Face, FT_UInt) {
        let main = faces[fontPath]!
        let i = FT_Get_Char_Index(main, FT_ULong(scalar))
        if i != 0 { return (main, i) }
        if fallback[scalar] == nil { fallback[scalar] = FontLocator.file(covering: scalar) }
        if let p = fallback[scalar] ?? nil, let f = face(p) {
            let j = FT_Get_Char_Index(f, FT_ULong(scalar))
            if j != 0 { return (f, j) }
        }
        return (main, 0)
    }

    /// `text` on one line at `pixelSize` (the em height in pixels).
    public func render(_ text: String, pixelSize: Int) -> TextMask {
        let px = FT_UInt(max(4, min(pixelSize, 512)))
        let main = faces[fontPath]!
        FT_Set_Pixel_Sizes(main, 0, px)
        let ascent = Int(main.pointee.size.pointee.metrics.ascender >> 6)
        let descent = Int(-(main.pointee.size.pointee.metrics.descender >> 6))
        var pieces: [(x: Int, y: Int, w: Int, h: Int, bytes: [UInt8])] = []
        var pen = 0          // 26.6
        var previous: (FT_Face, FT_UInt)? = nil
        var right = 0
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 { continue }
            let (f, index) = glyph(scalar.value)
            if f != main { FT_Set_Pixel_Sizes(f, 0, px) }
            if let (pf, pi) = previous, pf == f, scrub_ft_has_kerning(f) != 0 {
                var delta = FT_Vector()
                if FT_Get_Kerning(f, pi, index, FT_UInt(FT_KERNING_DEFAULT.rawValue), &delta) == 0 {
                    pen += Int(delta.x)
                }
            }
            previous = (f, index)
            guard FT_Load_Glyph(f, index, Int32(FT_LOAD_RENDER)) == 0, let slot = f.pointee.glyph else { continue }
            let bm = slot.pointee.bitmap
            let w = Int(bm.width), h = Int(bm.rows), pitch = Int(bm.pitch)
            if w > 0, h > 0, let buffer = bm.buffer, bm.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue) {
                var bytes = [UInt8](repeating: 0, count: w * h)
                for row in 0..<h {
                    let src = pitch >= 0 ? buffer + row * pitch : buffer + (h - 1 - row) * -pitch
                    for col in 0..<w { bytes[row * w + col] = src[col] }
                }
                let x = (pen >> 6) + Int(slot.pointee.bitmap_left)
                pieces.append((x, ascent - Int(slot.pointee.bitmap_top), w, h, bytes))
                right = max(right, x + w)
            }
            pen += Int(slot.pointee.advance.x)
        }
        let width = max(right, (pen + 63) >> 6, 1), height = max(1, ascent + descent)
        var alpha = [UInt8](repeating: 0, count: width * height)
        for p in pieces {
            for row in 0..<p.h {
                let y = p.y + row
                guard y >= 0, y < height else { continue }
                for col in 0..<p.w {
                    let x = p.x + col
                    guard x >= 0, x < width else { continue }
                    let a = p.bytes[row * p.w + col]
                    if a > alpha[y * width + x] { alpha[y * width + x] = a }
                }
            }
        }
        return TextMask(width: width, height: height, baseline: ascent, alpha: alpha)
    }
}

/// Versions of the text libraries, for `scrubkit --version`.
public enum TextLibraries {
    /// FreeType's version (the headers').
    public static var freeType: String { "\(FREETYPE_MAJOR).\(FREETYPE_MINOR).\(FREETYPE_PATCH)" }
    /// fontconfig's version, as found at run time (`FcGetVersion`: 21401 = 2.14.1).
    public static var fontconfig: String {
        let v = Int(FcGetVersion())
        return "\(v / 10000).\(v / 100 % 100).\(v % 100)"
    }
}
