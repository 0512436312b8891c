import GatewayCore
import GatewayTransport
import Foundation
import Synchronization

/// What a server saw, across all its connections; written on loop threads, read by tests.
final class ServerRecord: Sendable {
    struct Snapshot {
        var active: [ConnectionInfo] = []
        var closed: [CloseReason] = []
        var received = 0
        var writabilityChanges: [Bool] = []
        var maxBuffered = 0
    }
    private let state = Mutex(Snapshot())

    func update(_ body: (inout Snapshot) -> Void) { state.withLock { body(&$0) } }
    var snapshot: Snapshot { state.withLock { $0 } }
}

/// Echoes every byte back (unless `echoes` is false: then it answers nothing) and records
/// events into a ``ServerRecord``.
final class EchoHandler: ConnectionHandler {
    let record: ServerRecord
    let echoes: Bool
    init(record: ServerRecord, echoes: Bool = true) {
        self.record = record
        self.echoes = echoes
    }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        record.update { $0.active.append(info) }
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {
        record.update { $0.received += bytes.count }
        guard echoes else { return }
        connection.write(bytes)
        let buffered = connection.bufferedBytes
        record.update { $0.maxBuffered = max($0.maxBuffered, buffered) }
    }

    func writabilityChanged(_ isWritable: Bool, on connection: TLSConnection) {
        record.update { $0.writabilityChanges.append(isWritable) }
    }

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {
        record.update { $0.closed.append(reason) }
    }
}

/// Writes `chunk`-sized blocks whenever writable (a flood), recording the largest buffer seen.
///
/// `@unchecked Sendable`: used only on its connection's loop (the re-flush hops onto that loop).
final class FloodHandler: ConnectionHandler, @unchecked Sendable {
    let record: ServerRecord
    let chunk = [UInt8](repeating: 0x5a, count: 32 * 1024)
    init(record: ServerRecord) { self.record = record }

    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {
        record.update { $0.active.append(info) }
        flood(connection)
    }

    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) {}

    func writabilityChanged(_ isWritable: Bool, on connection: TLSConnection) {
        record.update { $0.writabilityChanges.append(isWritable) }
        if isWritable { flood(connection) }
    }

    private func flood(_ connection: TLSConnection) {
        // Bounded: at most 64 chunks per call; stops as soon as the connection turns unwritable.
        for _ in 0..<64 where connection.isWritable {
            guard connection.write(chunk) else { break }
            let buffered = connection.bufferedBytes
            record.update { $0.maxBuffered = max($0.maxBuffered, buffered) }
        }
        if connection.isWritable {
            connection.eventLoop.execute { [self] in self.flood(connection) }
        }
    }

    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {
        record.update { $0.closed.append(reason) }
    }
}

/// A server on 127.0.0.1 with its own two-loop group, torn down by ``stop()``.
struct TestServer {
    let group: EventLoopGroup
    let server: TLSServer
    let port: Int
    let record: ServerRecord

    init(
        loops: Int = 2,
        configure: (inout TLSServerConfiguration) -> Void = { _ in },
        handler: @escaping @Sendable (ServerRecord) -> any ConnectionHandler = { EchoHandler(record: $0) }
    ) throws {
        let certificates = TestCertificates.shared
        var configuration = TLSServerConfiguration(host: "127.0.0.1", port: 0, certificates: [certificates.serverECDSA])
        configure(&configuration)
        if ProcessInfo.processInfo.environment["TRANSPORT_TRACE"] != nil { LoggingSystem.shared.bootstrap(level: .trace, format: .logfmt) }
        let group = try EventLoopGroup(loopCount: loops)
        let record = ServerRecord()
        let server = try TLSServer(configuration: configuration, group: group) { _ in handler(record) }
        self.port = try server.start().port
        self.group = group
        self.server = server
        self.record = record
    }

    func stop() async {
        await server.shutdown(gracePeriod: .seconds(1))
        await group.shutdown()
    }
}
