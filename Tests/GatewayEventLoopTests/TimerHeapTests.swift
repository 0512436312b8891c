@testable import GatewayEventLoop
import Testing

@Suite("Timer heap")
struct TimerHeapTests {
    @Test("entries pop in deadline order, equal deadlines in insertion order, only when due")
    func order() throws {
        var heap = TimerHeap()
        var generator = SystemRandomNumberGenerator()
        // Each entry's task is known by identity, so the order of equal deadlines is visible.
        var indexOfTask: [ObjectIdentifier: Int] = [:]
        var expected: [(deadline: UInt64, index: Int)] = []
        for index in 0..<2_000 {
            // 500 deadlines for 2,000 entries: ties on almost every deadline.
            let deadline = UInt64.random(in: 1...500, using: &generator)
            let task = ScheduledTask { }
            indexOfTask[ObjectIdentifier(task)] = index
            heap.push(deadline: deadline, .task(task))
            expected.append((deadline, index))
        }
        expected.sort { $0.deadline < $1.deadline || ($0.deadline == $1.deadline && $0.index < $1.index) }
        #expect(heap.popDue(now: 0) == nil)

        var popped: [(deadline: UInt64, index: Int)] = []
        func pop(now: UInt64) throws {
            while let entry = heap.popDue(now: now) {
                guard case .task(let task) = entry.action else {
                    Issue.record("a deadline target came out of a heap of tasks")
                    continue
                }
                popped.append((entry.deadline, try #require(indexOfTask[ObjectIdentifier(task)])))
            }
        }
        try pop(now: 250)
        let due = expected.filter { $0.deadline <= 250 }
        #expect(popped.map(\.deadline) == due.map(\.deadline))
        #expect(popped.map(\.index) == due.map(\.index))
        #expect(heap.earliestDeadline.map { $0 > 250 } ?? true)
        try pop(now: .max)
        #expect(popped.map(\.deadline) == expected.map(\.deadline))
        #expect(popped.map(\.index) == expected.map(\.index))
        #expect(heap.count == 0)
    }

    @Test("a pass over due entries leaves those pushed after it started for the next pass")
    func pushedDuringAPass() throws {
        var heap = TimerHeap()
        heap.push(deadline: 10, .task(ScheduledTask { }))
        heap.push(deadline: 20, .task(ScheduledTask { }))
        let mark = heap.lastSequence
        // Pushed during the pass with a deadline already due, earlier than the second entry's.
        heap.push(deadline: 5, .task(ScheduledTask { }))
        #expect(heap.popDue(now: 30, pushedBy: mark) == nil, "the newest entry is the earliest, and it waits")
        #expect(heap.popDue(now: 30)?.deadline == 5)
        #expect(heap.popDue(now: 30, pushedBy: mark)?.deadline == 10)
        #expect(heap.popDue(now: 30, pushedBy: mark)?.deadline == 20)
        #expect(heap.count == 0)
    }
}
