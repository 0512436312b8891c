@testable import GatewayEventLoop
import Testing

@Suite("Timer heap")
struct TimerHeapTests {
    @Test("entries pop in deadline order, equal deadlines in insertion order, only when due")
    func order() {
        var heap = TimerHeap()
        var generator = SystemRandomNumberGenerator()
        var expected: [(UInt64, Int)] = []
        for index in 0..<2_000 {
            let deadline = UInt64.random(in: 1...500, using: &generator)
            let task = ScheduledTask { }
            heap.push(deadline: deadline, .task(task))
            expected.append((deadline, index))
        }
        expected.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
        #expect(heap.popDue(now: 0) == nil)
        var popped: [UInt64] = []
        while let entry = heap.popDue(now: 250) { popped.append(entry.deadline) }
        #expect(popped == expected.map(\.0).filter { $0 <= 250 })
        #expect(heap.earliestDeadline.map { $0 > 250 } ?? true)
        while let entry = heap.popDue(now: .max) { popped.append(entry.deadline) }
        #expect(popped == expected.map(\.0))
        #expect(heap.count == 0)
    }
}
