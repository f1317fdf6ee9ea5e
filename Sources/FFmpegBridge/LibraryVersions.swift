import CFFmpeg
import CHeif
import CJPEG
import CWebP
import CZlib

/// One of FFmpeg's libraries as scrubkit finds it at run time (they are loaded lazily, so this is the real answer).
public struct FFmpegLibraryStatus: Sendable, Equatable {
    /// `libavformat`.
    public var name: String
    /// The file the lazy loader opens: `libavformat.so.59`.
    public var soname: String
    /// The version of the headers scrubkit was built with (`59.27.100`).
    public var builtAgainst: String
    /// The version of the library found, or nil when it could not be opened.
    public var found: String?
    /// Why it could not be opened (the dynamic linker's words), when it could not.
    public var error: String?
}

/// Versions of the C libraries in the bridge layer, for `scrubkit --version`.
public enum LibraryVersions {
    /// FFmpeg's libraries, each opened if it can be (a missing one is reported, not fatal).
    public static func ffmpeg() -> [FFmpegLibraryStatus] {
        (0..<Int(scrub_ffmpeg_library_count())).map { index in
            var error = [CChar](repeating: 0, count: 512)
            let info = scrub_ffmpeg_probe(Int32(index), &error, error.count)
            let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return FFmpegLibraryStatus(
                name: String(cString: info.name), soname: String(cString: info.soname),
                builtAgainst: dotted(info.built), found: info.found == 0 ? nil : dotted(info.found),
                error: message.isEmpty ? nil : message)
        }
    }

    /// FFmpeg's release (`5.1.6-0+deb12u1`), or nil when libavutil is missing.
    public static var ffmpegRelease: String? { scrub_ffmpeg_release().map { String(cString: $0) } }

    /// The licence FFmpeg was built under (`GPL version 2 or later` for Debian's), or nil when libavutil is missing.
    public static var ffmpegLicense: String? { scrub_ffmpeg_license().map { String(cString: $0) } }

    /// libjpeg-turbo's version (the headers': the library has no run-time query).
    public static var jpegTurbo: String {
        let n = Int(LIBJPEG_TURBO_VERSION_NUMBER)   // 2001005 = 2.1.5
        return "\(n / 1_000_000).\(n / 1000 % 1000).\(n % 1000)"
    }

    /// libwebp's decoder version, as found at run time.
    public static var webp: String { dotted(UInt32(WebPGetDecoderVersion())) }

    /// libwebpdemux's version (animated WebP in), as found at run time.
    public static var webpDemux: String { dotted(UInt32(WebPGetDemuxVersion())) }

    /// libwebpmux's version (animated WebP out), as found at run time.
    public static var webpMux: String { dotted(UInt32(WebPGetMuxVersion())) }

    /// The file the lazy loader opens for `library` (`libsixel` → `libsixel.so.1`), nil for a linked one: what a
    /// package must depend on beside what the binary links.
    public static func lazyFile(_ library: String) -> String? { scrub_lazy_soname(library).map { String(cString: $0) } }

    /// libheif's version, as found at run time; nil when it is not installed.
    public static var heif: String? { scrub_heif_version().map { String(cString: $0) } }

    /// Why libheif cannot be used (not installed), or nil.
    public static var heifMissing: String? { scrub_heif_missing().map { String(cString: $0) } }

    /// Whether libheif has a decoder for HEVC (HEIC stills) and for AV1 (AVIF stills): plugins, not always there.
    public static var heifDecoders: (hevc: Bool, av1: Bool) {
        (scrub_heif_has_decoder(0) != 0, scrub_heif_has_decoder(1) != 0)
    }

    /// zlib's version, as found at run time.
    public static var zlib: String { String(cString: zlibVersion()) }

    /// `0x3b1b64` → `59.27.100` (FFmpeg's AV_VERSION_INT and libwebp's version packing).
    static func dotted(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xff).\(v & 0xff)" }
}
