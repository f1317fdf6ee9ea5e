import Foundation
import Locking

/// What a batch keeps besides its outputs: each file's outputs in the cache, and the resume journal.
extension BatchRunner {
    // MARK: - Cache

    /// A file's outputs in the cache: records (JSON lines), then each file as name and bytes.
    func storeOutputs(_ result: BatchFileResult, key: CacheKey) {
        var w = ByteWriter()
        let records = Array(result.records.map { $0.json.text }.joined(separator: "\n").utf8)
        w.int(records.count); w.bytes += records
        w.int(result.outputs.count)
        for (name, bytes) in result.outputs {
            let n = Array(name.utf8)
            w.int(n.count); w.bytes += n
            w.int(bytes.count); w.bytes += bytes
        }
        options.cache?.store(w.bytes, for: key)
    }

    func cachedOutputs(_ key: CacheKey, source: String) -> (records: [BatchRecord], files: [(String, [UInt8])])? {
        guard let b = options.cache?.bytes(for: key) else { return nil }
        var r = ByteReader(b)
        func take(_ n: Int) -> [UInt8]? {
            guard n >= 0, n <= b.count - r.offset else { return nil }
            defer { r.offset += n }
            return Array(b[r.offset..<(r.offset + n)])
        }
        guard let rn = r.int(), let rtext = take(rn), let count = r.int(), count >= 0, count < 1_000_000 else {
            return nil
        }
        var files: [(String, [UInt8])] = []
        for _ in 0..<count {
            guard let nn = r.int(), let name = take(nn), let bn = r.int(), let bytes = take(bn) else { return nil }
            files.append((String(decoding: name, as: UTF8.self), bytes))
        }
        var records: [BatchRecord] = []
        for line in String(decoding: rtext, as: UTF8.self).split(separator: "\n") {
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  var rec = BatchRecord(json: obj) else { return nil }
            rec.source = source   // (the manifest shows it redacted, as typed this time)
            records.append(rec)
        }
        return (records, files)
    }

    func outputPath(_ name: String) -> String {
        let file = name.split(separator: "#").first.map(String.init) ?? name
        return (options.outputDirectory as NSString).appendingPathComponent(file)
    }

    // MARK: - Resume journal

    /// One finished file in a resume journal: the settings it was made with, the source's identity then
    /// (``SourceIdentity``; empty for URLs), and its records.
    struct JournalEntry {
        var signature: String
        var identity: String
        var records: [BatchRecord]
    }

    func remember(_ key: String, identity: String, _ records: [BatchRecord]) {
        let line =
            JSON.object([
                ("source", .string(key)), ("signature", .string(options.signature)), ("identity", .string(identity)),
                ("records", .array(records.map(\.json))),
            ]).text + "\n"
        // (Only the journal file grows: this run never looks a file up twice, so the loaded state stays as it was and
        // a long batch's memory does not grow with the files done.)
        state.withLock { _ in
            // O_APPEND: each line lands whole; a crash loses at most the line being written, whose outputs are
            // then simply redone.
            _ = FileIO.append(Array(line.utf8), toFileAt: stateFile, mode: 0o644)
        }
    }

    /// Every resume journal in `dir` (the unsharded one and each shard's), merged.
    static func loadStates(in dir: String) -> [String: JournalEntry] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
            .filter { $0.hasPrefix(".scrubkit-thumbs.state") && $0.hasSuffix(".jsonl") }.sorted()
        var out: [String: JournalEntry] = [:]
        for n in names { out.merge(loadState((dir as NSString).appendingPathComponent(n))) { _, new in new } }
        return out
    }

    static func loadState(_ path: String) -> [String: JournalEntry] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var out: [String: JournalEntry] = [:]
        for line in text.split(separator: "\n") {
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let source = obj["source"] as? String, let sig = obj["signature"] as? String,
                  let recs = obj["records"] as? [[String: Any]] else { continue }
            let records = recs.compactMap { BatchRecord(json: $0) }
            // (A line without an identity, from an older scrubkit, never matches: the file is redone once.)
            out[source] = JournalEntry(signature: sig, identity: (obj["identity"] as? String) ?? "-", records: records)
        }
        return out
    }

    /// An output counts as done when it exists, is non-empty and starts with its format's signature.
    public static func isValidOutput(path: String, format: ImageFormat) -> Bool {
        guard let h = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? h.close() }
        guard let head = try? h.read(upToCount: 12), head.count >= 4 else { return false }
        let b = [UInt8](head)
        if path.hasSuffix(".vtt") { return b.starts(with: Array("WEBV".utf8)) }
        if path.hasSuffix("-preview.gif") { return b.starts(with: Array("GIF8".utf8)) }
        if path.hasSuffix("-preview.mp4") { return b.count >= 8 && Array(b[4..<8]) == Array("ftyp".utf8) }
        if path.hasSuffix("-preview.webp") { return b.count >= 12 && Array(b[8..<12]) == Array("WEBP".utf8) }
        switch format {
        case .png: return b.starts(with: [0x89, 0x50, 0x4E, 0x47])
        case .jpeg: return b.starts(with: [0xFF, 0xD8])
        case .webp: return b.count >= 12 && Array(b[8..<12]) == Array("WEBP".utf8)
        }
    }
}
