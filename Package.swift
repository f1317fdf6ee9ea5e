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
        // Core: the FFmpeg wrapper layer (the only unsafe-pointer code) and the media model on top of it.
        .target(name: "ScrubKit", dependencies: ["MediaTime", "CFFmpeg"]),
        // The command-line tool.
        .executableTarget(name: "scrub", dependencies: ["ScrubKit", "MediaTime"]),
        .testTarget(name: "MediaTimeTests", dependencies: ["MediaTime"]),
        .testTarget(name: "ScrubKitTests", dependencies: ["ScrubKit", "MediaTime"]),
    ],
    swiftLanguageModes: [.v6]
)
