import GatewayTransport
import GatewayChannel
import GatewayWire

/// The event buffer of each event loop, shared by the connections on it: a read's events are
/// handled before the loop reads again, so one buffer per loop serves them all, where a
/// buffer kept per connection held its capacity for the connection's life (a reader's link:
/// days). Like the loop's read buffer, a slot is touched only by its loop's thread.
///
/// `@unchecked Sendable`: slot `i` is read and written only on the thread of the loop whose
/// ``EventLoop/index`` is `i`; loops with a higher index than the table holds use a buffer of
/// their own per read.
final class LoopEventBuffers: @unchecked Sendable {
    static let slotCount = 64
    private let slots: UnsafeMutablePointer<[ConnectionEvent]>

    init() {
        slots = .allocate(capacity: Self.slotCount)
        slots.initialize(repeating: [], count: Self.slotCount)
    }

    deinit {
        slots.deinitialize(count: Self.slotCount)
        slots.deallocate()
    }

    /// Takes the loop's buffer (empty; a nested use while it is out gets a fresh one).
    func take(on loop: EventLoop) -> [ConnectionEvent] {
        guard loop.index >= 0, loop.index < Self.slotCount else { return [] }
        var taken: [ConnectionEvent] = []
        swap(&taken, &slots[loop.index])
        return taken
    }

    /// Gives the buffer back, emptied, keeping its storage (a large one is dropped).
    func put(_ events: inout [ConnectionEvent], on loop: EventLoop) {
        guard loop.index >= 0, loop.index < Self.slotCount, events.capacity <= 1 << 12 else { return }
        events.removeAll(keepingCapacity: true)
        swap(&events, &slots[loop.index])
    }
}
