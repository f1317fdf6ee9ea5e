import Dispatch
@testable import ScrubKit
import Testing

/// `Locked`: exclusive access under contention, values and errors through `withLock`.
@Suite struct LockedTests {
    @Test func incrementsFromManyThreadsAreNeverLost() {
        let counter = Locked(0)
        let plain = Locked(())   // a plain lock (zero-sized value) guards the other counter
        nonisolated(unsafe) var guarded = 0
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<20_000 {
                counter.withLock { $0 += 1 }
                plain.withLock { _ in guarded += 1 }
            }
        }
        #expect(counter.withLock { $0 } == 160_000)
        #expect(plain.withLock { _ in guarded } == 160_000)
    }

    @Test func withLockReturnsAndRethrows() {
        struct Boom: Error {}
        let l = Locked([1, 2])
        #expect(l.withLock { $0.append(3); return $0.count } == 3)
        #expect(throws: Boom.self) { try l.withLock { _ throws(Boom) in throw Boom() } }
        #expect(l.withLock { $0 } == [1, 2, 3], "the value survives a throw")
    }
}
