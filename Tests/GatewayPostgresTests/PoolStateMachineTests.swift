@testable import GatewayPostgres
import Testing

/// The pool's decisions, driven without any I/O.
@Suite("PoolStateMachine")
struct PoolStateMachineTests {
    typealias Machine = PoolStateMachine<String, String>
    let later = ContinuousClock.now + .seconds(30)
    let failure = StoreError(.connectionFailed, "no server")

    /// A machine with `ready` connections already open and idle.
    func machine(maximum: Int = 4, depth: Int = 2, ready: Int = 0) -> (Machine, [ConnectionID]) {
        var machine = Machine(maximumConnections: maximum, pipelineDepth: depth)
        var ids: [ConnectionID] = []
        var sent: [ConnectionID] = []
        // Statements left in flight make the pool open the next connection.
        for _ in 0..<100 where ids.count < ready {
            machine.enqueue("warm", deadline: later)
            let actions = machine.dispatch(mayOpen: true)
            sent += actions.send.map(\.1)
            for id in actions.open { machine.connectionReady(id); ids.append(id) }
        }
        sent += machine.dispatch(mayOpen: false).send.map(\.1)
        for id in sent { machine.finished(1, on: id) }
        precondition(ids.count == ready && machine.waitingRequests == 0)
        return (machine, ids)
    }

    @Test func firstStatementOpensAConnectionAndWaits() {
        var machine = Machine(maximumConnections: 4, pipelineDepth: 2)
        machine.enqueue("a", deadline: later)
        let actions = machine.dispatch(mayOpen: true)
        #expect(actions.open.count == 1)
        #expect(actions.send.isEmpty)
        #expect(machine.waitingRequests == 1)
        machine.connectionReady(actions.open[0])
        let next = machine.dispatch(mayOpen: true)
        #expect(next.send.map(\.0) == ["a"])
        #expect(next.send.map(\.1) == actions.open)
        #expect(machine.waitingRequests == 0)
    }

    @Test func statisticsCountIdleBusyAndPinnedConnectionsAndTheWaiters() {
        var (machine, ids) = machine(maximum: 2, ready: 2)
        #expect(machine.statistics == PoolStatistics(idle: 2, inUse: 0, waiting: 0, maximumConnections: 2))
        machine.enqueueAcquirer("tx", deadline: later)
        machine.enqueue("a", deadline: later)
        let actions = machine.dispatch(mayOpen: false)
        #expect(actions.pin.count == 1 && actions.send.count == 1)
        // One connection pinned by the transaction, the other running "a".
        #expect(machine.statistics == PoolStatistics(idle: 0, inUse: 2, waiting: 0, maximumConnections: 2))
        machine.enqueueAcquirer("tx2", deadline: later)
        #expect(machine.statistics.waiting == 1)
        let busy = actions.send[0].1
        machine.finished(1, on: busy)
        #expect(machine.statistics == PoolStatistics(idle: 1, inUse: 1, waiting: 1, maximumConnections: 2))
        #expect(machine.dispatch(mayOpen: false).pin.map(\.0) == ["tx2"])
        #expect(machine.statistics == PoolStatistics(idle: 0, inUse: 2, waiting: 0, maximumConnections: 2))
        for id in ids { _ = machine.release(id, clean: true) }
        #expect(machine.statistics == PoolStatistics(idle: 2, inUse: 0, waiting: 0, maximumConnections: 2))
    }

    @Test func callerThreadsDoNotOpenConnections() {
        var machine = Machine(maximumConnections: 4, pipelineDepth: 2)
        machine.enqueue("a", deadline: later)
        let actions = machine.dispatch(mayOpen: false)
        #expect(actions.open.isEmpty)
        #expect(actions.openDeferred)
        #expect(machine.connections.isEmpty)
    }

    @Test func idleConnectionsAreUsedBeforePipelining() {
        var (machine, ids) = machine(ready: 2)
        machine.enqueue("a", deadline: later)
        machine.enqueue("b", deadline: later)
        let actions = machine.dispatch(mayOpen: false)
        #expect(Set(actions.send.map(\.1)) == Set(ids))
    }

    @Test func pipelinesUpToTheDepthThenWaits() {
        var (machine, ids) = machine(maximum: 1, depth: 2, ready: 1)
        for name in ["a", "b", "c"] { machine.enqueue(name, deadline: later) }
        let actions = machine.dispatch(mayOpen: true)
        #expect(actions.send.map(\.0) == ["a", "b"])
        #expect(actions.open.isEmpty, "the pool is at its maximum")
        #expect(machine.waitingRequests == 1)
        machine.finished(1, on: ids[0])
        #expect(machine.dispatch(mayOpen: true).send.map(\.0) == ["c"])
    }

    @Test func busyConnectionsMakeThePoolGrowUpToItsMaximum() {
        var (machine, _) = machine(maximum: 3, depth: 8, ready: 1)
        for index in 0..<10 { machine.enqueue("s\(index)", deadline: later) }
        let actions = machine.dispatch(mayOpen: true)
        #expect(actions.open.count == 2)
        #expect(machine.connections.count == 3)
        #expect(actions.send.count == 8, "pipelined on the ready one meanwhile")
    }

    @Test func transactionsPinAndReleaseConnections() {
        var (machine, ids) = machine(maximum: 1, ready: 1)
        machine.enqueueAcquirer("tx1", deadline: later)
        machine.enqueueAcquirer("tx2", deadline: later)
        machine.enqueue("pool", deadline: later)
        let actions = machine.dispatch(mayOpen: true)
        #expect(actions.pin.map(\.0) == ["tx1"])
        #expect(actions.send.isEmpty, "a pinned connection takes no pool statements")
        #expect(machine.waitingAcquirers == 1)

        let released = machine.release(ids[0], clean: true)
        #expect(released.close.isEmpty)
        let next = machine.dispatch(mayOpen: true)
        #expect(next.pin.map(\.0) == ["tx2"])

        let dirty = machine.release(ids[0], clean: false)
        #expect(dirty.close == ids)
        #expect(machine.connections.isEmpty)
    }

    @Test func hopelessConnectFailsTheWaitingWork() {
        var machine = Machine(maximumConnections: 2, pipelineDepth: 2)
        machine.enqueue("a", deadline: later)
        machine.enqueueAcquirer("tx", deadline: later)
        let opened = machine.dispatch(mayOpen: true).open
        #expect(opened.count == 1)
        let actions = machine.connectFailed(opened[0], error: failure)
        #expect(actions.failedRequests == ["a"])
        #expect(actions.failedAcquirers == ["tx"])
        #expect(actions.failure?.code == .connectionFailed)
        #expect(machine.waitingRequests == 0)
    }

    @Test func failedConnectWaitsWhileAnotherConnectionLives() {
        var (machine, _) = machine(maximum: 3, depth: 1, ready: 1)
        for name in ["a", "b", "c"] { machine.enqueue(name, deadline: later) }
        let actions = machine.dispatch(mayOpen: true)
        #expect(actions.send.map(\.0) == ["a"])
        let failed = machine.connectFailed(actions.open[0], error: failure)
        #expect(failed.failedRequests.isEmpty)
        #expect(machine.waitingRequests == 2)
    }

    /// Attempts still connecting go to the same servers: a failed one fails the waiting work
    /// when no connection is ready, rather than leave it to the next attempt, and the next.
    @Test func failedConnectFailsTheWorkWhenTheOthersAreOnlyConnecting() {
        var machine = Machine(maximumConnections: 3, pipelineDepth: 1)
        for name in ["a", "b", "c"] { machine.enqueue(name, deadline: later) }
        // Three waiting statements: an attempt each, one per dispatch.
        let opened = (0..<3).flatMap { _ in machine.dispatch(mayOpen: true).open }
        #expect(opened.count == 3)
        let failed = machine.connectFailed(opened[0], error: failure)
        #expect(failed.failedRequests == ["a", "b", "c"])
        #expect(machine.waitingRequests == 0)
    }

    @Test func waitingWorkExpires() {
        var machine = Machine(maximumConnections: 1, pipelineDepth: 1)
        let now = ContinuousClock.now
        machine.enqueue("soon", deadline: now + .milliseconds(10))
        machine.enqueue("late", deadline: now + .seconds(60))
        machine.enqueueAcquirer("tx", deadline: now + .milliseconds(5))
        #expect(machine.earliestDeadline == now + .milliseconds(5))
        let actions = machine.expire(now: now + .seconds(1), error: StoreError(.timeout, "waited"))
        #expect(actions.failedRequests == ["soon"])
        #expect(actions.failedAcquirers == ["tx"])
        #expect(actions.failure?.code == .timeout)
        #expect(machine.waitingRequests == 1)
        #expect(machine.earliestDeadline == now + .seconds(60))
    }

    @Test func closingFailsEverythingWaiting() {
        var machine = Machine(maximumConnections: 1, pipelineDepth: 1)
        machine.enqueue("a", deadline: later)
        machine.enqueueAcquirer("tx", deadline: later)
        let actions = machine.close(error: StoreError(.closed, "bye"))
        #expect(actions.failedRequests == ["a"])
        #expect(actions.failedAcquirers == ["tx"])
        #expect(machine.earliestDeadline == nil)
    }

    @Test func brokenConnectionIsForgottenAndReplacedOnDemand() {
        var (machine, ids) = machine(maximum: 1, ready: 1)
        machine.connectionClosed(ids[0])
        machine.enqueue("a", deadline: later)
        let actions = machine.dispatch(mayOpen: true)
        #expect(actions.open.count == 1)
        #expect(actions.open[0] != ids[0])
    }
}
