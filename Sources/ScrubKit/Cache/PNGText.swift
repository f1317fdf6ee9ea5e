import FFmpegBridge

/// PNG `tEXt` chunks: reading the text attributes of a PNG file and adding some to encoded PNG bytes
/// (what the freedesktop thumbnail spec stores its `Thumb::URI` and `Thumb::MTime` in).
public enum PNGText {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The `tEXt` (and uncompressed `iTXt`) attributes found before the image data, or nil when `bytes` do not start
    /// like a PNG (signature, then an intact `IHDR`) or a chunk before the image data is cut or fails its CRC.
    public static func attributes(of bytes: [UInt8]) -> [String: String]? {
        guard bytes.count >= 8 + 25, Array(bytes[0..<8]) == signature else { return nil }
        var out: [String: String] = [:]
        var at = 8
        var first = true
        while at + 12 <= bytes.count {
            let length = Int(DiskCache.readBE(bytes, at, 4))
            let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
            guard length <= bytes.count - at - 12 else { return nil }
            if first && type != "IHDR" { return nil }
            first = false
            if type == "IDAT" || type == "IEND" { return out }
            let body = Array(bytes[(at + 8)..<(at + 8 + length)])
            guard
                Checksum.crc32(bytes[(at + 4)..<(at + 8 + length)])
                    == UInt32(DiskCache.readBE(bytes, at + 8 + length, 4))
            else { return nil }
            if type == "tEXt", let nul = body.firstIndex(of: 0) {
                // Latin-1 by the PNG spec.
                out[latin1(body[..<nul])] = latin1(body[(nul + 1)...])
            } else if type == "iTXt", let nul = body.firstIndex(of: 0), nul + 2 < body.count, body[nul + 1] == 0 {
                // keyword, 0, compression flag (0 only), method, language tag, 0, translated keyword, 0, UTF-8 text
                var rest = body[(nul + 3)...]
                guard let l = rest.firstIndex(of: 0) else { continue }
                rest = rest[(l + 1)...]
                guard let k = rest.firstIndex(of: 0) else { continue }
                out[latin1(body[..<nul])] = String(decoding: rest[(k + 1)...], as: UTF8.self)
            }
            at += 12 + length
        }
        return nil
    }

    /// `png` with `tEXt` chunks for `attributes` inserted after its `IHDR` (keys and values Latin-1: characters
    /// outside it become `?`). Returns nil when `png` does not start with a PNG signature and `IHDR`.
    public static func adding(_ attributes: [(String, String)], to png: [UInt8]) -> [UInt8]? {
        guard png.count >= 8 + 25, Array(png[0..<8]) == signature,
            String(decoding: png[12..<16], as: UTF8.self) == "IHDR"
        else { return nil }
        let ihdrEnd = 8 + 12 + Int(DiskCache.readBE(png, 8, 4))
        guard ihdrEnd <= png.count else { return nil }
        var out = Array(png[..<ihdrEnd])
        for (k, v) in attributes {
            let body = Array("tEXt".utf8) + toLatin1(k) + [0] + toLatin1(v)
            appendBE(&out, UInt32(body.count - 4))
            out += body
            appendBE(&out, Checksum.crc32(body))
        }
        out += png[ihdrEnd...]
        return out
    }

    static func latin1<S: Sequence<UInt8>>(_ bytes: S) -> String {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    static func toLatin1(_ s: String) -> [UInt8] {
        s.unicodeScalars.map { $0.value < 256 && $0.value != 0 ? UInt8($0.value) : UInt8(ascii: "?") }
    }

    static func appendBE(_ out: inout [UInt8], _ v: UInt32) {
        out += [
            UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8),
            UInt8(truncatingIfNeeded: v),
        ]
    }
}

extension DiskCache {
    static func readBE(_ b: [UInt8], _ at: Int, _ n: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<n { v = v << 8 | UInt64(b[at + i]) }
        return v
    }
}
