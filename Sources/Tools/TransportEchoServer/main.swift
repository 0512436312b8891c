// transport-echo: a TLS echo server built on GatewayTransport, the subject of the transport
// benchmarks (`make bench`) and of the external TLS scan (`make test`).
//
//   transport-echo --port 8443 --certificate server.pem --key server-key.pem
//   transport-echo --port 8443 --dev-ca .build/dev-ca      # creates a development CA on first start
//   transport-echo --port 8443 --dev-ca DIR --websocket    # the WebSocket binding, echoing each protocol frame
//
// SIGTERM or SIGINT: graceful shutdown. SIGHUP: reload the certificate and key.
import Dispatch
import Foundation
import GatewayCore
import GatewayTransport

/// Echoes every byte back to the peer.
final class EchoHandler: ConnectionHandler {
    func connectionActive(_ connection: TLSConnection, info: ConnectionInfo) {}
    func bytesReceived(_ bytes: UnsafeRawBufferPointer, on connection: TLSConnection) { connection.write(bytes) }
    func connectionClosed(_ reason: CloseReason, on connection: TLSConnection) {}
}

let parser = OptionsParser(
    program: "transport-echo",
    summary: "TLS echo server on the ReaderGateway transport (benchmarks and TLS scans)",
    environmentPrefix: "TRANSPORT_ECHO",
    options: [
        .value("host", "ADDRESS", default: "127.0.0.1", help: "Numeric address to listen on."),
        .value("port", "PORT", default: "8443", help: "Port to listen on (0: any free port, printed on stdout)."),
        .value("loops", "N", default: "\(ProcessInfo.processInfo.activeProcessorCount)", help: "Event loops (threads)."),
        .value("certificate", "PEM", default: nil, help: "Certificate chain; repeatable by comma (e.g. an ECDSA and an RSA one)."),
        .value("key", "PEM", default: nil, help: "Private key(s), comma-separated, in the order of --certificate."),
        .value("dev-ca", "DIR", default: nil, help: "Create or reuse a development CA and server certificate in DIR."),
        .value("client-ca", "PEM", default: nil, help: "Require client certificates issued by this CA (mutual TLS)."),
        .value("max-connections", "N", default: "100000", help: "Connection cap."),
        .value("idle-timeout", "DURATION", default: "300s", help: "Close connections idle this long."),
        .value(
            "max-handshaking-per-source", "N", default: "64",
            help: "Handshakes in flight per source address (raise it behind a proxy, whose connections all come from one address)."
        ),
        .value(
            "release-buffers-after", "DURATION", default: "20ms",
            help: "A connection quiet this long releases its TLS record buffers until its next record (the gateway's default); off: keep them, as most TLS servers do."
        ),
        .value("log-level", "LEVEL", default: "notice", help: "Lowest level logged."),
        .flag("websocket", help: "Speak the WebSocket binding (upgrade, then one protocol frame per message) and echo each frame."),
    ]
)

do {
    let options = try parser.parse(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
    if options.helpRequested {
        print(parser.helpText(), terminator: "")
        exit(0)
    }
    // First, before any thread exists: route SIGTERM, SIGINT and SIGHUP to a signalfd.
    let signals = try SignalReceiver(signals: [SIGTERM, SIGINT, SIGHUP])
    LoggingSystem.shared.bootstrap(level: Logger.Level(name: options.string("log-level") ?? "notice") ?? .notice, format: .logfmt)
    let logger = Logger(component: "transport-echo")
    let fileLimit = ProcessLimits.prepareForManyConnections(wantedFileDescriptors: 1 << 20)
    logger.notice("open file limit", ["nofile": fileLimit])

    var certificates: [CertificateKeyPair] = []
    if let directory = options.string("dev-ca") {
        certificates = [try DevelopmentCertificates.ensure(in: directory).server]
    } else if let chains = options.string("certificate"), let keys = options.string("key") {
        let chainList = chains.split(separator: ",").map(String.init)
        let keyList = keys.split(separator: ",").map(String.init)
        guard chainList.count == keyList.count else {
            throw OptionsError("transport-echo: give as many --key files as --certificate files")
        }
        certificates = zip(chainList, keyList).map { CertificateKeyPair(certificateChainPath: $0, privateKeyPath: $1) }
    } else {
        throw OptionsError("transport-echo: give --certificate and --key, or --dev-ca DIR")
    }
    var configuration = TLSServerConfiguration(
        host: options.string("host") ?? "127.0.0.1",
        port: try options.int("port", in: 0...65535) ?? 8443,
        certificates: certificates
    )
    if let clientCA = options.string("client-ca") { configuration.clientAuthentication = .required(trustedCAPath: clientCA) }
    configuration.limits.maxConnections = try options.int("max-connections", in: 1...10_000_000) ?? 100_000
    configuration.limits.idleTimeout = try options.duration("idle-timeout")
    configuration.limits.maxHandshakingPerSource = try options.int("max-handshaking-per-source", in: 1...1_000_000) ?? 64
    configuration.limits.releaseBuffersAfter = try options.durationOrOff("release-buffers-after") ?? ConnectionLimits.defaultReleaseBuffersAfter
    let group = try EventLoopGroup(loopCount: try options.int("loops", in: 1...256) ?? 1)
    let webSocket = try options.flag("websocket")
    let server = try TLSServer(configuration: configuration, group: group) { _ -> any ConnectionHandler in
        webSocket ? WebSocketEchoHandler() : EchoHandler()
    }
    let address = try server.start()

    // Announce only once the signals are routed to us, so a SIGTERM right after is handled.
    FileHandle.standardOutput.write(Data("listening \(address)\n".utf8))
    while true {
        let number = signals.next()
        guard number == SIGHUP else { break }
        do { try server.reloadCertificates() } catch { logger.error("reload failed; keeping the current certificates", ["error": "\(error)"]) }
    }
    logger.notice("shutting down", ["connections": server.connectionCount])
    let finished = DispatchSemaphore(value: 0)
    Task.detached {
        await server.shutdown(gracePeriod: .seconds(5))
        await group.shutdown()
        finished.signal()
    }
    finished.wait()
} catch {
    FileHandle.standardError.write(Data(("\(error)\n").utf8))
    exit(error is OptionsError ? OptionsError.exitCode : 1)
}
