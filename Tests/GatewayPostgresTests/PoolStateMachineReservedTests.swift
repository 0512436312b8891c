@testable import GatewayPostgres
import Testing

/// The reserved connection (the node heartbeat's): its own queue and connection, never the pool's.
@Suite("PoolStateMachine reserved connection")
struct PoolStateMachineReservedTests {
    typealias Machine = PoolStateMachine<String, String>
    let later = ContinuousClock.now + .seconds(30)

    /// A pool of `maximum` connections, each pinned by a transaction, with `queued` statements
    /// waiting behind them: saturated.
    func saturatedPool(maximum: Int = 2, queued: Int = 5) -> Machine {
        var machine = Machine(maximumConnections: maximum, pipelineDepth: 2)
        for index in 0..<maximum { machine.enqueueAcquirer("tx\(index)", deadline: later) }
        // The pool opens a connection per dispatch while transactions wait; each pins one.
        var pinned = 0
        for _ in 0..<(2 * maximum + 2) where pinned < maximum {
            let actions = machine.dispatch(mayOpen: true)
            pinned += actions.pin.count
            for id in actions.open { machine.connectionReady(id) }
        }
        #expect(pinned == maximum)
        for index in 0..<queued { machine.enqueue("s\(index)", deadline: later) }
        #expect(machine.dispatch(mayOpen: true).send.isEmpty)
        return machine
    }

    @Test func reservedStatementsRunWhileThePoolIsSaturated() {
        var machine = saturatedPool()
        machine.enqueueReserved("heartbeat", deadline: later)
        let opening = machine.dispatch(mayOpen: true)
        #expect(opening.open.count == 1, "the reserved connection opens beside the full pool")
        #expect(opening.send.isEmpty)
        machine.connectionReady(opening.open[0])
        let sending = machine.dispatch(mayOpen: true)
        #expect(sending.send.map(\.0) == ["heartbeat"])
        #expect(sending.send.map(\.1) == opening.open)
        #expect(machine.waitingRequests == 5, "pool statements still wait for the pool")
        #expect(machine.waitingReservedRequests == 0)
    }

    @Test func poolWorkNeverUsesTheReservedConnection() {
        var machine = Machine(maximumConnections: 1, pipelineDepth: 4)
        machine.enqueueReserved("heartbeat", deadline: later)
        let reserved = machine.dispatch(mayOpen: true).open
        #expect(reserved.count == 1)
        machine.connectionReady(reserved[0])
        _ = machine.dispatch(mayOpen: true)
        machine.finished(1, on: reserved[0])
        // The reserved connection is idle, yet pool work opens a pool connection of its own.
        machine.enqueue("s", deadline: later)
        machine.enqueueAcquirer("tx", deadline: later)
        let actions = machine.dispatch(mayOpen: true)
        #expect(actions.send.isEmpty)
        #expect(actions.pin.isEmpty)
        #expect(actions.open.count == 1)
        #expect(actions.open != reserved)
        #expect(machine.connections.count == 2, "the reserved connection does not count against the pool's maximum")
    }

    @Test func aFailedReservedConnectFailsOnlyReservedWork() {
        var machine = Machine(maximumConnections: 2, pipelineDepth: 2)
        machine.enqueueReserved("heartbeat", deadline: later)
        let reserved = machine.dispatch(mayOpen: true).open[0]
        machine.enqueue("s", deadline: later)
        let pool = machine.dispatch(mayOpen: true).open
        #expect(pool.count == 1)
        let failed = machine.connectFailed(reserved, error: StoreError(.connectionFailed, "no server"))
        #expect(failed.failedRequests == ["heartbeat"])
        #expect(machine.waitingRequests == 1, "the pool's statement waits for its own connection")
        machine.enqueueReserved("heartbeat 2", deadline: later)
        #expect(machine.dispatch(mayOpen: true).open.count == 1, "the next reserved statement tries again")
    }

    @Test func waitingReservedWorkExpiresAndFailsOnClose() {
        var machine = Machine(maximumConnections: 2, pipelineDepth: 2)
        let soon = ContinuousClock.now
        machine.enqueueReserved("old", deadline: soon)
        machine.enqueueReserved("new", deadline: later)
        #expect(machine.earliestDeadline == soon)
        let expired = machine.expire(now: soon + .milliseconds(1), error: StoreError(.timeout, "waited too long"))
        #expect(expired.failedRequests == ["old"])
        let closed = machine.close(error: StoreError(.closed, "shutting down"))
        #expect(closed.failedRequests == ["new"])
        #expect(machine.waitingReservedRequests == 0)
    }
}
