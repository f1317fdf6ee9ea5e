/// Addition, subtraction and multiplication with CMTime's rules: LCM timescale (capped at `0x7fffffff`), halving on
/// overflow, then ±infinity; flag propagation; the infinity/indefinite/epoch tables.
extension MediaTime {
    private enum Kind { case invalid, negativeInfinity, numeric, indefinite, positiveInfinity }

    private var kind: Kind {
        if !isValid { return .invalid }
        if isPositiveInfinity { return .positiveInfinity }
        if isNegativeInfinity { return .negativeInfinity }
        if isIndefinite { return .indefinite }
        return isNumeric ? .numeric : .invalid
    }

    /// `lhs + rhs`. Invalid wins; then an infinity (+∞ + −∞ is invalid); then indefinite. Numeric operands in
    /// different non-zero epochs give invalid; in the same non-zero epoch the result has epoch 0; a duration
    /// (epoch 0) added to a time keeps that time's epoch.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime { combine(lhs, rhs, subtract: false) }

    /// `lhs - rhs`, with the same rules as `+` and its own infinity table (+∞ − +∞ is invalid, +∞ − −∞ is
    /// +∞).
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime { combine(lhs, rhs, subtract: true) }

    /// Adds `rhs` to `lhs` (see `+`).
    public static func += (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs + rhs }
    /// Subtracts `rhs` from `lhs` (see `-`).
    public static func -= (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs - rhs }

    /// Negation: −∞ ↔ +∞; other non-numeric times unchanged.
    public static prefix func - (time: MediaTime) -> MediaTime {
        switch time.kind {
        case .positiveInfinity: return .negativeInfinity
        case .negativeInfinity: return .positiveInfinity
        case .numeric:
            var r = fitting(numerator: -Int128(time.value), denominator: Int128(time.timescale),
                            timescale: time.timescale, epoch: time.epoch,
                            rounded: time.flags.contains(.hasBeenRounded))
            if r.isNumeric { r.epoch = time.epoch }
            return r
        default: return time
        }
    }

    private static func combine(_ a: MediaTime, _ b: MediaTime, subtract: Bool) -> MediaTime {
        let ka = a.kind
        let kb = b.kind
        if ka == .invalid || kb == .invalid { return .invalid }
        // Treat subtraction of an infinity as addition of the opposite infinity.
        let kbEff: Kind = !subtract ? kb : (kb == .positiveInfinity ? .negativeInfinity
                                           : kb == .negativeInfinity ? .positiveInfinity : kb)
        switch (ka, kbEff) {
        case (.positiveInfinity, .negativeInfinity), (.negativeInfinity, .positiveInfinity): return .invalid
        case (.positiveInfinity, _), (_, .positiveInfinity): return .positiveInfinity
        case (.negativeInfinity, _), (_, .negativeInfinity): return .negativeInfinity
        case (.indefinite, _), (_, .indefinite): return .indefinite
        default: break
        }
        // Both numeric.
        let epoch: Int64
        if a.epoch == b.epoch { epoch = 0 }  // two times of one timeline differ by a duration
        else if a.epoch == 0 { epoch = b.epoch }
        else if b.epoch == 0 { epoch = a.epoch }
        else { return .invalid }
        let wasRounded = a.flags.contains(.hasBeenRounded) || b.flags.contains(.hasBeenRounded)
        let sign: Int128 = subtract ? -1 : 1
        if a.timescale == b.timescale {
            return fitting(numerator: Int128(a.value) + sign * Int128(b.value), denominator: Int128(a.timescale),
                           timescale: a.timescale, epoch: epoch, rounded: wasRounded)
        }
        let lcm = leastCommonMultiple(Int64(a.timescale), Int64(b.timescale))
        let ts = Int32(clamping: lcm)
        let numerator = Int128(a.value) * Int128(b.timescale) + sign * Int128(b.value) * Int128(a.timescale)
        return fitting(numerator: numerator, denominator: Int128(a.timescale) * Int128(b.timescale),
                       timescale: ts, epoch: epoch, rounded: wasRounded)
    }

    /// This time × `multiplier`, timescale kept; on overflow the timescale is halved, then ±infinity.
    /// An infinity × 0 is invalid; the sign of an infinite result comes from both operands.
    public func multiplied(by multiplier: Int32) -> MediaTime {
        multiplied(byRatio: multiplier, divisor: 1)
    }

    /// This time × `multiplier / divisor`, exact when representable (in this timescale if possible, else in the
    /// smallest timescale that is), otherwise in the largest multiple of this timescale that fits, rounded half
    /// away from zero; overflow halves the timescale, then gives ±infinity. A zero divisor gives invalid.
    /// Use this, not `Double`, to map a slider fraction onto a duration.
    public func multiplied(byRatio multiplier: Int32, divisor: Int32) -> MediaTime {
        if divisor == 0 { return .invalid }
        switch kind {
        case .invalid: return .invalid
        case .indefinite: return .indefinite
        case .positiveInfinity, .negativeInfinity:
            if multiplier == 0 { return .invalid }
            let positive = (kind == .positiveInfinity) == ((multiplier > 0) == (divisor > 0))
            return positive ? .positiveInfinity : .negativeInfinity
        case .numeric: break
        }
        var num = Int128(value) * Int128(multiplier)
        var den = Int128(divisor)
        if den < 0 { num = -num; den = -den }
        let rounded = flags.contains(.hasBeenRounded)
        // Exact in the current timescale?
        if num % den == 0 {
            return MediaTime.fitting(numerator: num / den, denominator: Int128(timescale), timescale: timescale,
                                     epoch: epoch, rounded: rounded)
        }
        // Exact in some timescale: the reduced denominator of value*m / (timescale*d).
        let total = Int128(timescale) * den
        let g = greatestCommonDivisor(num.magnitude, total.magnitude)
        let reducedDen = total / Int128(g)
        let candidate = Int128(leastCommonMultiple128(Int128(timescale), reducedDen))
        let ts: Int32
        if candidate <= Int128(Int32.max) { ts = Int32(candidate) }
        else if reducedDen <= Int128(Int32.max) { ts = Int32(reducedDen) }
        else { ts = Int32(Int128(Int32.max) / Int128(timescale) * Int128(timescale)) }
        return MediaTime.fitting(numerator: num, denominator: total, timescale: ts, epoch: epoch, rounded: rounded)
    }

    /// This time × `multiplier` (a `Double`): the timescale is first doubled until ≥ 65536 (capped at
    /// `0x7fffffff`), then the same overflow rules apply. NaN gives invalid; an infinity × 0 is invalid.
    public func multiplied(byFloat64 multiplier: Double) -> MediaTime {
        if multiplier.isNaN { return .invalid }
        switch kind {
        case .invalid: return .invalid
        case .indefinite: return .indefinite
        case .positiveInfinity, .negativeInfinity:
            if multiplier == 0 { return .invalid }
            return (kind == .positiveInfinity) == (multiplier > 0) ? .positiveInfinity : .negativeInfinity
        case .numeric: break
        }
        if multiplier.isInfinite {
            if value == 0 { return .invalid }
            return (value > 0) == (multiplier > 0) ? .positiveInfinity : .negativeInfinity
        }
        var ts = Int64(timescale)
        while ts < 65536 { ts *= 2 }
        var newTS = Int32(clamping: ts)
        var halved = false
        let secondsTimesM = Double(value) * multiplier / Double(timescale)
        while true {
            let scaled = (secondsTimesM * Double(newTS)).rounded(.toNearestOrAwayFromZero)
            if scaled >= -9_223_372_036_854_775_808.0 && scaled < 9_223_372_036_854_775_808.0 {
                let v = Int64(scaled)
                var f: Flags = .valid
                if halved || flags.contains(.hasBeenRounded) || Double(v) / Double(newTS) != secondsTimesM {
                    f.insert(.hasBeenRounded)
                }
                return MediaTime(value: v, timescale: newTS, flags: f, epoch: epoch)
            }
            if newTS == 1 { return secondsTimesM < 0 ? .negativeInfinity : .positiveInfinity }
            newTS /= 2
            halved = true
        }
    }

    /// `lhs` times an integer (``multiplied(by:)``: overflow halves the timescale, then gives ±infinity).
    public static func * (lhs: MediaTime, rhs: Int32) -> MediaTime { lhs.multiplied(by: rhs) }
}

func greatestCommonDivisor(_ a: UInt128, _ b: UInt128) -> UInt128 {
    var (x, y) = (a, b)
    while y != 0 { (x, y) = (y, x % y) }
    return x == 0 ? 1 : x
}

func leastCommonMultiple(_ a: Int64, _ b: Int64) -> Int64 {
    let g = Int64(greatestCommonDivisor(UInt128(a.magnitude), UInt128(b.magnitude)))
    return a / g * b  // both are Int32 timescales: cannot overflow Int64
}

func leastCommonMultiple128(_ a: Int128, _ b: Int128) -> Int128 {
    let g = Int128(greatestCommonDivisor(a.magnitude, b.magnitude))
    return a / g * b
}
