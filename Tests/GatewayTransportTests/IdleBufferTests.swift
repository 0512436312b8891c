import Foundation
import GatewayTestKit
import GatewayTransport
import Synchronization
import Testing

/// Echoes, keeps its connection for the test to look at on the loop, and counts the
/// transport's ``ConnectionHandler/buffersReleased(on:)`` calls.
private final class WatchedEchoHandler: ConnectionHandler, Sendable {
    let connection = Mutex<TLSConnection?>(nil)
    let releases = Atomic<Int>(0)

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) { self.connection.withLock { $0 = connection } }
    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) { connection.write(bytes) }
    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {}
    func buffersReleased(on connection: TLSConnection) { releases.add(1, ordering: .relaxed) }

    /// Whether the server side's buffers are released now, read on its loop.
    func released() async -> Bool? {
        guard let connection = connection.withLock({ $0 }) else { return nil }
        return await withCheckedContinuation { done in
            connection.eventLoop.execute { done.resume(returning: connection.recordBuffersReleased) }
        }
    }

    /// Writes `bytes` to the peer from the server side, on its loop.
    func push(_ bytes: [UInt8]) {
        guard let connection = connection.withLock({ $0 }) else { return }
        connection.eventLoop.execute { connection.write(bytes) }
    }
}

/// The idle clock is driven by ``TLSServer/sweepIdleBuffers(asIfQuietFor:)`` with a threshold of
/// an hour, so the sweep's own timer never runs during a test and nothing depends on timing.
@Suite("Idle connections release their buffers")
struct IdleBufferTests {
    static let threshold = Duration.seconds(3600)

    private static func server(releaseAfter: Duration?, handler: WatchedEchoHandler) throws -> TestServer {
        try TestServer(loops: 1, configure: { $0.limits.releaseBuffersAfter = releaseAfter }, handler: { _ in handler })
    }

    @Test("quiet past the threshold: released, then the next record works both ways, and it is released again")
    func releasedAndTakenAgain() async throws {
        let handler = WatchedEchoHandler()
        let server = try Self.server(releaseAfter: Self.threshold, handler: handler)
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try TestCertificates.shared.clientContext(), on: server.group.next()
        )
        var inbound = client.inbound.makeAsyncIterator()
        var carry: [UInt8] = []
        client.write(Array("one".utf8))
        #expect(try await AsyncTLSConnection.read(exactly: 3, from: &inbound, carry: &carry) == Array("one".utf8))

        // Not quiet long enough: kept.
        await server.server.sweepIdleBuffers(asIfQuietFor: Self.threshold - .seconds(60))
        #expect(server.server.buffersReleasedCount == 0)
        #expect(await handler.released() == false)

        await server.server.sweepIdleBuffers(asIfQuietFor: Self.threshold + .seconds(1))
        #expect(server.server.buffersReleasedCount == 1)
        #expect(handler.releases.load(ordering: .relaxed) == 1)
        #expect(await handler.released() == true)

        // The client's record is read into buffers taken again, and the answer goes out.
        client.write(Array("two".utf8))
        #expect(try await AsyncTLSConnection.read(exactly: 3, from: &inbound, carry: &carry) == Array("two".utf8))
        #expect(await handler.released() == false)

        // Quiet again: released again; then the server writes first.
        await server.server.sweepIdleBuffers(asIfQuietFor: Self.threshold + .seconds(1))
        #expect(server.server.buffersReleasedCount == 2)
        #expect(await handler.released() == true)
        handler.push(Array("push".utf8))
        #expect(try await AsyncTLSConnection.read(exactly: 4, from: &inbound, carry: &carry) == Array("push".utf8))
        #expect(await handler.released() == false)

        // A record larger than one TLS record each way after a third release.
        await server.server.sweepIdleBuffers(asIfQuietFor: Self.threshold + .seconds(1))
        #expect(server.server.buffersReleasedCount == 3)
        let large = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        client.write(large)
        #expect(try await AsyncTLSConnection.read(exactly: large.count, from: &inbound, carry: &carry) == large)
        #expect(server.server.buffersReleaseDeferredCount == 0)
        #expect(handler.releases.load(ordering: .relaxed) == 3)
        client.close()
        await server.stop()
    }

    @Test("with the release off, a quiet connection keeps its buffers")
    func keptWhenOff() async throws {
        let handler = WatchedEchoHandler()
        let server = try Self.server(releaseAfter: nil, handler: handler)
        let client = try await AsyncTLSConnection.connect(
            host: "127.0.0.1", port: server.port, context: try TestCertificates.shared.clientContext(), on: server.group.next()
        )
        #expect(try await client.roundTrip(Array("one".utf8)) == Array("one".utf8))
        await server.server.sweepIdleBuffers(asIfQuietFor: .seconds(365 * 86_400))
        #expect(server.server.buffersReleasedCount == 0)
        #expect(handler.releases.load(ordering: .relaxed) == 0)
        #expect(await handler.released() == false)
        client.close()
        await server.stop()
    }
}
