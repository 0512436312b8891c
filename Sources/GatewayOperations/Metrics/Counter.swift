import Synchronization

/// A count that only goes up, such as requests served or frames rejected.
///
/// Incrementing is one relaxed atomic add: safe from any thread, no lock.
public final class Counter: Sendable {
    private let storage = Atomic<UInt64>(0)

    public init() {}

    /// Adds `amount` (1 by default).
    public func increment(by amount: UInt64 = 1) {
        storage.wrappingAdd(amount, ordering: .relaxed)
    }

    /// Sets the count to a running total kept elsewhere (a component's own counter, read at
    /// scrape time); the total must only go up, as a counter's does.
    public func set(total: UInt64) {
        storage.store(total, ordering: .relaxed)
    }

    /// The current count.
    public var value: UInt64 { storage.load(ordering: .relaxed) }
}

/// A value that goes up and down, such as open connections or readers online.
///
/// Every operation is one relaxed atomic: safe from any thread, no lock.
public final class Gauge: Sendable {
    private let storage = Atomic<Int64>(0)

    public init() {}

    /// Replaces the value.
    public func set(_ value: Int64) { storage.store(value, ordering: .relaxed) }

    /// Adds `amount` (1 by default).
    public func increment(by amount: Int64 = 1) { storage.wrappingAdd(amount, ordering: .relaxed) }

    /// Subtracts `amount` (1 by default).
    public func decrement(by amount: Int64 = 1) { storage.wrappingSubtract(amount, ordering: .relaxed) }

    /// The current value.
    public var value: Int64 { storage.load(ordering: .relaxed) }
}
