import CGatewayLinux
import Foundation
import GatewayCore
import GatewayEventLoop
import GatewayTestKit
import Glibc
import Synchronization
import Testing

@Suite("Event loop registrations: churn while events fire, reused descriptor numbers")
struct EventLoopRegistrationChurnTests {
    @Test("300 sockets written by a thread while the loop drops and re-adds them at random: every byte arrives in order, only while registered")
    func churnWhileEventsFire() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let pairs = try (0..<300).map { _ in try SocketPair() }
        let rounds = 60
        let board = ChurnBoard(loop: loop, fds: pairs.map(\.watched), bytesEach: rounds)
        // A byte in every socket before they are registered: the first wait reports all 300
        // at once, more than the loop's 256 events per epoll_wait.
        for pair in pairs { pair.send([0]) }
        #expect(await loop.submit { board.registerAll() })

        let writing = Locked(true)
        loop.execute { board.churn(while: writing) }
        await onOwnThread("test-churn-writer") {
            for round in 1..<rounds {
                for pair in pairs { pair.send([UInt8(round % 251)]) }
            }
            writing.withLock { $0 = false }
        }
        // The churn ends by registering every socket again; then the rest of the bytes come in.
        #expect(await board.churnEnded.wait(atMost: outcomeDeadline))
        let allReceived = await board.allReceived.wait(atMost: outcomeDeadline)
        let missing = await loop.submit { board.missing }
        #expect(allReceived, "\(missing) bytes never arrived")
        let report = await loop.submit { board.report }
        #expect(report.callsWhileDeregistered == 0, "a handler was called after its registration was removed")
        #expect(report.outOfOrder == 0)
        #expect(report.removals > 400, "too little churn to prove anything: \(report.removals) removals")
        #expect(report.removalsInsideHandlers > 0)
        #expect(await loop.submit { loop.registeredObjects().count } == pairs.count)
        await loop.submit { for fd in board.fds { loop.deregister(fd: fd) } }
        await group.shutdown()
    }

    @Test("a handler that moves another socket onto a ready descriptor's number: the stale event reaches neither")
    func reusedNumberInOneBatch() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let a = try makeRawSocketPair()
        let b = try makeRawSocketPair()
        let c = try makeRawSocketPair()
        let swap = SwapBoard(loop: loop, a: a.watched, b: b.watched, replacement: c.watched)
        #expect(await loop.submit { swap.registerBoth() })

        // Hold the loop, make both readable, release: one epoll_wait reports both.
        let holding = Latch()
        let gate = DispatchSemaphore(value: 0)
        loop.execute {
            holding.set()
            gate.wait()
        }
        #expect(await holding.wait(atMost: outcomeDeadline))
        writeAll(a.peer, [1])
        writeAll(b.peer, [2])
        gate.signal()
        await loop.submit {}

        let after = await loop.submit { swap.snapshot }
        // The first handler called moved the replacement onto the other's number; the other's
        // event of the same batch carries the old registration and is dropped.
        #expect(after.moved)
        #expect(after.calls.a + after.calls.b == 1, "calls: \(after.calls)")
        #expect(after.calls.replacement == 0, "the replacement heard an event of the socket it replaced")

        // The replacement hears its own bytes under the reused number.
        writeAll(c.peer, [3])
        #expect(await swap.replacementRead.wait(atMost: outcomeDeadline))
        let final = await loop.submit { swap.snapshot }
        #expect(final.replacementBytes == [3])
        #expect(final.calls.a + final.calls.b == 1)

        await loop.submit { swap.deregisterAll() }
        for fd in [a.watched, a.peer, b.watched, b.peer, c.peer] { close(fd) }
        await group.shutdown()
    }
}

/// The loop-thread side of the churn test: which sockets are registered, what each handler
/// read, and the violations seen. `@unchecked Sendable`: every `var` is touched on the loop
/// thread only (through ``EventLoop/execute(_:)`` and the handlers); ``allReceived`` is a latch.
final class ChurnBoard: @unchecked Sendable {
    struct Report: Sendable {
        var callsWhileDeregistered = 0
        var outOfOrder = 0
        var removals = 0
        var removalsInsideHandlers = 0
    }

    let loop: EventLoop
    let fds: [Int32]
    let bytesEach: Int
    let allReceived = Latch()
    /// Set when the churn stopped with every socket registered again.
    let churnEnded = Latch()
    private(set) var report = Report()
    private var handlers: [ChurnHandler] = []
    private var registrations: [EventLoopRegistration?]
    private var received: [Int]
    private var generator = SplitMix64(seed: 0xC4_0A_75)
    private var churning = true
    private var rounds = 0
    static let minimumRounds = 200

    init(loop: EventLoop, fds: [Int32], bytesEach: Int) {
        self.loop = loop
        self.fds = fds
        self.bytesEach = bytesEach
        registrations = Array(repeating: nil, count: fds.count)
        received = Array(repeating: 0, count: fds.count)
        handlers = fds.indices.map { ChurnHandler(index: $0) }
        for handler in handlers { handler.board = self }
    }

    var missing: Int { fds.count * bytesEach - received.reduce(0, +) }

    func registerAll() -> Bool {
        for index in fds.indices where registrations[index] == nil {
            guard let registration = loop.register(fd: fds[index], events: RG_EPOLLIN, handlers[index]) else { return false }
            registrations[index] = registration
        }
        return true
    }

    /// Removes one socket, by registration or by number (both forms the loop offers).
    private func remove(_ index: Int, insideHandler: Bool) {
        guard let registration = registrations[index] else { return }
        if Bool.random(using: &generator) { loop.deregister(registration) } else { loop.deregister(fd: fds[index]) }
        registrations[index] = nil
        report.removals += 1
        if insideHandler { report.removalsInsideHandlers += 1 }
    }

    /// One round of churn each tick while `writing` holds (and for at least ``minimumRounds``):
    /// a few sockets dropped, a few added back. Then every socket is registered again and the
    /// churn stops, in the handlers too.
    func churn(while writing: Locked<Bool>) {
        rounds += 1
        guard rounds < Self.minimumRounds || writing.withLock({ $0 }) else {
            churning = false
            if registerAll() { churnEnded.set() }
            return
        }
        for _ in 0..<8 { remove(Int.random(in: fds.indices, using: &generator), insideHandler: false) }
        for _ in 0..<8 {
            let index = Int.random(in: fds.indices, using: &generator)
            if registrations[index] == nil {
                registrations[index] = loop.register(fd: fds[index], events: RG_EPOLLIN, handlers[index])
            }
        }
        loop.execute { [self] in churn(while: writing) }
    }

    func handle(_ index: Int) {
        if registrations[index] == nil { report.callsWhileDeregistered += 1 }
        for byte in readAvailable(fds[index]) {
            if Int(byte) != received[index] % 251 { report.outOfOrder += 1 }
            received[index] += 1
        }
        // Now and then a handler drops another socket, whose event may wait later in this batch.
        if churning, Int.random(in: 0..<16, using: &generator) == 0 {
            remove(Int.random(in: fds.indices, using: &generator), insideHandler: true)
        }
        if missing == 0 { allReceived.set() }
    }
}

/// One socket's handler in the churn test.
final class ChurnHandler: EventLoopSelectable, @unchecked Sendable {
    let index: Int
    /// Set once, before the handler is registered.
    weak var board: ChurnBoard?

    init(index: Int) { self.index = index }

    func handleEvents(_ events: UInt32) { board?.handle(index) }
}

/// The loop-thread side of the reused-number test: two sockets whose handlers, the first time
/// either is called, drop the other and `dup2` a third socket onto the other's number.
/// `@unchecked Sendable`: every `var` is touched on the loop thread only.
final class SwapBoard: @unchecked Sendable {
    struct Snapshot: Sendable {
        var moved: Bool
        var calls: (a: Int, b: Int, replacement: Int)
        var replacementBytes: [UInt8]
    }

    let loop: EventLoop
    let a: Int32
    let b: Int32
    /// Closed once moved onto the other number.
    let replacement: Int32
    let replacementRead = Latch()
    private var moved = false
    private var calls = (a: 0, b: 0, replacement: 0)
    private var replacementBytes: [UInt8] = []
    private var handlers: [CallbackHandler] = []

    init(loop: EventLoop, a: Int32, b: Int32, replacement: Int32) {
        self.loop = loop
        self.a = a
        self.b = b
        self.replacement = replacement
    }

    var snapshot: Snapshot { Snapshot(moved: moved, calls: calls, replacementBytes: replacementBytes) }

    func registerBoth() -> Bool {
        let handlerA = CallbackHandler { [self] in called(a, other: b) }
        let handlerB = CallbackHandler { [self] in called(b, other: a) }
        handlers = [handlerA, handlerB]
        return loop.register(fd: a, events: RG_EPOLLIN, handlerA) != nil && loop.register(fd: b, events: RG_EPOLLIN, handlerB) != nil
    }

    private func called(_ fd: Int32, other: Int32) {
        if fd == a { calls.a += 1 } else { calls.b += 1 }
        _ = readAvailable(fd)
        guard !moved else { return }
        moved = true
        loop.deregister(fd: other)
        // `other` now names the replacement socket (the old one is closed by dup2).
        guard dup2(replacement, other) == other else { return }
        close(replacement)
        let handler = CallbackHandler { [self] in
            calls.replacement += 1
            replacementBytes += readAvailable(other)
            if !replacementBytes.isEmpty { replacementRead.set() }
        }
        handlers.append(handler)
        _ = loop.register(fd: other, events: RG_EPOLLIN, handler)
    }

    /// Removes what is registered (the test closes the numbers: one of them now names the
    /// replacement socket).
    func deregisterAll() {
        for fd in [a, b] { loop.deregister(fd: fd) }
    }
}
