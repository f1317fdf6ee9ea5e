/// Which reference B-pictures an exact request can leave undecoded (H.264 with B-pyramids, as x264 makes by
/// default): those presented before the answer that nothing the answer depends on is predicted from.
///
/// To the decoder, a reference picture left out is a gap in `frame_num`. It keeps a stand-in in its place
/// (FFmpeg copies the previous picture) whose picture order is not specified, and marks the references by the sliding
/// window instead of the left-out picture's own commands. So the plan:
/// 1. follows the whole decoding's buffer of short-term references through each picture's marking (sliding window,
///    or commands taking a short-term picture out: x264's B-pyramid pictures take the previous one out);
/// 2. finds what the answer depends on: each picture's reference lists built from that buffer (the frames a P
///    picture's slices name, the newest for a P picture's default list, the nearest before and after in presentation
///    order for a B picture's; the whole buffer where a list is modified otherwise);
/// 3. follows the buffer with pictures left out, and requires each picture the answer depends on to see the same
///    references in it: the named ones, the same newest ones, or for a B picture the same buffer, without stand-ins.
/// Where that fails, the latest picture left out before it is decoded after all, and the plan is checked again.
struct ReferenceSkipPlan {
    /// One access unit (a packet) in decode order.
    struct Unit {
        enum Kind { case intra, predicted, bidirectional, mixed }
        var kind: Kind
        var isReference: Bool
        var isIDR: Bool
        var frameNum: Int
        /// The frame numbers a P picture's slices name (every active entry of list 0); nil if any is left to the
        /// default order.
        var named: Set<Int>?
        var l0Active: Int
        var l1Active: Int
        /// A list of a slice is reordered (and not all named).
        var modified: Bool
        /// The frame numbers its marking takes out of the short-term references; nil: the sliding window.
        var unmarks: [Int]?
        var presentation: Int64
        var maxReferenceFrames: Int
    }

    /// Short-term references, newest first: the unit of each, nil for a stand-in.
    typealias Buffer = [(unit: Int?, frameNum: Int)]

    /// Indices (decode order) of the reference B-pictures to leave undecoded.
    let skipped: Set<Int>

    /// Plans for `units` (decode order, from a keyframe) whose last picture presented at or before the target is
    /// `answer`. Nothing is skipped unless the first unit is an IDR picture and no other IDR follows.
    init(units: [Unit], answer: Int) {
        guard answer < units.count, let first = units.first, first.isIDR, !units.dropFirst().contains(where: \.isIDR),
              let whole = ReferenceSkipPlan.buffers(units, through: answer, skipping: []) else {
            skipped = []
            return
        }
        let needed = ReferenceSkipPlan.dependencies(of: answer, units, buffers: whole)
        let answerTime = units[answer].presentation
        var skip = Set(units.indices.filter { i in
            let u = units[i]
            return u.kind == .bidirectional && u.isReference && u.presentation < answerTime && !needed.contains(i)
        })
        while !skip.isEmpty {
            guard let planned = ReferenceSkipPlan.buffers(units, through: answer, skipping: skip) else { break }
            guard
                let y = needed.sorted().first(where: {
                    !ReferenceSkipPlan.sameReferences(units[$0], whole[$0], planned[$0])
                })
            else {
                skipped = skip
                return
            }
            guard let latest = skip.filter({ $0 < y }).max() else { break }
            skip.remove(latest)
        }
        skipped = []
    }

    /// The buffer before each unit up to `last`, with `skip` left out (each a stand-in, marked by the sliding window);
    /// nil when it overflows (a stream not followed).
    static func buffers(_ units: [Unit], through last: Int, skipping skip: Set<Int>) -> [Buffer]? {
        var list: Buffer = [], out: [Buffer] = []
        for y in 0...last {
            out.append(list)
            let u = units[y]
            guard u.isReference else { continue }
            let window = max(u.maxReferenceFrames, 1)
            if u.isIDR {
                list = []
            } else if let unmarks = u.unmarks, !skip.contains(y) {
                for n in unmarks { list.removeAll { $0.frameNum == n } }
            } else if list.count >= window {
                list.removeLast()
            }
            list.insert((skip.contains(y) ? nil : y, u.frameNum), at: 0)
            if list.count > window { return nil }
        }
        return out
    }

    /// The units `answer` depends on (itself included), through the reference lists built from the whole decoding's
    /// buffers.
    static func dependencies(of answer: Int, _ units: [Unit], buffers: [Buffer]) -> Set<Int> {
        var found: Set<Int> = [answer], pending = [answer]
        while let y = pending.popLast() {
            for r in references(of: y, units, in: buffers[y]) where !found.contains(r) {
                found.insert(r)
                pending.append(r)
            }
        }
        return found
    }

    /// The units `y`'s reference lists may hold, built from `buffer` (every unit in it when not known).
    static func references(of y: Int, _ units: [Unit], in buffer: Buffer) -> [Int] {
        let u = units[y], all = buffer.compactMap(\.unit)
        switch u.kind {
        case .intra:
            return []
        case .predicted:
            if let named = u.named { return buffer.filter { named.contains($0.frameNum) }.compactMap(\.unit) }
            return u.modified ? all : Array(all.prefix(u.l0Active))
        case .bidirectional where !u.modified:
            // Frames: list 0 is the references before it in presentation order, nearest first, then those after;
            // list 1 the other way round (its first two swapped if it equals list 0, which changes no member).
            let t = u.presentation
            let before = all.filter { units[$0].presentation < t }.sorted {
                units[$0].presentation > units[$1].presentation
            }
            let after = all.filter { units[$0].presentation > t }.sorted {
                units[$0].presentation < units[$1].presentation
            }
            guard before.count + after.count == all.count else { return all }
            return Array((before + after).prefix(u.l0Active)) + Array((after + before).prefix(max(u.l1Active, 2)))
        case .bidirectional, .mixed:
            return all
        }
    }

    /// Whether `u` sees the same references in the planned buffer as in the whole decoding's.
    static func sameReferences(_ u: Unit, _ whole: Buffer, _ planned: Buffer) -> Bool {
        switch u.kind {
        case .intra:
            return true
        case .predicted where u.named != nil:
            return u.named!.allSatisfy { n in
                let a = whole.first { $0.frameNum == n }?.unit
                return a != nil && a == planned.first { $0.frameNum == n }?.unit
            }
        case .predicted where !u.modified:
            return whole.prefix(u.l0Active).map(\.unit) == planned.prefix(u.l0Active).map(\.unit)
        default:
            return whole.map(\.unit) == planned.map(\.unit)
        }
    }
}
