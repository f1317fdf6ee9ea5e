/// Reads the bits of a NAL unit's payload (emulation prevention bytes taken out) and its Exp-Golomb codes: the one
/// reader of H.264/HEVC headers, for the bridge (``RandomAccessPoint``) and the core (the reference-skip plan's slice
/// headers).
public struct RBSPReader {
    /// The payload ended before the bits asked for (or an Exp-Golomb code longer than 32 bits).
    public struct Exhausted: Error {}

    private let bytes: [UInt8]
    private var bit = 0

    /// A reader of `escaped`, a NAL unit's payload as stored (emulation prevention bytes in it).
    public init<C: Collection>(_ escaped: C) where C.Element == UInt8 {
        var out: [UInt8] = [], zeros = 0
        out.reserveCapacity(escaped.count)
        for b in escaped {
            if zeros >= 2 && b == 3 { zeros = 0; continue }
            zeros = b == 0 ? zeros + 1 : 0
            out.append(b)
        }
        bytes = out
    }

    /// One bit, as a flag.
    public mutating func flag() throws -> Bool { try bits(1) == 1 }

    /// The next `n` bits (at most 32), most significant first.
    public mutating func bits(_ n: Int) throws -> Int {
        guard n <= 32, bit + n <= bytes.count * 8 else { throw Exhausted() }
        var v = 0
        for _ in 0..<n {
            v = v << 1 | Int(bytes[bit >> 3] >> (7 - UInt8(bit & 7)) & 1)
            bit += 1
        }
        return v
    }

    /// An unsigned Exp-Golomb code.
    public mutating func ue() throws -> Int {
        var zeros = 0
        while try bits(1) == 0 {
            zeros += 1
            guard zeros < 32 else { throw Exhausted() }
        }
        return (1 << zeros) - 1 + (try bits(zeros))
    }

    /// A signed Exp-Golomb code.
    public mutating func se() throws -> Int {
        let k = try ue()
        return k & 1 == 1 ? (k + 1) / 2 : -(k / 2)
    }
}
