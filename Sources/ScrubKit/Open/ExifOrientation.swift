import Foundation

/// The EXIF orientation tag (0x0112) of a JPEG, read from its APP1 segment without decoding anything.
enum ExifOrientation {
    /// 1…8 when present (other values are returned as-is: `Orientation(exif:)` treats them as upright); nil when
    /// the file has no EXIF orientation.
    static func read(path: String) -> Int? {
        ImageHeader.head(path: path).flatMap(read(bytes:))
    }

    static func read(bytes b: [UInt8]) -> Int? {
        guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var i = 2
        while i + 4 <= b.count, b[i] == 0xFF {
            let marker = b[i + 1]
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2 else { return nil }
            if marker == 0xDA || marker == 0xD9 { return nil }   // start of scan: no EXIF before the pixels
            let body = i + 4, end = min(b.count, i + 2 + length)
            if marker == 0xE1, end - body > 14, Array(b[body..<body + 6]) == [0x45, 0x78, 0x69, 0x66, 0, 0] {
                return tiffOrientation(Array(b[(body + 6)..<end]))
            }
            i += 2 + length
        }
        return nil
    }

    /// Tag 0x0112 in IFD0 of a TIFF structure (either byte order).
    static func tiffOrientation(_ t: [UInt8]) -> Int? {
        guard t.count >= 8 else { return nil }
        let little: Bool
        switch (t[0], t[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ o: Int) -> Int? {
            o + 2 <= t.count ? (little ? Int(t[o]) | Int(t[o + 1]) << 8 : Int(t[o]) << 8 | Int(t[o + 1])) : nil
        }
        func u32(_ o: Int) -> Int? {
            guard let a = u16(o), let b = u16(o + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for k in 0..<min(count, 512) {
            let e = ifd + 2 + k * 12
            guard let tag = u16(e) else { return nil }
            if tag == 0x0112, u16(e + 2) == 3 { return u16(e + 8) }   // SHORT, value in the entry
        }
        return nil
    }
}
