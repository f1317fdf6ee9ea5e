import Foundation
import Testing

@Suite struct BenchCommandTests {
    @Test func childProcessesReportConsistentMeasurementsAndCharts() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = Scrub.packageRoot.appendingPathComponent("samples/large_6000x4000.jpg").path
        let svg = dir.appendingPathComponent("m.svg").path, png = dir.appendingPathComponent("m.png").path
        let r = try Scrub.run(["bench", image, "--runs", "3", "--json", "--svg", svg, "--png", png])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = Scrub.jsonLines(r.stdout)
        #expect(
            Set(lines.compactMap { $0["mode"] as? String }) == [
                "full-rgba", "1600px", "320px", "1600px-no-shrink", "320px-no-shrink",
            ])
        for l in lines {
            #expect(l["runs"] as? Int == 3)
            let w = l["width"] as! Int, h = l["height"] as! Int
            #expect(abs((l["theoreticalMiB"] as! Double) - Double(w * h * 4) / 1_048_576) < 0.01)
            let peak = (l["peakRSSMiB"] as! [String: Double])["median"]!,
                held = (l["heldRSSMiB"] as! [String: Double])["median"]!
            #expect(peak >= held && held > 0)
        }
        let full = lines.first { $0["mode"] as? String == "full-rgba" }!
        let small = lines.first { $0["mode"] as? String == "320px" }!
        #expect((full["width"] as! Int) == 6000)
        #expect((small["width"] as! Int) == 320)
        // Holding a full RGBA decode costs at least its own size; a 320 px thumbnail far less.
        let fullAbove = (full["aboveBaselineMiB"] as! [String: Double])["median"]!
        let smallAbove = (small["aboveBaselineMiB"] as! [String: Double])["median"]!
        #expect(fullAbove >= 6000.0 * 4000 * 4 / 1_048_576 * 0.95)
        #expect(smallAbove < fullAbove / 3)
        #expect(try String(contentsOfFile: svg, encoding: .utf8).hasPrefix("<svg"))
        #expect(FileManager.default.contents(atPath: png)?.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true)
    }
}
