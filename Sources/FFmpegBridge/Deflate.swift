import CZlib

/// zlib streams (RFC 1950) of byte strings: kitty's compressed image payloads (`o=z`).
public enum Deflate {
    /// `bytes` compressed at `level` (1 fastest … 9 smallest); nil when zlib fails.
    public static func compress(_ bytes: [UInt8], level: Int32 = 1) -> [UInt8]? {
        var size = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let r = out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer {
                CZlib.compress2(o.baseAddress, &size, $0.baseAddress, uLong($0.count), level)
            }
        }
        guard r == Z_OK else { return nil }
        out.removeLast(out.count - Int(size))
        return out
    }

    /// A zlib stream inflated, when it holds exactly `count` bytes; nil otherwise.
    public static func inflate(_ bytes: [UInt8], count: Int) -> [UInt8]? {
        var size = uLong(count)
        var out = [UInt8](repeating: 0, count: count)
        let r = out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { CZlib.uncompress(o.baseAddress, &size, $0.baseAddress, uLong($0.count)) }
        }
        return r == Z_OK && Int(size) == count ? out : nil
    }
}
