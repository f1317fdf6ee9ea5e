/// The total order and semantic equality:
/// −∞ < every numeric time < indefinite < +∞ < invalid; numeric times of different epochs order by epoch.
extension MediaTime: Comparable, Hashable {
    /// Position in the total order of the kinds of time.
    private var rank: Int {
        if !isValid { return 4 }
        if isPositiveInfinity { return 3 }
        if isNegativeInfinity { return 0 }
        if isIndefinite { return 2 }
        return isNumeric ? 1 : 4
    }

    /// Three-way comparison in the total order: -1, 0 or 1.
    public static func compare(_ a: MediaTime, _ b: MediaTime) -> Int {
        let (ra, rb) = (a.rank, b.rank)
        if ra != rb { return ra < rb ? -1 : 1 }
        guard ra == 1 else { return 0 }
        if a.epoch != b.epoch { return a.epoch < b.epoch ? -1 : 1 }
        let lhs = Int128(a.value) * Int128(b.timescale)
        let rhs = Int128(b.value) * Int128(a.timescale)
        return lhs == rhs ? 0 : (lhs < rhs ? -1 : 1)
    }

    /// The total order of ``compare(_:_:)`` (CMTimeCompare): invalid < −∞ < numeric < +∞ < indefinite.
    public static func < (a: MediaTime, b: MediaTime) -> Bool { compare(a, b) < 0 }

    /// Semantic equality: the same instant (numeric, same epoch), or the same kind of non-numeric time.
    public static func == (a: MediaTime, b: MediaTime) -> Bool { compare(a, b) == 0 }

    /// Hashes the normalised time (reduced fraction), so equal times hash equally.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rank)
        guard rank == 1 else { return }
        hasher.combine(epoch)
        if value == 0 { hasher.combine(0 as Int64); hasher.combine(1 as Int64); return }
        let g = greatestCommonDivisor(UInt128(value.magnitude), UInt128(timescale.magnitude))
        hasher.combine(Int128(value) / Int128(g))
        hasher.combine(Int128(timescale) / Int128(g))
    }

    /// The smaller of two times in the total order.
    public static func minimum(_ a: MediaTime, _ b: MediaTime) -> MediaTime { b < a ? b : a }
    /// The larger of two times in the total order.
    public static func maximum(_ a: MediaTime, _ b: MediaTime) -> MediaTime { b > a ? b : a }

    /// |t|: −∞ becomes +∞; other non-numeric times are unchanged.
    public var absoluteValue: MediaTime {
        if isNegativeInfinity { return .positiveInfinity }
        if isNumeric && value < 0 { return -self }
        return self
    }
}
