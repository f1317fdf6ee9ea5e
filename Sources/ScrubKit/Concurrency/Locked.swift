import Glibc

/// A value behind a lock: `withLock` gives exclusive access. The shared state of ScrubKit and the terminal front end
/// lives in these (or in `Atomic`s).
///
/// The same shape as the Synchronization module's `Mutex`, but on a `pthread_mutex_t`: ThreadSanitizer intercepts
/// pthread locks, while `Mutex` on Linux is a bare futex it cannot see — every access under a `Mutex` was reported as
/// a race (`tools/tsan`), making real races impossible to tell apart.
public final class Locked<Value>: @unchecked Sendable {   // unchecked: `storage` is only touched while `mutex` is held
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The value, with a byte beside it: a zero-sized value (`Locked(())`, a plain lock) would otherwise sit at the
    /// address of `mutex` itself, and ThreadSanitizer took its accesses for races with the reads of `mutex`.
    private var storage: (value: Value, apart: UInt8)

    /// A lock around `value`.
    public init(_ value: Value) {
        storage = (value, 0)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    @inline(__always)
    public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&storage.value)
    }
}
