import CGatewayOpenSSL
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

    @Test("half a record in OpenSSL's read buffer: the release is refused and retried; once the record is whole it goes")
    func partialRecordDefersTheRelease() async throws {
        let handler = WatchedEchoHandler()
        let server = try Self.server(releaseAfter: Self.threshold, handler: handler)
        let port = server.port
        let client = try await onOwnThread { try BlockingTLSClient(port: port, caPath: TestCertificates.shared.caPath) }
        #expect(await onOwnThread { client.write([1, 2, 3]) ? client.read(upTo: 3) : nil } == [1, 2, 3])
        let payload = (0..<100).map { UInt8($0) }
        let sealed = try #require(await onOwnThread { client.sealWithoutSending(payload) })
        #expect(sealed.count > payload.count)
        #expect(await onOwnThread { client.sendRaw(sealed[..<10]) })

        // Once the server has read the first 10 bytes, SSL_free_buffers refuses (data pending).
        #expect(await eventually {
            await server.server.sweepIdleBuffers(asIfQuietFor: Self.threshold + .seconds(1))
            return server.server.buffersReleaseDeferredCount >= 1
        })
        #expect(await handler.released() == false)
        let releasedBefore = server.server.buffersReleasedCount

        // The rest of the record: read, echoed, and the next pass releases.
        #expect(await onOwnThread { client.sendRaw(sealed[10...]) ? client.read(upTo: 100) : nil } == payload)
        await server.server.sweepIdleBuffers(asIfQuietFor: Self.threshold + .seconds(1))
        #expect(server.server.buffersReleasedCount == releasedBefore + 1)
        #expect(await handler.released() == true)
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

extension BlockingTLSClient {
    /// Encrypts `bytes` as a TLS record without sending it: written into a memory BIO in place
    /// of the socket, which is put back after. The record goes out with ``sendRaw(_:)``.
    func sealWithoutSending(_ bytes: [UInt8]) -> [UInt8]? {
        guard let ssl, let socketBIO = SSL_get_wbio(ssl), let memory = BIO_new(BIO_s_mem()) else { return nil }
        BIO_up_ref(socketBIO)
        SSL_set0_wbio(ssl, memory)
        defer { SSL_set0_wbio(ssl, socketBIO) }
        guard SSL_write(ssl, bytes, Int32(bytes.count)) == Int32(bytes.count) else { return nil }
        var sealed = [UInt8](repeating: 0, count: bytes.count + 1_024)
        let count = BIO_read(memory, &sealed, Int32(sealed.count))
        return count > 0 ? Array(sealed.prefix(Int(count))) : nil
    }

    /// Sends bytes on the socket as they are (no TLS).
    func sendRaw(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) == $0.count }
    }
}
