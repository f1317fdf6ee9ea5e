import Foundation

/// Picture dimensions read from the first bytes of a JPEG, PNG, WebP, GIF or BMP file, without decoding — so a
/// decompression bomb can be refused before anything sized by it is allocated (FFmpeg reports 0×0 for some).
enum ImageHeader {
    /// The first bytes of a file (enough for every header read here), or nil when it cannot be read or is not a
    /// regular file (bytes read from a pipe would be missing for FFmpeg afterwards).
    static func head(path: String) -> [UInt8]? {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, let h = FileHandle(forReadingAtPath: path) else {
            return nil
        }
        defer { try? h.close() }
        return (try? h.read(upToCount: 256 * 1024)).map { [UInt8]($0) }
    }

    /// Whether the bytes start like a JPEG (SOI marker).
    static func isJPEG(_ b: [UInt8]) -> Bool { b.starts(with: [0xFF, 0xD8, 0xFF]) }
    /// Whether the head is an AVIF file (an ISO BMFF `ftyp` with an AVIF brand).
    static func isAVIF(_ b: [UInt8]) -> Bool {
        b.count >= 12 && String(decoding: b[4..<8], as: UTF8.self) == "ftyp"
            && ["avif", "avis"].contains(String(decoding: b[8..<12], as: UTF8.self))
    }

    /// Whether the head is a HEIF-family still (HEIC and friends, and AVIF: libheif reads both).
    static func isHEIF(_ b: [UInt8]) -> Bool {
        guard b.count >= 12, Array(b[4..<8]) == Array("ftyp".utf8) else { return false }
        return ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis"].contains(
            String(decoding: b[8..<12], as: UTF8.self))
    }
    static func isWebP(_ b: [UInt8]) -> Bool {
        b.count >= 12 && b.starts(with: Array("RIFF".utf8)) && Array(b[8..<12]) == Array("WEBP".utf8)
    }

    static func dimensions(bytes b: [UInt8]) -> (width: Int, height: Int)? {
        guard b.count >= 26 else { return nil }
        func be16(_ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
        func be32(_ i: Int) -> Int { be16(i) << 16 | be16(i + 2) }
        func le16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func le24(_ i: Int) -> Int { le16(i) | Int(b[i + 2]) << 16 }
        func le32(_ i: Int) -> Int { le16(i) | le16(i + 2) << 16 }
        // PNG: signature, then IHDR.
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return (be32(16), be32(20)) }
        // GIF: logical screen size.
        if b.starts(with: Array("GIF8".utf8)) { return (le16(6), le16(8)) }
        // BMP
        if b.starts(with: Array("BM".utf8)), b.count >= 26 {
            return (le32(18), abs(Int(Int32(truncatingIfNeeded: le32(22)))))
        }
        // WebP: VP8 (lossy), VP8L (lossless), VP8X (extended).
        if b.count >= 30, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) {
            let chunk = String(decoding: b[12..<16], as: UTF8.self)
            switch chunk {
            case "VP8 ": return (le16(26) & 0x3fff, le16(28) & 0x3fff)
            case "VP8L":
                let bits = le32(21)
                return ((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1)
            case "VP8X": return (le24(24) + 1, le24(27) + 1)
            default: return nil
            }
        }
        // JPEG: walk the markers to the first SOFn.
        if b.starts(with: [0xFF, 0xD8]) {
            var i = 2
            while i + 9 < b.count {
                guard b[i] == 0xFF else { i += 1; continue }
                let marker = b[i + 1]
                if marker == 0xFF { i += 1; continue }
                if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
                let isSOF = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
                if isSOF { return (be16(i + 7), be16(i + 5)) }
                i += 2 + be16(i + 2)
            }
        }
        return nil
    }
}
