import FFmpegBridge
import TextBridge

/// What this build of scrubkit contains and what it finds at run time — the answer to the first question of a bug
/// report (`scrubkit --version`, like `ffmpeg -version` and `mpv --version`).
///
/// FFmpeg's libraries are loaded lazily, so gathering the report opens them: a missing one is reported here
/// (with the dynamic linker's message) instead of ending the process as a thumbnail request would.
public struct ComponentReport: Sendable {
    /// A library scrubkit uses.
    public struct Library: Sendable, Equatable {
        /// Its usual name (`libavformat`, `libheif`).
        public var name: String
        /// Its version as found at run time (or the headers' where the library has no query); nil when missing.
        public var version: String?
        /// The headers' version scrubkit was built with, when it differs in kind from ``version`` (FFmpeg's).
        public var builtAgainst: String?
        /// The file opened at run time (FFmpeg's sonames, libheif's, and those of the other libraries loaded on first
        /// use), when scrubkit opens it itself.
        public var file: String?
        /// Why it is missing, when it is.
        public var problem: String?
        /// What scrubkit uses it for, in a few words.
        public var role: String

        /// A library with the given facts.
        public init(
            name: String, version: String?, builtAgainst: String? = nil, file: String? = nil, problem: String? = nil,
            role: String
        ) {
            (self.name, self.version, self.builtAgainst, self.file, self.problem, self.role) = (
                name, version, builtAgainst, file, problem, role
            )
        }
    }

    /// An optional part of scrubkit and whether it works here.
    public struct Feature: Sendable, Equatable {
        /// A short stable key (`heic`, `sound`): the JSON name.
        public var key: String
        /// Whether it works on this machine.
        public var available: Bool
        /// What it is and, when it is missing, why.
        public var detail: String

        /// A feature with the given facts.
        public init(key: String, available: Bool, detail: String) {
            (self.key, self.available, self.detail) = (key, available, detail)
        }
    }

    /// FFmpeg's release string (`5.1.6-0+deb12u1`), nil when libavutil is missing.
    public var ffmpegRelease: String?
    /// The licence FFmpeg was built under (`GPL version 2 or later` for Debian's build), nil when libavutil is missing.
    public var ffmpegLicense: String?
    /// FFmpeg's four libraries, in loading order.
    public var ffmpeg: [Library]
    /// The other C libraries, linked into the binary.
    public var libraries: [Library]
    /// Optional parts, each available or not with the reason.
    public var features: [Feature]

    /// Whether every FFmpeg library was found that video, audio covers and the FFmpeg still fallback need (all but
    /// libavfilter, which GIF previews and the player's pitch at other speeds need).
    public var hasFFmpeg: Bool { ffmpeg.allSatisfy { $0.version != nil || $0.name == "libavfilter" } }

    /// The Debian package that holds a library, named after its soname as Debian names them: `libavfilter.so.8` is
    /// in `libavfilter8`.
    static func debianPackage(ofSoname soname: String) -> String {
        guard let r = soname.range(of: ".so.") else { return soname }
        return String(soname[..<r.lowerBound]) + String(soname[r.upperBound...])
    }

    /// The package to install for a library that could not be loaded: its own, or that of the dependency the dynamic
    /// linker's message starts with (`/lib/…/libavcodec.so.59: cannot open shared object file` for libavformat).
    static func packageToInstall(_ l: Library) -> String? {
        if let problem = l.problem, let colon = problem.firstIndex(of: ":") {
            let file = problem[..<colon].split(separator: "/").last.map(String.init) ?? ""
            if file.hasPrefix("lib") && file.contains(".so.") && !file.contains(" ") {
                return debianPackage(ofSoname: file)
            }
        }
        return l.file.map(debianPackage(ofSoname:))
    }

    /// The file the lazy loader opens for `library` (`libsixel` → `libsixel.so.1`), nil for a linked one.
    public static func lazyFile(_ library: String) -> String? { LibraryVersions.lazyFile(library) }

    /// Gathers the report (opens FFmpeg's libraries if it can); `libraries` and `features` from layers above
    /// ScrubKit (the terminal's sixel encoder) are appended.
    public static func gather(
        libraries extraLibraries: [Library] = [], features extraFeatures: [Feature] = []
    ) -> ComponentReport {
        let ff = LibraryVersions.ffmpeg().map {
            Library(name: $0.name, version: $0.found, builtAgainst: $0.builtAgainst, file: $0.soname, problem: $0.error,
                    role: role(ofFFmpegLibrary: $0.name))
        }
        let found = ff.allSatisfy { $0.version != nil || $0.name == "libavfilter" }
        let filters = ff.contains { $0.name == "libavfilter" && $0.version != nil }
        var missing: [String] = []
        for l in ff where l.version == nil && l.name != "libavfilter" {
            if let p = Self.packageToInstall(l), !missing.contains(p) { missing.append(p) }
        }
        let filterPackage = ff.first { $0.name == "libavfilter" }.flatMap(packageToInstall) ?? "libavfilter8"
        let heif = LibraryVersions.heifDecoders
        let font = FontLocator.file(for: FontLocator.defaultPattern)
        let libraries =
            [
                Library(
                    name: "libjpeg-turbo", version: LibraryVersions.jpegTurbo,
                    role: "JPEG stills (DCT-scaled) and JPEG output"),
                Library(
                    name: "libwebp", version: LibraryVersions.webp, file: LibraryVersions.lazyFile("libwebp"),
                    role: "WebP stills"),
                Library(
                    name: "libwebpdemux", version: LibraryVersions.webpDemux,
                    file: LibraryVersions.lazyFile("libwebpdemux"),
                    role: "animated WebP stills"),
            Library(name: "libwebpmux", version: LibraryVersions.webpMux, file: LibraryVersions.lazyFile("libwebpmux"),
                    role: "animated WebP previews"),
                Library(
                    name: "libheif", version: LibraryVersions.heif, file: "libheif.so.1",
                    problem: LibraryVersions.heifMissing,
                    role: "HEIC and AVIF stills"),
            Library(name: "zlib", version: LibraryVersions.zlib, role: "checksums of cache entries and PNG text"),
            Library(name: "FreeType", version: TextLibraries.freeType, file: LibraryVersions.lazyFile("libfreetype"),
                    role: "text on contact sheets and charts"),
                Library(
                    name: "fontconfig", version: TextLibraries.fontconfig,
                    file: LibraryVersions.lazyFile("libfontconfig"),
                    role: "finding fonts"),
        ] + extraLibraries
        var features = [
            Feature(
                key: "video", available: found,
                detail: found
                    ? "video, audio cover art and other stills through FFmpeg"
                    : "FFmpeg's libraries are missing (Debian: apt-get install \(missing.joined(separator: " "))): "
                        + "only JPEG, WebP and HEIF stills work"
            ),
            Feature(
                key: "png", available: found && ImageFormat.png.isAvailable, detail: "PNG output (libavcodec's encoder)"
            ),
            Feature(
                key: "webp-output", available: found && ImageFormat.webp.isAvailable,
                detail: "WebP output (libavcodec's libwebp encoder)"),
            Feature(key: "webp", available: true, detail: "WebP stills decoded at the output size (libwebp)"),
            Feature(key: "heic", available: heif.hevc, detail: heif.hevc ? "HEIC stills (libheif with an HEVC decoder)"
                    : "libheif has no HEVC decoder plugin (Debian: apt-get install libheif-plugin-libde265)"),
            Feature(
                key: "avif", available: heif.av1 || found,
                detail: heif.av1
                    ? "AVIF stills (libheif with an AV1 decoder)"
                    : "AVIF stills through FFmpeg only (libheif has no AV1 decoder)"),
            Feature(
                key: "text", available: font != nil,
                detail: font.map { "contact-sheet text with FreeType, default font \($0)" }
                    ?? "no font installed: contact sheets need one (Debian: apt-get install fonts-dejavu-core)"),
        ]
        features += extraFeatures
        let pulse = PulseOutput.libraryPath
        features.append(
            Feature(
                key: "sound", available: pulse != nil,
                detail: pulse.map { "sound in scrubkit play through PulseAudio/PipeWire (\($0), loaded when playing)" }
                    ?? "no PulseAudio client library: scrubkit play is silent (Debian: apt-get install libpulse0)"))
        features.append(
            Feature(
                key: "pitch", available: filters,
                detail: filters
                    ? "sound at other speeds with its pitch kept (libavfilter's atempo)"
                    : "libavfilter is missing: at other speeds the pitch follows the speed (Debian: apt-get install "
                        + "\(filterPackage))"
            ))
        features.append(
            Feature(
                key: "gif", available: filters,
                detail: filters
                    ? "GIF previews (libavfilter's palettegen and paletteuse)"
                    : "libavfilter is missing: no GIF previews (Debian: apt-get install \(filterPackage))"))
        return ComponentReport(
            ffmpegRelease: found ? LibraryVersions.ffmpegRelease : nil,
            ffmpegLicense: found ? LibraryVersions.ffmpegLicense : nil, ffmpeg: ff, libraries: libraries,
            features: features)
    }

    private static func role(ofFFmpegLibrary name: String) -> String {
        switch name {
        case "libavformat": return "reading containers, files and URLs"
        case "libavcodec": return "decoding video and stills, PNG/WebP output"
        case "libswscale": return "scaling and colour conversion"
        case "libswresample": return "converting decoded sound for the player"
        case "libavfilter": return "the player's sound at other speeds, pitch kept (atempo)"
        default: return "FFmpeg's common utilities"
        }
    }
}
