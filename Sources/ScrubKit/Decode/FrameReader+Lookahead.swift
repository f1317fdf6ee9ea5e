import FFmpegBridge
import MediaTime

extension FrameReader {
    /// Most packets, and bytes, read ahead for a plan: a GOP of 10 s at 60 fps, and of 1 s at 130 Mbit/s (a 1080p
    /// GOP of 2 s at 11 Mbit/s is ~3 MiB). Past either, the packets read are decoded as they come, with no plan.
    static let lookaheadPackets = 600
    static let lookaheadBytes = 16 << 20

    /// Reads ahead the packets an exact request will decode — up to the one that drains the decoder — and plans
    /// which reference B-pictures among them need no decoding (``ReferenceSkipPlan``). H.264 in avcC framing only;
    /// anything else, a read that fails or a stream the headers do not follow: everything is decoded, as before.
    func planAhead() {
        guard skipsUnneededReferences, let target = aim?.target, let bound = aim?.drainBound,
              let avc = decoder.avcConfiguration else { return }
        var headers = H264Headers(), followed = true
        do {
            for unit in avc.sequenceParameterSets + avc.pictureParameterSets { _ = try headers.read(unit) }
        } catch {
            followed = false
        }
        var units: [ReferenceSkipPlan.Unit] = [], drains = false, bytes = 0
        while ahead.count < FrameReader.lookaheadPackets && bytes < FrameReader.lookaheadBytes {
            guard let p = try? Packet(), (try? source.read(into: p)) == true else { break }
            guard p.streamIndex == decoder.streamIndex else { continue }
            ahead.append((p, false))
            bytes += p.size
            if p.dts != MediaTime.noTimestamp, p.dts > target, p.timestamp < bound
            {
                drains = true
                break
            }
            if followed, let unit = FrameReader.unit(of: p, lengthSize: avc.lengthSize, headers: &headers) {
                units.append(unit)
            } else {
                followed = false
            }
        }
        guard drains, followed, units.count == ahead.count - 1,
              let answer = units.indices.filter({ units[$0].presentation <= target }).max(by: {
                  units[$0].presentation < units[$1].presentation
              }) else { return }
        let plan = ReferenceSkipPlan(units: units, answer: answer)
        for i in plan.skipped { ahead[i].skip = true }
        leftReferencesOut = !plan.skipped.isEmpty
    }

    /// What a packet's slice headers say (nil: no slice, no timestamp, or not followed).
    static func unit(of packet: Packet, lengthSize: Int, headers: inout H264Headers) -> ReferenceSkipPlan.Unit? {
        guard packet.pts != MediaTime.noTimestamp,
              let nals = packet.nalUnitHeads(lengthSize: lengthSize, headBytes: 512) else { return nil }
        var slices: [ReferenceSkipPlan.Unit] = []
        do {
            for nal in nals { if let slice = try headers.read(nal) { slices.append(slice) } }
        } catch {
            return nil
        }
        // One picture: its slices' kinds (mixed when they differ), the names of every P slice, the widest lists.
        guard var unit = slices.first else { return nil }
        if Set(slices.map(\.kind)).count > 1 { unit.kind = .mixed }
        for s in slices.dropFirst() {
            unit.isReference = unit.isReference || s.isReference
            unit.isIDR = unit.isIDR || s.isIDR
            unit.named = s.named.flatMap { n in unit.named.map { $0.union(n) } }
            unit.l0Active = max(unit.l0Active, s.l0Active)
            unit.l1Active = max(unit.l1Active, s.l1Active)
            unit.modified = unit.modified || s.modified
        }
        if unit.kind != .predicted { unit.named = nil }
        unit.presentation = packet.pts
        return unit
    }
}
