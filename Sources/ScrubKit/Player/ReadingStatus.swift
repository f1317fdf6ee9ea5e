import Foundation
import MediaTime

/// How reading a played file or URL goes, for a status line: well, waiting on a server that sends nothing, or a fault
/// — the server gone, the file cut short, deleted or unreadable. (AVPlayerItem's `isPlaybackBufferEmpty` and `error`
/// in one.) What was read plays on; a seek reads again (a server that came back is used again).
public enum ReadingStatus: Sendable, Equatable, CustomStringConvertible {
    /// Nothing to say.
    case fine
    /// A read has been waiting this many seconds for the server.
    case waiting(seconds: Double)
    /// The server stopped answering or broke the connection (after the read timeout, reconnects included).
    case serverGone(String)
    /// The file ends before its stated length: its last packet is at this time.
    case endsEarly(MediaTime)
    /// The file was deleted while playing (what is open plays on).
    case deleted
    /// Reading the file failed: why.
    case unreadable(String)

    /// One line for a status line ("" when there is nothing to say).
    public var description: String {
        switch self {
        case .fine: return ""
        case .waiting(let s): return "waiting for the server: \(Int(s)) s"
        case .serverGone(let why): return "the server went away: \(why)"
        case .endsEarly(let t): return "the file ends at \(t.formatted(fractionDigits: 1)): cut short?"
        case .deleted: return "the file was deleted: playing what is still open"
        case .unreadable(let why): return "the file cannot be read on: \(why)"
        }
    }

    /// Whether it is a fault (not just a wait).
    public var isFault: Bool {
        switch self {
        case .fine, .waiting: return false
        default: return true
        }
    }
}
