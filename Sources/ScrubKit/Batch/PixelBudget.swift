import Locking

/// Limits how many pixels of decoded frames a batch holds at once: each file reserves its frame size before it
/// decodes and releases it when done. A file larger than the whole budget waits until it can run alone, so
/// `--jobs 8` over 8K clips decodes one at a time while small files still run side by side.
final class PixelBudget: Sendable {
    /// Pixels reserved.
    private let used = Locked(0)
    private let capacity: Int

    /// The default: two 4K frames' worth (≈ 16.6 MP) — two 4K decodes at once, one 8K alone.
    static let defaultCapacity = 2 * 3840 * 2160

    init(capacity: Int = PixelBudget.defaultCapacity) { self.capacity = max(1, capacity) }

    /// Blocks until `pixels` (capped at the capacity) fit; returns the amount reserved.
    func reserve(_ pixels: Int) -> Int {
        let amount = min(max(pixels, 1), capacity)
        used.withLock(waitingUntil: { [capacity] in $0 + amount <= capacity }) { used, _ in used += amount }
        return amount
    }

    /// Gives back what ``reserve(_:)`` returned.
    func release(_ amount: Int) {
        used.withLock { $0 -= amount }
    }

    /// Pixels reserved right now (for tests).
    var inUse: Int { used.withLock { $0 } }
}
