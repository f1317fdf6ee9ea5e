import Foundation
import MediaTime
import ScrubKit

/// mpv's `l`: the first press marks A, the second B (the player loops between them), the third clears both.
struct LoopMarks {
    var a: MediaTime? = nil
    var b: MediaTime? = nil

    /// Presses `l` at `time`; returns the loop the player should play (nil: none yet, or cleared).
    mutating func press(at time: MediaTime) -> MediaTimeRange? {
        switch (a, b) {
        case (nil, _): a = time; return nil
        case (let first?, nil):
            // (B before A: the two swap, as the section is the same.)
            let (lo, hi) = time < first ? (time, first) : (first, time)
            guard hi > lo else { return nil }   // (the same time twice: still only A)
            (a, b) = (lo, hi)
            return MediaTimeRange(start: lo, end: hi)
        default: a = nil; b = nil; return nil
        }
    }

    /// The marks to draw on the bar.
    var marks: [(time: MediaTime, letter: Character)] { [a.map { ($0, "A") }, b.map { ($0, "B") }].compactMap { $0 } }

    /// The status line's words: "A 0:02.0", "A-B 0:02.0–0:05.0", or "" (times from `start`).
    func label(start: MediaTime) -> String {
        switch (a, b) {
        case (let a?, let b?):
            return "A-B \((a - start).formatted(fractionDigits: 1))–\((b - start).formatted(fractionDigits: 1))"
        case (let a?, nil): return "A \((a - start).formatted(fractionDigits: 1))"
        default: return ""
        }
    }
}

extension PlayerApp {
    /// `c`: the A-B section copied without re-encoding (``LosslessCut``, as `scrubkit cut`) beside the file or into
    /// `--cut-dir`, never over an existing file; on a thread of its own, the status line saying how it went.
    func cutLoop() {
        let now = player.clock.now()
        guard let a = loopMarks.a, let b = loopMarks.b else {
            notice.withLock { $0 = ("cut: mark A and B with l first", now + 4) }
            lastStatus = ""
            return
        }
        let start = player.startTime
        let (from, to) = (a - start, b - start)
        let output = FileIO.unusedPath(
            LosslessCut.defaultOutput(
                for: path, from: LosslessCut.nameLabel(from), to: LosslessCut.nameLabel(to),
                directory: options.cutDirectory))
        let path = path
        inBackground(
            "scrubkit.cut", saying: "cutting \(from.formatted(fractionDigits: 1))–\(to.formatted(fractionDigits: 1))…",
            for: 60
        ) {
            do {
                // (The marks are presentation times, as the cut places times: the status line's are from the start.)
                let r = try LosslessCut.cut(path, from: .absolute(a), to: .absolute(b), output: output)
                let keyframe = (r.start - start).formatted(fractionDigits: 1)
                return "cut written: \((r.output as NSString).lastPathComponent)"
                    + (r.start < r.requestedStart ? " (from the keyframe at \(keyframe))" : "")
            } catch {
                return "cut failed: \(error)"
            }
        }
    }

    /// Says `working` on the status line for up to `seconds` while `work` runs on a thread named `name`, then what
    /// `work` returned, for 6 s (the cut and the screenshot: neither holds up the keys or the pictures).
    func inBackground(
        _ name: String, saying working: String, for seconds: Double, _ work: @escaping @Sendable () -> String
    ) {
        let (notice, clock) = (notice, player.clock)
        notice.withLock { $0 = (working, clock.now() + seconds) }
        lastStatus = ""
        NamedThread.start(name) {
            let text = work()
            notice.withLock { $0 = (text, clock.now() + 6) }
        }
    }
}
