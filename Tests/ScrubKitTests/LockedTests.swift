import Dispatch
import Foundation
@testable import ScrubKit
import Testing
import Locking

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

    @Test func waitingSeesAChangeMadeOnAnotherThread() {
        let box = Locked(0)
        let waiter = Thread { box.withLock(waitingUntil: { $0 >= 3 }) { v, ready in if ready { v = 100 } } }
        waiter.start()
        for _ in 0..<3 { usleep(2_000); box.withLock { $0 += 1 } }
        #expect(box.wait(until: { $0 == 100 }, timeout: 10), "the waiter woke on the third change and ran its body")
    }

    @Test func aWaitEndsAtItsTimeoutTellingItWasNotReady() {
        let box = Locked(false)
        let began = Date()
        let ready = box.wait(until: { $0 }, timeout: 0.05)
        #expect(!ready)
        #expect(Date().timeIntervalSince(began) >= 0.045, "it waited (a bound, not a timing)")
        #expect(box.wait(until: { !$0 }, timeout: 0), "ready at once needs no wait")
    }
}

/// `LatestRequestWorker`: only the newest request waiting is served, idle work between requests, a clean end.
@Suite struct LatestRequestWorkerTests {
    @Test func requestsMadeWhileOneIsServedCollapseToTheNewest() {
        let gate = Locked(false)
        let served = Locked<[Int]>([])
        let taken = Locked(0)
        let worker = LatestRequestWorker<Int>(name: "test.latest") { inbox in
            while case .request(let r, _) = inbox.take() {
                taken.withLock { $0 += 1 }
                gate.wait(until: { $0 })   // the first request is held until the test has submitted the rest
                served.withLock { $0.append(r) }
            }
        }
        worker.submit(1)
        #expect(taken.wait(until: { $0 == 1 }, timeout: 10), "the thread took the first request")
        for r in 2...9 { worker.submit(r) }
        gate.withLock { $0 = true }
        #expect(served.wait(until: { $0.count == 2 }, timeout: 10))
        #expect(served.withLock { $0 } == [1, 9], "2…8 were replaced before they were taken")
        worker.close()
    }

    @Test func idleWorkRunsBetweenRequestsAndCloseEndsTheThread() {
        let idles = Locked(0)
        let ended = Locked(false)
        let worker = LatestRequestWorker<Int>(name: "test.idle") { inbox in
            loop: while true {
                switch inbox.take(waitingAtMost: 0.001) {
                case .idle: idles.withLock { $0 += 1 }
                case .request: break
                case .closed: break loop
                }
            }
            ended.withLock { $0 = true }
        }
        #expect(idles.wait(until: { $0 >= 3 }, timeout: 10))
        worker.close()
        #expect(ended.wait(until: { $0 }, timeout: 10))
        worker.submit(5)
        #expect(!worker.isBusy, "closed: a request is ignored")
    }
}
