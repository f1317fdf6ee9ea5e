import FFmpegBridge
import Foundation

/// A memory-per-mode bar chart of a benchmark, as SVG text and as a picture (for PNG).
public enum BenchChart {
    /// One bar group: a label and MiB values (peak above baseline, held above baseline, theoretical result).
    public struct Row: Sendable {
        /// The mode's name.
        public var label: String
        /// Peak MiB above the baseline.
        public var peak: Double
        /// MiB above the baseline with the result held.
        public var held: Double
        /// MiB of the result as RGBA.
        public var theoretical: Double
        /// A row with these values.
        public init(label: String, peak: Double, held: Double, theoretical: Double) {
            (self.label, self.peak, self.held, self.theoretical) = (label, peak, held, theoretical)
        }
    }

    static let colors = [(peak: "#e4572e", held: "#17bebb", theory: "#222222")]

    /// Horizontal bars: peak above baseline (red), held above baseline (teal), tick at w×h×4.
    public static func svg(title: String, rows: [Row]) -> String {
        let maxV = max(1, rows.map { max($0.peak, $0.held, $0.theoretical) }.max() ?? 1)
        let left = 260.0, width = 560.0, rowH = 34.0, top = 50.0
        let height = top + Double(rows.count) * rowH + 50
        func x(_ v: Double) -> Double { left + v / maxV * width }
        var s =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(left + width + 80))\" height=\"\(Int(height))\" "
                + "font-family=\"sans-serif\" font-size=\"12\">\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        s += "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">\(escape(title))</text>\n"
        s +=
            "<text x=\"10\" y=\"40\" fill=\"#555\">MiB above the process's own baseline: <tspan "
                + "fill=\"#e4572e\">peak</tspan>, <tspan fill=\"#17bebb\">held with the result</tspan>, | = result as "
                    + "RGBA (w×h×4)</text>\n"
        for (i, r) in rows.enumerated() {
            let y = top + Double(i) * rowH
            s += "<text x=\"10\" y=\"\(y + 20)\">\(escape(r.label))</text>\n"
            s +=
                "<rect x=\"\(left)\" y=\"\(y + 6)\" width=\"\(max(1, x(r.peak) - left))\" height=\"10\" "
                    + "fill=\"#e4572e\"/>\n"
            s +=
                "<rect x=\"\(left)\" y=\"\(y + 17)\" width=\"\(max(1, x(r.held) - left))\" height=\"10\" "
                    + "fill=\"#17bebb\"/>\n"
            s +=
                "<line x1=\"\(x(r.theoretical))\" x2=\"\(x(r.theoretical))\" y1=\"\(y + 3)\" y2=\"\(y + 30)\" "
                    + "stroke=\"#222\" stroke-width=\"2\"/>\n"
            s +=
                "<text x=\"\(x(max(r.peak, r.held)) + 6)\" y=\"\(y + 20)\" "
                    + "fill=\"#333\">\(String(format: "%.1f / %.1f", r.peak, r.held))</text>\n"
        }
        return s + "</svg>\n"
    }

    /// The same chart drawn into a picture (FreeType text), for PNG output. Throws when no font is installed.
    public static func picture(title: String, rows: [Row]) throws -> RGBImage {
        let text = try TextPainter(font: nil, path: "chart")
        let maxV = max(1, rows.map { max($0.peak, $0.held, $0.theoretical) }.max() ?? 1)
        let left = 330, width = 520, rowH = 34, top = 56
        var img = RGBImage(width: left + width + 130, height: top + rows.count * rowH + 20)
        img.fill(x: 0, y: 0, width: img.width, height: img.height, (255, 255, 255))
        text.draw(title, pixelSize: 17, into: &img, x: 10, y: 8, color: RGBColor(20, 20, 20))
        text.draw(
            "MiB above the process's own baseline: red peak, teal held with the result, black = w×h×4", pixelSize: 12,
            into: &img, x: 10, y: 34, color: RGBColor(90, 90, 90))
        func x(_ v: Double) -> Int { left + Int(v / maxV * Double(width)) }
        for (i, r) in rows.enumerated() {
            let y = top + i * rowH
            text.draw(
                text.fitting(r.label, pixelSize: 12, maxWidth: left - 20), pixelSize: 12, into: &img, x: 10, y: y + 8,
                color: RGBColor(20, 20, 20))
            img.fill(x: left, y: y + 6, width: max(1, x(r.peak) - left), height: 10, (228, 87, 46))
            img.fill(x: left, y: y + 17, width: max(1, x(r.held) - left), height: 10, (23, 190, 187))
            img.fill(x: x(r.theoretical) - 1, y: y + 3, width: 2, height: 27, (20, 20, 20))
            text.draw(
                String(format: "%.1f / %.1f", r.peak, r.held), pixelSize: 12, into: &img, x: x(max(r.peak, r.held)) + 6,
                y: y + 8,
                color: RGBColor(50, 50, 50))
        }
        return img
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(
            of: ">", with: "&gt;")
    }
}
