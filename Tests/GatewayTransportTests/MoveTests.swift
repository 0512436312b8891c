import Foundation
import GatewayTestKit
import GatewayTransport
import Synchronization
import Testing

/// Echoes, and after every read moves its connection to the group's next loop (from a
/// task of the current loop, as ``TLSConnection/move(to:then:)`` asks), counting the moves
/// and any callback that ran off the connection's loop.
///
/// `@unchecked Sendable`: ``held`` and ``movePending`` are touched only on the
/// connection's current loop (a move hands them over with the connection).
final class MovingEchoHandler: ConnectionHandler, @unchecked Sendable {
    let record: ServerRecord
    let loops: LockedBox<[EventLoop]>
    let moves = Atomic<Int>(0)
    let offLoopCallbacks = Atomic<Int>(0)
    /// Holds the echo back and writes it from the move task, right before leaving, so the
    /// bytes queued at the move travel with the connection.
    let writeBeforeMove: Bool
    private var held: [UInt8] = []
    private var movePending = false

    init(record: ServerRecord, loops: LockedBox<[EventLoop]>, writeBeforeMove: Bool) {
        self.record = record
        self.loops = loops
        self.writeBeforeMove = writeBeforeMove
    }

    private func check(_ connection: TLSConnection) {
        if !connection.eventLoop.inEventLoop { offLoopCallbacks.add(1, ordering: .relaxed) }
    }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        check(connection)
        record.update { $0.active.append(info) }
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
        check(connection)
        record.update { $0.received += bytes.count }
        if writeBeforeMove { held.append(contentsOf: bytes) } else { connection.write(bytes) }
        guard !movePending else { return }
        movePending = true
        let current = connection.eventLoop
        current.execute { [self] in
            if !held.isEmpty { connection.write(held) }
            held = []
            movePending = false
            let loops = self.loops.withLock { $0 }
            guard let index = loops.firstIndex(where: { $0 === current }) else { return }
            let target = loops[(index + 1) % loops.count]
            let moved = connection.move(to: target) { [self] in
                if !target.inEventLoop { offLoopCallbacks.add(1, ordering: .relaxed) }
            }
            if moved { moves.add(1, ordering: .relaxed) }
        }
    }

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {
        check(connection)
        record.update { $0.closed.append(reason) }
    }
}

/// A value behind a lock, shareable between the test and handlers on loop threads.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

@Suite("Moving a connection to another loop")
struct MoveTests {
    /// A server whose connections move after every read.
    struct MovingServer {
        let server: TestServer
        let handlers: LockedBox<[MovingEchoHandler]>

        init(writeBeforeMove: Bool, configure: (inout TLSServerConfiguration) -> Void = { _ in }) throws {
            let loops = LockedBox<[EventLoop]>([])
            let handlers = LockedBox<[MovingEchoHandler]>([])
            server = try TestServer(configure: configure) { record in
                let handler = MovingEchoHandler(record: record, loops: loops, writeBeforeMove: writeBeforeMove)
                handlers.withLock { $0.append(handler) }
                return handler
            }
            let groupLoops = server.group.loops
            loops.withLock { $0 = groupLoops }
            self.handlers = handlers
        }

        var moves: Int { handlers.withLock { $0.reduce(0) { $0 + $1.moves.load(ordering: .relaxed) } } }
        var offLoopCallbacks: Int { handlers.withLock { $0.reduce(0) { $0 + $1.offLoopCallbacks.load(ordering: .relaxed) } } }
    }

    @Test("a stream echoed while its connection moves after every read arrives whole and in order", arguments: [false, true])
    func streamSurvivesMoves(writeBeforeMove: Bool) async throws {
        let moving = try MovingServer(writeBeforeMove: writeBeforeMove)
        let port = moving.server.port
        let caPath = TestCertificates.shared.caPath
        // The comparison runs on the client's thread too: megabytes compared byte by byte in a
        // debug build take seconds, which on the cooperative pool every other test would wait for.
        let (sentCount, echoedCount, failedWrites, firstDifference) = try await onOwnThread { () throws -> (Int, Int, Int, Int?) in
            let client = try BlockingTLSClient(port: port, caPath: caPath)
            var sent: [UInt8] = []
            var echoed: [UInt8] = []
            var failedWrites = 0
            for round in 0..<400 {
                // Sizes from 1 byte to a few records, so reads and moves interleave differently.
                let size = 1 + (round * 7919) % 40_000
                let message = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ round) }
                if !client.write(message) { failedWrites += 1 }
                sent += message
                while echoed.count < sent.count {
                    guard let bytes = client.read(upTo: 65_536), !bytes.isEmpty else { break }
                    echoed += bytes
                }
            }
            // Compared by hand: a diff of two megabyte arrays would take the test runner minutes.
            let firstDifference = (0..<min(echoed.count, sent.count)).first { echoed[$0] != sent[$0] }
            return (sent.count, echoed.count, failedWrites, firstDifference)
        }
        #expect(failedWrites == 0)
        #expect(echoedCount == sentCount && firstDifference == nil, "echoed \(echoedCount) of \(sentCount) bytes; first difference at \(firstDifference.map(String.init) ?? "none")")
        #expect(moving.moves >= 400)
        #expect(moving.offLoopCallbacks == 0)
        await moving.server.stop()
    }

    @Test("a moved connection keeps its idle deadline")
    func idleDeadlineFollows() async throws {
        let moving = try MovingServer(writeBeforeMove: false, configure: { $0.limits.idleTimeout = .milliseconds(300) })
        let port = moving.server.port
        let caPath = TestCertificates.shared.caPath
        let (client, echoed) = try await onOwnThread { () throws -> (BlockingTLSClient, [UInt8]?) in
            let client = try BlockingTLSClient(port: port, caPath: caPath)
            return (client, client.write([1, 2, 3]) ? client.read(upTo: 16) : nil)
        }
        #expect(echoed == [1, 2, 3])
        #expect(await eventually { moving.moves == 1 })
        #expect(await eventually(timeout: .seconds(3)) { moving.server.record.snapshot.closed == [.idleTimeout] })
        #expect(moving.offLoopCallbacks == 0)
        withExtendedLifetime(client) {}
        await moving.server.stop()
    }

    @Test("a closed connection, or one asked to move to its own loop, stays where it is")
    func refusedMoves() async throws {
        let captured = LockedBox<TLSConnection?>(nil)
        let server = try TestServer(handler: { record in CapturingEchoHandler(record: record, captured: captured) })
        let port = server.port
        let caPath = TestCertificates.shared.caPath
        let (client, echoed) = try await onOwnThread { () throws -> (BlockingTLSClient, [UInt8]?) in
            let client = try BlockingTLSClient(port: port, caPath: caPath)
            return (client, client.write([7]) ? client.read(upTo: 16) : nil)
        }
        #expect(echoed == [7])
        let connection = try #require(captured.withLock { $0 })
        let home = connection.eventLoop
        let other = server.group.loops.first { $0 !== home }!
        let sameLoop = await withCheckedContinuation { continuation in
            home.execute { continuation.resume(returning: connection.move(to: home) {}) }
        }
        #expect(!sameLoop)
        client.abort()
        #expect(await eventually { !server.record.snapshot.closed.isEmpty })
        let afterClose = await withCheckedContinuation { continuation in
            home.execute { continuation.resume(returning: connection.move(to: other) {}) }
        }
        #expect(!afterClose)
        #expect(connection.eventLoop === home)
        await server.stop()
    }
}

/// ``EchoHandler`` that also hands its connection to the test.
final class CapturingEchoHandler: ConnectionHandler {
    let echo: EchoHandler
    let captured: LockedBox<TLSConnection?>
    init(record: ServerRecord, captured: LockedBox<TLSConnection?>) {
        echo = EchoHandler(record: record)
        self.captured = captured
    }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        captured.withLock { $0 = connection }
        echo.connectionActive(connection, info: info)
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) { echo.bytesReceived(bytes, on: connection) }
    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) { echo.connectionClosed(reason, on: connection) }
}
