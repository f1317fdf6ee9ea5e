import Foundation

/// The one way ScrubKit and the front end start a thread of their own: named so that the system shows the name
/// (`top -H`, `/proc/PID/task/*/comm`, gdb, a test counting a component's threads). Foundation's `Thread.name` set
/// before `start()` never reaches the system on Linux, set inside the thread it does only when the starting thread
/// has already recorded the new one (a race), and a name over 15 bytes is refused; this writes the name, cut to 15
/// bytes, to `/proc/thread-self/comm` first thing in the thread. (Threads a library starts from one, FFmpeg's
/// decoder threads among them, inherit its name.)
public enum NamedThread {
    /// The longest name the system keeps for a thread, in bytes.
    public static let maximumNameBytes = 15

    /// Starts a thread named `name` running `body`. `stackSize`: decoders (dav1d, libaom) want a main thread's stack
    /// (8 MiB), not a small default; nil keeps the default.
    public static func start(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        let short = systemName(name)
        let thread = Thread {
            FileIO.writeAll(short, toFileAt: "/proc/thread-self/comm")
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
