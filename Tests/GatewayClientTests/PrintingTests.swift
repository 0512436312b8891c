import GatewayClient
@testable import GatewayClientCore
import GatewayWire
import GatewayWireClients
import Testing

/// Every model and event the client hands an application prints its fields readably and
/// never a secret (the resume token, the connection token, the secret key), however printed.
@Suite("Client models print safely")
struct PrintingTests {
    static let secret = "st_SECRET_9f8e7d"

    static func printed(_ value: Any) -> [String] {
        ["\(value)", String(describing: value), String(reflecting: value)]
    }

    static var reader: ReaderGatewayV1.Reader {
        var reader = ReaderGatewayV1.Reader()
        reader.id = "tmr_1"
        reader.label = "Front"
        reader.serialNumber = "WSQ-1"
        return reader
    }

    static var session: TerminalSession {
        TerminalSession(sessionID: "ses_1", resumeToken: secret, lease: .seconds(30), resumed: true, connectedReader: reader)
    }

    static var update: ReaderGatewayV1.ReaderSoftwareUpdate {
        var update = ReaderGatewayV1.ReaderSoftwareUpdate()
        update.version = "2.1.0"
        return update
    }

    static var takeover: DisconnectInfo {
        var message = ReaderGatewayV1.ReaderDisconnected()
        message.readerID = "tmr_1"
        message.reason = .replaced
        message.takenByLaneLabel = "Lane 2"
        message.takenByPosDeviceID = "pos-2"
        message.generation = 7
        message.message = "Lane 2 took the reader"
        return DisconnectInfo(message)
    }

    static let error = TerminalError(RPCError(.sessionExpired, "the session's lease ran out; open a new session"))

    static let events: [TerminalEvent] = [
        .disconnected(takeover), .readerStatusChanged(Reader(reader)), .reconnectStarted(readerID: "tmr_1"),
        .reconnectSucceeded(readerID: "tmr_1"), .reconnectFailed(readerID: "tmr_1", error),
        .updateProgress(readerID: "tmr_1", progress: 0.5), .updateAvailable(readerID: "tmr_1", ReaderSoftwareUpdate(update)),
        .updateStarted(readerID: "tmr_1", ReaderSoftwareUpdate(update)), .connectionLost(error), .sessionResumed(session), .sessionEnded(error),
    ]

    @Test("every event prints readable fields and no secret, no raw protobuf")
    func events() {
        for event in Self.events {
            for text in Self.printed(event) {
                #expect(!text.contains("SECRET"), "leaks the resume token: \(text)")
                #expect(!text.contains("unknownFields"), "prints raw protobuf: \(text)")
                #expect(!text.contains("ReaderGatewayV1"), "prints raw protobuf: \(text)")
            }
        }
        #expect("\(TerminalEvent.sessionResumed(Self.session))".contains("resumeToken: <redacted>"))
        let takeover = "\(TerminalEvent.disconnected(Self.takeover))"
        #expect(takeover.contains(#"takenByLaneLabel: "Lane 2""#) && takeover.contains(#"takenByPosDeviceID: "pos-2""#), "\(takeover)")
        #expect(takeover.contains("reason: replaced") && takeover.contains("generation: 7"), "\(takeover)")
        #expect("\(TerminalEvent.updateStarted(readerID: "tmr_1", ReaderSoftwareUpdate(Self.update)))" == #"updateStarted(readerID: "tmr_1", ReaderSoftwareUpdate(version: "2.1.0"))"#)
        #expect("\(TerminalEvent.sessionEnded(Self.error))" == "sessionEnded(sessionExpired: the session's lease ran out; open a new session [ERROR_REASON_SESSION_EXPIRED])")
    }

    @Test("models print readable fields and no secret: session, discovered reader, credentials, admin client, mobile events")
    func models() {
        let session = "\(Self.session)"
        #expect(session.contains(#"sessionID: "ses_1""#) && session.contains(#"label: "Front""#), "\(session)")
        let discovered = DiscoveredReader(wire: Self.reader, discoveryID: "dsc_1")
        #expect("\(discovered)" == #"DiscoveredReader(discoveryID: "dsc_1", reader: Reader(id: "tmr_1", serialNumber: "WSQ-1", label: "Front"))"#)
        let credentials = TerminalSessionStateMachine.Credentials(connectionToken: Self.secret, posDeviceID: "pos-1", laneLabel: "Lane 1")
        let mobile: [MobileReaderEvent] = [
            .didStartReconnect(serialNumber: "WPC3-1", reason: .appInBackground), .didSucceedReconnect(serialNumber: "WPC3-1"),
            .didFailReconnect(serialNumber: "WPC3-1"), .didDisconnect(serialNumber: "WPC3-1", reason: .unknown),
        ]
        let values: [Any] = [Self.session, discovered, Self.takeover, credentials] + mobile
        for value in values {
            for text in Self.printed(value) {
                #expect(!text.contains("SECRET"), "\(type(of: value)) leaks a secret: \(text)")
                #expect(!text.contains("unknownFields") && !text.contains("ReaderGatewayV1"), "\(type(of: value)) prints raw protobuf: \(text)")
            }
        }
        #expect("\(mobile[0])" == #"didStartReconnect(serialNumber: "WPC3-1", reason: appInBackground)"#)
    }

    @Test("a Tap to Pay connection prints its reader and what the connect did, never the reader's credential")
    func tapToPayConnection() {
        var wire = ReaderGatewayV1.ConnectTapToPayReaderResponse()
        wire.reader = Self.reader
        wire.merchantDisplayName = "Shop of Till"
        wire.accountsInWindow = 1
        wire.readerCredential = "rcred_SECRET_5a4b"
        let connection = TapToPayConnection(wire, reader: Self.reader)
        for text in Self.printed(connection) {
            #expect(!text.contains("SECRET") && !text.contains("rcred_"), "the Tap to Pay connection leaks the reader's credential: \(text)")
            #expect(!text.contains("unknownFields") && !text.contains("ReaderGatewayV1"), "the Tap to Pay connection prints raw protobuf: \(text)")
        }
        #expect(
            "\(connection)"
                == #"TapToPayConnection(reader: Reader(id: "tmr_1", serialNumber: "WSQ-1", label: "Front"), merchantDisplayName: "Shop of Till", accountsInWindow: 1)"#
        )
        #expect("\(DisconnectReason(mobile: .bluetoothSignalLost))" == "bluetoothSignalLost")
    }

    @Test("an admin client prints its deadline, never its secret key")
    func adminClient() throws {
        let connection = GatewayConnection(ClientChannelConfiguration(host: "127.0.0.1", port: 1))
        let admin = AdminClient(connection: connection, secretKey: "sk_SECRET_0011")
        for text in Self.printed(admin) {
            #expect(!text.contains("SECRET"), "leaks the secret key: \(text)")
        }
        #expect("\(admin)" == "AdminClient(secretKey: <redacted>, timeout: 15.0 seconds)")
    }
}
