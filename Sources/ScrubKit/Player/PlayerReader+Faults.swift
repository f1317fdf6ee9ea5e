import FFmpegBridge
import Foundation
import MediaTime

/// What goes wrong while the reader reads, said for the status line (``ReadingStatus``): a read waiting on a server, a
/// server gone, a file that ends before its length, is deleted or cannot be read on.
extension PlayerReader {
    /// How long a read waits before it is said to wait (and before a move ends it to go on elsewhere).
    static let stallNotice = 1.0
    /// How often the reader looks whether its file is still there while idle.
    static let lookInterval = 2.0

    /// How reading goes now.
    var readingStatus: ReadingStatus {
        state.withLock { s in
            if s.fault != .fine { return s.fault }
            if let since = s.readingSince, Demuxer.isURL(path) {
                let waited = clock.now() - since
                if waited > PlayerReader.stallNotice { return .waiting(seconds: waited) }
            }
            return .fine
        }
    }

    /// With the lock held: ends the read in progress at once (a URL's), marked as ended on purpose.
    static func interruptRead(_ s: inout State) {
        guard s.readingSince != nil, let interrupter = s.interrupter else { return }
        s.interrupted = true
        interrupter.interrupt()
    }

    /// What a read that gave no packet means: at the end of the file, whether it came early (more than a second before
    /// the stated `end`, in seconds); else the error, for a URL's server or the file.
    static func fault(of read: Result<Bool, Error>, _ s: State, end: Double?, isURL: Bool) -> ReadingStatus {
        switch read {
        case .success:
            guard let end, let front = s.front, front < end - 1 else { return .fine }
            return .endsEarly(MediaTime(seconds: front, preferredTimescale: 1000))
        case .failure(let error as Demuxer.TimedOut):
            return isURL ? .serverGone("no answer in \(Int(error.seconds.rounded())) s") : .unreadable("timed out")
        case .failure(let error as FFmpegError):
            return isURL ? .serverGone(error.message) : .unreadable(error.message)
        case .failure(let error):
            return isURL ? .serverGone("\(error)") : .unreadable("\(error)")
        }
    }

    /// While idle: a local file no longer there is said to be deleted (what is open plays on), at most every
    /// ``lookInterval``.
    func lookForFile() {
        guard !Demuxer.isURL(path) else { return }
        let now = clock.now()
        let due = state.withLock { s -> Bool in
            guard s.fault == .fine, now - s.lookedForFile >= PlayerReader.lookInterval else { return false }
            s.lookedForFile = now
            return true
        }
        if due, access(path, F_OK) != 0, errno == ENOENT { state.withLock { $0.fault = .deleted } }
    }
}
