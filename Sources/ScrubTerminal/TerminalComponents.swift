import ScrubKit
import SixelBridge

/// What the terminal front end adds to `scrubkit --version`: libsixel and the graphics modes it makes possible.
public enum TerminalComponents {
    /// libsixel, loaded on first use for sixel pictures.
    public static var libraries: [ComponentReport.Library] {
        [
            ComponentReport.Library(
                name: "libsixel", version: SixelEncoder.libraryVersion, file: ComponentReport.lazyFile("libsixel"),
                role: "sixel pictures in scrubkit play")
        ]
    }

    /// The terminal graphics modes (all built in; which one a terminal gets is decided when playing).
    public static var features: [ComponentReport.Feature] {
        [
            ComponentReport.Feature(
                key: "sixel", available: true,
                detail: "sixel pictures (libsixel); also kitty, iTerm2 and half-block graphics")
        ]
    }
}
