import Foundation

/// The one way ScrubKit and the front end start a thread of their own: named so that the system shows the name
/// (`top -H`, `/proc/PID/task/*/comm`, gdb, a test counting a component's threads). Foundation's `Thread.name` set
/// before `start()` never reaches the system on Linux, and a name over 15 bytes is refused there; this sets it from
/// inside the thread, cut to 15 bytes.
public enum NamedThread {
    /// The longest name the system keeps for a thread, in bytes.
    public static let maximumNameBytes = 15

    /// Starts a thread named `name` running `body`. `stackSize`: decoders (dav1d, libaom) want a main thread's stack
    /// (8 MiB), not a small default; nil keeps the default.
    public static func start(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        let short = systemName(name)
        let thread = Thread {
            Thread.current.name = short
            body()
        }
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }

    /// `name` cut to what the system keeps (whole characters, at most ``maximumNameBytes`` bytes of UTF-8).
    static func systemName(_ name: String) -> String {
        var out = ""
        for c in name {
            guard out.utf8.count + String(c).utf8.count <= maximumNameBytes else { break }
            out.append(c)
        }
        return out
    }
}
