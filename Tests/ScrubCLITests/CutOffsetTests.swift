import Foundation
import Testing

extension CutTests {
    /// A 4-s H.264 clip with a B-pyramid whose pictures start 2 pictures (83 ms) after the sound, as an MP4 without an
    /// edit list carries them (x264's delay left in the times, as muxers other than FFmpeg's write it), a white
    /// picture and a beep at 1.5 s.
    static func lateClip(in dir: String) throws -> String {
        let clip = dir + "/late.mp4"
        let made = try Scrub.execute("ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi",
            "-i", "testsrc2=s=320x240:r=24000/1001:d=4,drawbox=c=white:t=fill:enable='between(t,1.5,1.54)'",
            "-f", "lavfi", "-i", "aevalsrc='if(between(t,1.5,1.6),0.8*sin(2*PI*1000*t),0)':s=48000:d=4",
            "-c:v", "libx264", "-x264-params", "bframes=3:b-pyramid=normal:keyint=48:scenecut=0", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-use_editlist", "0", clip,
        ])
        try #require(made.status == 0, "\(made.stderr)")
        return clip
    }

    /// Presentation times of `path`'s pictures, as ffprobe reports them.
    static func pictureTimes(_ path: String) throws -> [Double] {
        let r = try Scrub.execute("ffprobe", ["-v", "error", "-select_streams", "v:0",
                                              "-show_entries", "frame=best_effort_timestamp_time",
                                              "-of", "csv=p=0", path])
        return r.stdout.split(separator: "\n").compactMap { Double($0.split(separator: ",").first ?? "") }.sorted()
    }

    /// How far after the white picture the beep sounds in `path`, as ffmpeg decodes both (the picture's time as
    /// ffprobe reports its frames, the sound's placed by its times).
    static func beepAfterFlash(_ path: String) throws -> Double {
        let entries = "frame=best_effort_timestamp_time:frame_tags=lavfi.signalstats.YAVG"
        let stats = try Scrub.execute("ffprobe", ["-v", "error", "-f", "lavfi", "-i", "movie=\(path),signalstats",
                                                  "-show_entries", entries, "-of", "csv=p=0"])
        let flash = try #require(stats.stdout.split(separator: "\n").compactMap { line -> Double? in
            let f = line.split(separator: ",")
            guard f.count == 2, let t = Double(f[0]), let y = Double(f[1]), y > 200 else { return nil }
            return t
        }.min(), "no white picture in \(path)")
        // (The sound placed by its times, gaps filled, from 0: an MP4 without an edit list stretches its first packet.)
        let raw = try Self.ffmpegOutput(["-v", "error", "-i", path, "-map", "0:a",
                                         "-af", "aresample=async=1:min_hard_comp=0.001:first_pts=0",
                                         "-ac", "1", "-ar", "48000", "-f", "s16le", "-"])
        let onset = stride(from: 0, to: raw.count - 1, by: 2).first {
            abs(Int(Int16(bitPattern: UInt16(raw[$0]) | UInt16(raw[$0 + 1]) << 8))) > 8000
        }
        let beep = Double(try #require(onset, "no beep in \(path)")) / 2 / 48000
        return beep - flash
    }

    /// An exact cut of a file whose picture starts after its sound (83 ms: an MP4 without an edit list, x264's
    /// B-pyramid delay left in its times) starts on the picture shown at `--from` on the file's timeline — the one
    /// ffprobe lists last at or before it, as `thumb --at` takes — and keeps the sound as far from the picture as the
    /// source has it (within 20 ms). It started two pictures late when times counted from the picture's start.
    @Test func anExactCutOfAPictureStartingAfterTheSoundStartsWhereItSays() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try Self.lateClip(in: dir)
        let times = try Self.pictureTimes(clip)
        try #require(abs((times.first ?? 0) - 2002.0 / 24000) < 0.0005,
                     "the picture starts 2 pictures late: \(times.prefix(3))")
        for from in [0.304, 0.5, 0.7] {
            let out = dir + "/exact-\(from).mp4"
            let r = try Scrub.run(["cut", clip, "--from", String(from), "--to", "3", "--exact", "-o", out, "--json"])
            try #require(r.status == 0, "\(r.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            #expect(json["start"] as? Double == from, "\(json)")
            let shown = try #require(times.last { $0 <= from + 1e-6 }), before = try #require(times.last { $0 < shown })
            let first = try Self.rgb(out)
            let asked = Self.meanDifference(first, try Self.rgb(clip, at: shown))
            let earlier = Self.meanDifference(first, try Self.rgb(clip, at: before))
            let next = try #require(times.first(where: { $0 > shown }))
            let later = Self.meanDifference(first, try Self.rgb(clip, at: next))
            let why = "\(from): the picture of \(shown) (difference \(asked)), not the one before (\(earlier)) or after"
            #expect(asked < 1.5 && asked * 4 < earlier && asked * 4 < later, "\(why) (\(later))")
        }
        // The sound as far from the picture in the cut as in the source.
        let out = dir + "/sync.mp4"
        let r = try Scrub.run(["cut", clip, "--from", "0.7", "--to", "3", "--exact", "-o", out])
        try #require(r.status == 0, "\(r.stderr)")
        let source = try Self.beepAfterFlash(clip), cut = try Self.beepAfterFlash(out)
        #expect(abs(cut - source) < 0.02,
                "the beep \(cut) s after the white picture in the cut, \(source) s in the source")
    }
}
