import Locking

/// An in-memory cache with a byte budget that evicts the least recently used entries first — NSCache's
/// `totalCostLimit`, with a strict LRU order and no surprise evictions below the budget.
///
/// Thread-safe (one lock; every operation is O(1)), `Sendable`. An entry costing more than the whole budget is not
/// kept. Cost is whatever the caller says an entry weighs: pixel bytes for pictures, encoded bytes for files.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Counters since creation.
    public struct Statistics: Sendable, Equatable {
        /// Lookups that found their entry.
        public var hits = 0
        /// Lookups that did not.
        public var misses = 0
        /// Entries stored.
        public var insertions = 0
        /// Entries removed to stay within the budget.
        public var evictions = 0
    }

    private struct Node {
        var key: Key
        var value: Value
        var cost: Int
        var newer: Int      // toward the most recently used (-1: none)
        var older: Int      // toward the least recently used (-1: none)
    }

    /// Entries live in `slots`, chained from `newest` to `oldest`; freed slots are reused.
    private struct State {
        var index: [Key: Int] = [:]
        var slots: [Node?] = []
        var freeSlots: [Int] = []
        var newest = -1
        var oldest = -1
        var totalCost = 0
        var statistics = Statistics()

        mutating func unlink(_ i: Int) {
            let n = slots[i]!
            if n.newer >= 0 { slots[n.newer]!.older = n.older } else { newest = n.older }
            if n.older >= 0 { slots[n.older]!.newer = n.newer } else { oldest = n.newer }
        }

        mutating func pushNewest(_ i: Int) {
            slots[i]!.newer = -1
            slots[i]!.older = newest
            if newest >= 0 { slots[newest]!.newer = i }
            newest = i
            if oldest < 0 { oldest = i }
        }

        mutating func remove(_ i: Int) {
            unlink(i)
            let n = slots[i]!
            index[n.key] = nil
            totalCost -= n.cost
            slots[i] = nil
            freeSlots.append(i)
        }
    }

    /// The most the entries may cost together.
    public let budget: Int
    private let state = Locked(State())

    /// A cache holding at most `budget` cost units (bytes).
    public init(budget: Int) {
        self.budget = max(0, budget)
    }

    /// The value for `key`, which becomes the most recently used; nil on a miss.
    public func value(for key: Key) -> Value? {
        state.withLock { s in
            guard let i = s.index[key] else { s.statistics.misses += 1; return nil }
            s.statistics.hits += 1
            if s.newest != i { s.unlink(i); s.pushNewest(i) }
            return s.slots[i]!.value
        }
    }

    /// The first entry, most recently used first, whose key and value satisfy `matches` (an entry standing for a range
    /// of keys: a keyframe's picture for the times it answers); it becomes the most recently used. O(entries).
    public func first(where matches: (Key, Value) -> Bool) -> (key: Key, value: Value)? {
        state.withLock { s in
            var i = s.newest
            while i >= 0, let n = s.slots[i] {
                if matches(n.key, n.value) {
                    s.statistics.hits += 1
                    if s.newest != i { s.unlink(i); s.pushNewest(i) }
                    return (n.key, n.value)
                }
                i = n.older
            }
            s.statistics.misses += 1
            return nil
        }
    }

    /// Whether `key` is cached, without touching its recency or the counters.
    public func contains(_ key: Key) -> Bool { state.withLock { $0.index[key] != nil } }

    /// Stores `value` (replacing an entry with the same key) as the most recently used, then evicts the least
    /// recently used entries until the total is within the budget. A value costing more than the budget is not kept.
    public func insert(_ value: Value, for key: Key, cost: Int) {
        let cost = max(0, cost)
        state.withLock { s in
            if let i = s.index[key] { s.remove(i) }
            guard cost <= budget else { return }
            let node = Node(key: key, value: value, cost: cost, newer: -1, older: -1)
            let i: Int
            if let f = s.freeSlots.popLast() {
                s.slots[f] = node; i = f
            } else {
                s.slots.append(node); i = s.slots.count - 1
            }
            s.index[key] = i
            s.pushNewest(i)
            s.totalCost += cost
            s.statistics.insertions += 1
            while s.totalCost > budget, s.oldest >= 0, s.oldest != i {
                s.remove(s.oldest)
                s.statistics.evictions += 1
            }
        }
    }

    /// Forgets `key`.
    public func removeValue(for key: Key) {
        state.withLock { s in if let i = s.index[key] { s.remove(i) } }
    }

    /// Forgets everything (the counters stay).
    public func removeAll() {
        state.withLock { s in
            let stats = s.statistics
            s = State()
            s.statistics = stats
        }
    }

    /// Entries held.
    public var count: Int { state.withLock { $0.index.count } }
    /// Their total cost.
    public var totalCost: Int { state.withLock { $0.totalCost } }
    /// Hits, misses, insertions and evictions so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }
    /// Keys from the most to the least recently used (for tests and diagnostics).
    public var keysByRecency: [Key] {
        state.withLock { s in
            var out: [Key] = []
            var i = s.newest
            while i >= 0 { out.append(s.slots[i]!.key); i = s.slots[i]!.older }
            return out
        }
    }
}
