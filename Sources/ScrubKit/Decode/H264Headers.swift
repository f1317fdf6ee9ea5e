import FFmpegBridge

/// The few H.264 header fields (ITU-T H.264 §7.3) that say which pictures a picture may be predicted from: read from
/// the SPS, the PPS and the first bytes of each slice. Enough for ``ReferenceSkipPlan``; anything it does not
/// follow (interlacing, slice groups, redundant pictures, long-term references, memory management commands other
/// than taking a short-term picture out) makes the reader give up, and nothing is skipped.
struct H264Headers {
    /// From an SPS: what the slice headers and the reference marking need.
    struct Sequence {
        var chromaArrayType = 1
        var separateColourPlane = false
        var log2MaxFrameNum = 4
        var pocType = 0
        var log2MaxPocLsb = 4
        var deltaPicOrderAlwaysZero = false
        /// The sliding window: how many reference frames are kept.
        var maxReferenceFrames = 1
    }

    /// From a PPS.
    struct Picture {
        var sequenceID = 0
        var bottomFieldPicOrderPresent = false
        var l0DefaultActive = 1
        var l1DefaultActive = 1
        var weightedPrediction = false
        var weightedBipredictionIDC = 0
    }

    private(set) var sequences: [Int: Sequence] = [:]
    private(set) var pictures: [Int: Picture] = [:]

    /// Reads a parameter set or a slice (a whole NAL unit, or its first bytes for a slice). Returns what the slice's
    /// header says, as a unit of its own (no presentation time yet); nil for other units. Throws ``Unfollowed`` where
    /// the stream does what the reader does not follow.
    mutating func read(_ unit: [UInt8]) throws -> ReferenceSkipPlan.Unit? {
        guard let first = unit.first else { throw Unfollowed() }
        var r = RBSPReader(unit.dropFirst())
        switch first & 0x1F {
        case 7: try readSequence(&r)
        case 8: try readPicture(&r)
        case 1, 5: return try readSlice(&r, referenceIDC: Int(first >> 5) & 3, idr: first & 0x1F == 5)
        case 14, 15, 20, 21: throw Unfollowed()   // SVC, MVC
        default: break
        }
        return nil
    }

    /// The stream does something the reader does not follow, or its bytes do not parse.
    struct Unfollowed: Error {}

    private mutating func readSequence(_ r: inout RBSPReader) throws {
        var s = Sequence()
        let profile = try r.bits(8)
        _ = try r.bits(16)   // constraint flags, level
        let id = try r.ue()
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            let chroma = try r.ue()
            if chroma == 3 { s.separateColourPlane = try r.flag() }
            s.chromaArrayType = s.separateColourPlane ? 0 : chroma
            _ = try r.ue(); _ = try r.ue(); _ = try r.flag()   // bit depths, transform bypass
            if try r.flag() {
                for i in 0..<(chroma != 3 ? 8 : 12) {
                    guard try r.flag() else { continue }
                    var last = 8, next = 8
                    for _ in 0..<(i < 6 ? 16 : 64) {
                        if next != 0 { next = (last + (try r.se()) + 256) % 256 }
                        if next != 0 { last = next }
                    }
                }
            }
        }
        s.log2MaxFrameNum = try r.ue() + 4
        s.pocType = try r.ue()
        if s.pocType == 0 {
            s.log2MaxPocLsb = try r.ue() + 4
        } else if s.pocType == 1 {
            s.deltaPicOrderAlwaysZero = try r.flag()
            _ = try r.se(); _ = try r.se()
            for _ in 0..<(try r.ue()) { _ = try r.se() }
        }
        s.maxReferenceFrames = try r.ue()
        _ = try r.flag(); _ = try r.ue(); _ = try r.ue()   // gaps allowed, width, height
        guard try r.flag() else { throw Unfollowed() }      // frame_mbs_only_flag: fields are not followed
        guard s.log2MaxFrameNum <= 16, s.log2MaxPocLsb <= 16 else { throw Unfollowed() }
        sequences[id] = s
    }

    private mutating func readPicture(_ r: inout RBSPReader) throws {
        var p = Picture()
        let id = try r.ue()
        p.sequenceID = try r.ue()
        _ = try r.flag()   // entropy coding
        p.bottomFieldPicOrderPresent = try r.flag()
        guard try r.ue() == 0 else { throw Unfollowed() }   // slice groups
        p.l0DefaultActive = try r.ue() + 1
        p.l1DefaultActive = try r.ue() + 1
        p.weightedPrediction = try r.flag()
        p.weightedBipredictionIDC = try r.bits(2)
        _ = try r.se(); _ = try r.se(); _ = try r.se(); _ = try r.flag(); _ = try r.flag()
        guard try !r.flag() else { throw Unfollowed() }     // redundant pictures
        pictures[id] = p
    }

    private func readSlice(_ r: inout RBSPReader, referenceIDC: Int, idr: Bool) throws -> ReferenceSkipPlan.Unit {
        _ = try r.ue()   // first macroblock
        let kind: ReferenceSkipPlan.Unit.Kind
        switch try r.ue() % 5 {
        case 0: kind = .predicted
        case 1: kind = .bidirectional
        case 2: kind = .intra
        default: throw Unfollowed()   // SP, SI
        }
        guard let p = pictures[try r.ue()], let s = sequences[p.sequenceID] else { throw Unfollowed() }
        if s.separateColourPlane { _ = try r.bits(2) }
        let frameNum = try r.bits(s.log2MaxFrameNum)
        if idr { _ = try r.ue() }
        if s.pocType == 0 {
            _ = try r.bits(s.log2MaxPocLsb)
            if p.bottomFieldPicOrderPresent { _ = try r.se() }
        } else if s.pocType == 1 && !s.deltaPicOrderAlwaysZero {
            _ = try r.se()
            if p.bottomFieldPicOrderPresent { _ = try r.se() }
        }
        if kind == .bidirectional { _ = try r.flag() }   // direct_spatial_mv_pred_flag
        var l0 = p.l0DefaultActive, l1 = p.l1DefaultActive
        if kind != .intra, try r.flag() {
            l0 = try r.ue() + 1
            if kind == .bidirectional { l1 = try r.ue() + 1 }
        }
        // ref_pic_list_modification: for a P slice, the frames its list 0 names (picture numbers are frame numbers
        // for frames, counted from this one's, modulo MaxFrameNum).
        var named: [Int]? = nil, modified = false
        let maxFrameNum = 1 << s.log2MaxFrameNum
        for list in 0..<(kind == .bidirectional ? 2 : kind == .predicted ? 1 : 0) {
            guard try r.flag() else { continue }
            modified = true
            var predicted = frameNum, names: [Int] = []
            while true {
                let idc = try r.ue()
                if idc == 3 { break }
                guard idc < 2 else { throw Unfollowed() }   // long-term pictures
                let step = try r.ue() + 1
                predicted = ((idc == 0 ? predicted - step : predicted + step) % maxFrameNum + maxFrameNum) % maxFrameNum
                names.append(predicted)
                guard names.count <= 32 else { throw Unfollowed() }
            }
            if list == 0 && kind == .predicted && names.count >= l0 { named = Array(names.prefix(l0)) }
        }
        if (p.weightedPrediction && kind == .predicted) || (p.weightedBipredictionIDC == 1 && kind == .bidirectional) {
            _ = try r.ue()
            if s.chromaArrayType != 0 { _ = try r.ue() }
            for count in (kind == .bidirectional ? [l0, l1] : [l0]) {
                for _ in 0..<count {
                    if try r.flag() { _ = try r.se(); _ = try r.se() }
                    if s.chromaArrayType != 0, try r.flag() { for _ in 0..<4 { _ = try r.se() } }
                }
            }
        }
        // dec_ref_pic_marking: only "this short-term picture is no longer a reference" is followed (x264 says it of
        // each B-pyramid's middle picture); long-term references and the other commands are not.
        var unmarks: [Int]? = nil
        if referenceIDC != 0 {
            if idr {
                _ = try r.flag()
                guard try !r.flag() else { throw Unfollowed() }
            } else if try r.flag() {
                var frames: [Int] = []
                while true {
                    let operation = try r.ue()
                    if operation == 0 { break }
                    guard operation == 1, frames.count < 32 else { throw Unfollowed() }
                    frames.append(((frameNum - (try r.ue()) - 1) % maxFrameNum + maxFrameNum) % maxFrameNum)
                }
                unmarks = frames
            }
        }
        return ReferenceSkipPlan.Unit(
            kind: kind, isReference: referenceIDC != 0, isIDR: idr, frameNum: frameNum,
            named: named.map(Set.init), l0Active: l0, l1Active: l1, modified: modified, unmarks: unmarks,
            presentation: 0, maxReferenceFrames: s.maxReferenceFrames)
    }
}
