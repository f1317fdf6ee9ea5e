// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ScrubKit",
    products: [
        .library(name: "MediaTime", targets: ["MediaTime"]),
        .library(name: "ScrubKit", targets: ["ScrubKit"]),
        .executable(name: "scrub", targets: ["scrub"]),
    ],
    targets: [
        // Pure Swift, CMTime-style rational time. No FFmpeg, no Foundation.
        .target(name: "MediaTime", linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        // FFmpeg's C API plus static-inline shims for what Swift cannot import.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libswscale libavutil",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev"])]
        ),
        // The thin FFmpeg wrapper layer: the only code that imports CFFmpeg or touches unsafe pointers.
        // Each wrapper owns one FFmpeg object and frees it exactly once; everything it hands out is a Swift value.
        .target(name: "FFmpegBridge", dependencies: ["CFFmpeg", "CJPEG", "MediaTime"]),
        // libjpeg-turbo: JPEG stills decoded with DCT-domain scaling while streaming from the file.
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        // libsixel (sixel encoding) and its thin bridge: part of the C-bridge layer, like FFmpegBridge.
        .systemLibrary(name: "CSixel", pkgConfig: "libsixel", providers: [.apt(["libsixel-dev"])]),
        .target(name: "SixelBridge", dependencies: ["CSixel"]),
        // Core: media inspection, thumbnails, player. Sees only Swift types.
        .target(name: "ScrubKit", dependencies: ["MediaTime", "FFmpegBridge"]),
        // Terminal front end: progress bars, terminal graphics, the scrubbing player UI.
        .target(name: "ScrubTerminal", dependencies: ["ScrubKit", "MediaTime", "SixelBridge"]),
        // The command-line tool.
        .executableTarget(name: "scrub", dependencies: ["ScrubTerminal", "ScrubKit", "MediaTime"]),
        .testTarget(name: "MediaTimeTests", dependencies: ["MediaTime"]),
        .testTarget(name: "ScrubKitTests", dependencies: ["ScrubKit", "FFmpegBridge", "MediaTime", "ScrubTerminal"]),
        // Runs the built `scrub` binary: exit codes, help, JSON contracts.
        .testTarget(name: "ScrubCLITests", dependencies: ["scrub"]),
    ],
    swiftLanguageModes: [.v6]
)
