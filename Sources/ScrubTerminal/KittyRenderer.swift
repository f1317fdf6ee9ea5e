import Foundation
import ScrubKit
import Locking
import Synchronization

/// kitty graphics protocol, one image id replaced each frame. Pixels go as RGB (f=24) through a file when the terminal
/// reads this machine's files (``fileDirectory``: kitty on the same machine, found by asking it), else in the escape
/// sequence itself, zlib-compressed, in 4096-byte base64 chunks (over SSH) — there at half the cells' pixels each way
/// (a quarter of the bytes; kitty scales them to the cells) and under two ids in turn, the new picture placed before
/// the old one is deleted (a picture arriving in hundreds of chunks left the place blank while it came).
public struct KittyRenderer: FrameRenderer {
    /// `kitty`.
    public var kind: GraphicsKind { .kitty }
    /// Where picture files go for kitty to read (and delete: their names carry `tty-graphics-protocol`, in a
    /// temporary directory); nil: pixels in the escape sequences.
    public let fileDirectory: String?
    /// A kitty renderer sending pixels in the escape sequences, or through files in `fileDirectory`.
    public init(fileDirectory: String? = nil) { self.fileDirectory = fileDirectory }

    /// The start of every picture file's name: kitty deletes a file it read only when the name contains
    /// `tty-graphics-protocol`; the process id lets ``removeLeftovers()`` find this process's.
    static var filePrefix: String { "tty-graphics-protocol-scrubkit-\(getpid())-" }
    private static let fileCount = Atomic<Int>(0)
    /// The last picture's file and when it was written, until kitty has read (deleted) it.
    private static let unread = Locked<(path: String, at: Double)?>(nil)
    /// What the unread file's age is measured on.
    private static let clock: MediaClock = SystemClock()
    /// In the escape codes: the id the main picture on screen has (1 or 3, in turn).
    private static let shown = Atomic<Int>(1)
    /// Pixels per cell side are divided by this in the escape codes (kitty scales the picture up to its cells).
    var reduction: Int { fileDirectory == nil ? 2 : 1 }

    /// The image as RGB placed at the cell, replacing the previous picture under the same id (nothing deleted first:
    /// no blank between pictures). Through a file: ~100 bytes to the terminal instead of megabytes (at 160×48 cells
    /// raw RGB is ~5 MB of base64 a frame, zlib-compressed still a third to a tenth of that); "" (the picture dropped)
    /// while kitty has not read the last one.
    public func draw(_ image: RGBImage, column: Int, row: Int, cellPixels: (w: Int, h: Int)) -> String {
        // z=-1: under the text, so a label written over the picture (the hover preview's time) shows.
        guard fileDirectory == nil else {
            return place(image, column: column, row: row, id: 1, z: -1, cellPixels: cellPixels)
        }
        let old = Self.shown.load(ordering: .relaxed), id = old == 1 ? 3 : 1
        Self.shown.store(id, ordering: .relaxed)
        return place(image, column: column, row: row, id: id, z: -1, cellPixels: cellPixels)
            + "\u{1B}_Ga=d,d=I,i=\(old),q=2\u{1B}\\"
    }

    /// The cells' pixels, divided by ``reduction`` in the escape codes.
    public func cellGeometry(_ cellPixels: (w: Int, h: Int)) -> CellGeometry {
        CellGeometry(
            width: max(1, cellPixels.w / reduction), height: max(1, cellPixels.h / reduction), wholeCells: false)
    }

    /// The cells' pixels (divided by ``reduction`` in the escape codes).
    public func pixelSize(
        columns: Int, rows: Int, cellPixels: (w: Int, h: Int), aspect: Double
    ) -> (width: Int, height: Int) {
        Self.fit(columns * max(1, cellPixels.w / reduction), rows * max(1, cellPixels.h / reduction), aspect: aspect)
    }

    /// The overlay is a second image (id 2) on a layer above the text and the main picture: replacing the main
    /// picture leaves it in place.
    public func drawOverlay(_ image: RGBImage, column: Int, row: Int, cellPixels: (w: Int, h: Int)) -> String {
        place(image, column: column, row: row, id: 2, z: 1, cellPixels: cellPixels)
    }

    /// Tiles are images 10, 11, … (one per slot on screen), at z=0: no text goes over a tile, and kitty (0.26 under
    /// Xvfb) left old glyphs ghosting in every changed cell while any image lay under the text (z<0).
    public func drawTile(_ image: RGBImage, column: Int, row: Int, slot: Int, cellPixels: (w: Int, h: Int)) -> String {
        place(image, column: column, row: row, id: 10 + slot, z: 0, cellPixels: cellPixels)
    }

    /// Deletes every image placed (the tiles and anything else).
    public func clearTiles() -> String { "\u{1B}_Ga=d,d=A,q=2\u{1B}\\" }

    /// Deletes the overlay image.
    public func clearOverlay() -> String { "\u{1B}_Ga=d,d=i,i=2,q=2\u{1B}\\" }

    /// kitty keeps the overlay on its own layer.
    public var overlayPersists: Bool { true }
    /// Outside the synchronized update (kitty's pending-mode buffer is bounded).
    public var writesPicturesUnsynchronized: Bool { true }

    private func place(
        _ image: RGBImage, column: Int, row: Int, id: Int, z: Int, cellPixels: (w: Int, h: Int)
    ) -> String {
        let at = "\u{1B}[\(row + 1);\(column + 1)H"
        var head = "a=T,f=24,s=\(image.width),v=\(image.height),i=\(id),p=1,z=\(z),q=2,C=1"
        if reduction > 1 {
            // Shown over the cells it was made for: kitty scales it up.
            let cell = cellGeometry(cellPixels)
            head +=
                ",c=\((image.width + cell.width - 1) / cell.width),r=\((image.height + cell.height - 1) / cell.height)"
        }
        if let dir = fileDirectory {
            // Paced by kitty itself: while the last picture's file is still there kitty has not read it, and this
            // picture is dropped (else files would pile up in memory faster than kitty shows them). One kitty never
            // deletes is given up on after half a second.
            if id == 1, let last = Self.unread.withLock({ $0 }) {
                var st = stat()
                if stat(last.path, &st) == 0 {
                    if Self.clock.now() - last.at < 0.5 { return "" }
                    unlink(last.path)
                }
            }
            // A file kitty reads and deletes (written whole, then renamed: never read half-written).
            let n = Self.fileCount.add(1, ordering: .relaxed).newValue
            let path = "\(dir)/\(Self.filePrefix)\(n).rgb"
            let written: Void? = try? FileIO.replace(
                path, with: image.pixels, temporary: path + ".part", mode: 0o600, durability: .none)
            if written != nil {
                if id == 1 { Self.unread.withLock { $0 = (path, Self.clock.now()) } }
                Self.directoriesUsed.withLock { _ = $0.insert(dir) }
                return at + "\u{1B}_G\(head),t=t;\(Data(path.utf8).base64EncodedString())\u{1B}\\"
            }
        }
        let packed = image.deflated().flatMap { $0.count < image.pixels.count ? $0 : nil }   // (noise does not shrink)
        let data = Data(packed ?? image.pixels).base64EncodedString()
        let compression = packed == nil ? "" : ",o=z"
        var out = at
        var i = data.startIndex
        var first = true
        while i < data.endIndex {
            let j = data.index(i, offsetBy: 4096, limitedBy: data.endIndex) ?? data.endIndex
            let more = j < data.endIndex ? 1 : 0
            out += "\u{1B}_G\(first ? head + compression + ",m=\(more)" : "m=\(more)");\(data[i..<j])\u{1B}\\"
            first = false
            i = j
        }
        return out
    }

    /// Removes picture files of this process kitty has not read (written just before quitting).
    public func removeLeftovers() {
        guard let dir = fileDirectory else { return }
        Self.removeLeftovers(in: dir)
    }

    /// Removes this process's unread picture files from every directory pictures went to (on a signal, before exit).
    public static func removeAllLeftovers() {
        for dir in directoriesUsed.withLock({ $0 }) { removeLeftovers(in: dir) }
    }

    private static func removeLeftovers(in dir: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
        for name in names where name.hasPrefix(filePrefix) { unlink("\(dir)/\(name)") }
    }
    private static let directoriesUsed = Locked<Set<String>>([])

    /// Deletes the placed images (the picture and the overlay).
    public func clear() -> String { "\u{1B}_Ga=d,d=I,i=1,q=2\u{1B}\\\u{1B}_Ga=d,d=I,i=3,q=2\u{1B}\\" + clearOverlay() }
}
