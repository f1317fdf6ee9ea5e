import Glibc

/// A value behind a lock — the one way ScrubKit's layers share mutable state and wait for each other. `withLock`
/// gives exclusive access; ``wait(until:timeout:)`` and ``withLock(waitingUntil:timeout:_:)`` sleep, without holding
/// the lock, until the value satisfies a condition (every `withLock` wakes the waiters to check again), so a worker
/// thread waiting for a request, a decoder waiting for a free place and a caller waiting for readiness all use this one
/// type.
///
/// On a `pthread_mutex_t` and a `pthread_cond_t` on the monotonic clock, not the Synchronization module's `Mutex`:
/// ThreadSanitizer intercepts pthread locks, while `Mutex` on Linux is a bare futex it cannot see — every access
/// under a `Mutex` was reported as a race (`tools/tsan`), making real races impossible to tell apart — and `Mutex`
/// cannot wait for a condition. Single flags and counters that need no lock stay `Atomic`s.
public final class Locked<Value>: @unchecked Sendable {   // unchecked: `storage` is only touched while `mutex` is held
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    /// The value, with a byte beside it: a zero-sized value (`Locked(())`, a plain lock) would otherwise sit at the
    /// address of `mutex` itself, and ThreadSanitizer took its accesses for races with the reads of `mutex`.
    private var storage: (value: Value, apart: UInt8)

    /// A lock around `value`.
    public init(_ value: Value) {
        storage = (value, 0)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        changed = .allocate(capacity: 1)
        changed.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(changed, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(changed)
        changed.deinitialize(count: 1)
        changed.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value and returns what it returns; then wakes whoever waits on the
    /// value (they check their condition again).
    @inline(__always)
    public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(mutex)
        }
        return try body(&storage.value)
    }

    /// Waits until `ready` holds for the value (checked at once, then after every change) or `timeout` seconds have
    /// passed (nil: no limit), then runs `body` under the lock, told whether the value became ready. The lock is not
    /// held while waiting.
    public func withLock<Result, E: Error>(
        waitingUntil ready: (Value) -> Bool, timeout: Double? = nil,
        _ body: (inout Value, _ ready: Bool) throws(E) -> Result
    ) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(mutex)
        }
        var deadline = timespec()
        if let timeout {
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            let whole = timeout.rounded(.down)
            deadline.tv_sec += Int(max(0, min(whole, 1e9)))
            deadline.tv_nsec += Int(max(0, timeout - whole) * 1e9)
            if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
        }
        var isReady = ready(storage.value)
        while !isReady {
            if timeout == nil {
                pthread_cond_wait(changed, mutex)
            } else if pthread_cond_timedwait(changed, mutex, &deadline) == ETIMEDOUT {
                isReady = ready(storage.value)
                break
            }
            isReady = ready(storage.value)
        }
        return try body(&storage.value, isReady)
    }

    /// Waits until `ready` holds for the value or `timeout` seconds have passed (nil: no limit); returns whether it
    /// holds.
    @discardableResult
    public func wait(until ready: (Value) -> Bool, timeout: Double? = nil) -> Bool {
        withLock(waitingUntil: ready, timeout: timeout) { _, isReady in isReady }
    }
}
