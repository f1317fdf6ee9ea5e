/// The name of one entry in a ``ThumbnailCache``: what kind of thing it holds, the version of that kind's layout,
/// the source's identity, and every part that decides its bytes — the one key type of every cache (pictures,
/// encoded files, scene lists, batch outputs).
///
/// A new setting that changes what an entry holds becomes one more part; a changed payload layout bumps the kind's
/// ``Kind/version``, so every older entry of that kind is a miss (and ages out of the disk tier), never a misread.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    /// What an entry holds.
    public enum Kind: String, Sendable, CaseIterable {
        /// A decoded thumbnail (pixels and times).
        case thumbnail = "pixels"
        /// A thumbnail encoded as a file (JPEG/PNG/WebP bytes and the facts reported about them).
        case encodedFile = "file"
        /// A file's cuts and scenes.
        case scenes
        /// Everything a batch wrote for one source (its records and files).
        case batch
        /// A browse tile's facts about its file (length, codec, size: ``TileFacts``).
        case facts
        /// A browse tile's moving preview: its frames, deflated (``TilePreview``).
        case tilePreview = "motion"

        /// The layout version of this kind's entries.
        public var version: Int { 1 }
    }

    /// What the entry holds.
    public let kind: Kind
    /// The source as it was when the entry was made (``SourceIdentity/description``).
    public let identity: String
    /// The settings and requests that decide the entry's bytes, in a fixed order.
    public let parts: [String]

    /// The key of `kind`'s entry for the file whose identity is `identity`, decided by `parts`.
    public init(_ kind: Kind, identity: SourceIdentity, parts: [String]) {
        self.init(kind, identity: identity.description, parts: parts)
    }

    private init(_ kind: Kind, identity: String, parts: [String]) {
        self.kind = kind
        self.identity = identity
        self.parts = parts
    }

    /// The same source and parts as another kind of entry with `more` parts after them (an encoded file is its
    /// thumbnail's key with the format and quality).
    public func derived(_ kind: Kind, adding more: [String]) -> CacheKey {
        CacheKey(kind, identity: identity, parts: parts + more)
    }

    /// The entry's name in the disk tier: kind, version, identity and parts joined by `|`.
    public var description: String {
        ([kind.rawValue, "v\(kind.version)", identity] + parts).joined(separator: "|")
    }
}
