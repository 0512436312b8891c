import GatewayWire
import Testing

/// What a generated message prints: the fields that are set, readable, and never a secret.
@Suite("Protobuf message descriptions")
struct ProtobufDescriptionTests {
    /// Every way a value reaches text: interpolation, `String(describing:)`, `String(reflecting:)`.
    static func printed(_ value: some CustomStringConvertible) -> [String] {
        ["\(value)", String(describing: value), String(reflecting: value)]
    }

    @Test("set fields print by name with readable values; defaults and unknown fields do not")
    func readableFields() throws {
        var reader = ReaderGatewayV1.Reader()
        reader.id = "tmr_1"
        reader.label = "Lane \"1\""
        reader.networkStatus = .online
        let text = reader.description
        #expect(text.hasPrefix("Reader("))
        #expect(text.contains(#"id: "tmr_1""#))
        #expect(text.contains(#"label: "Lane \"1\"""#))
        #expect(text.contains("networkStatus: READER_NETWORK_STATUS_ONLINE"))
        #expect(!text.contains("unknownFields"))
        #expect(!text.contains("serialNumber"), "a field at its default is left out: \(text)")
        #expect(!text.contains("ReaderGatewayV1"))
        // Unknown fields print their size only.
        var withUnknown = reader
        withUnknown.unknownFields = [0xF8, 0x07, 0x01]
        #expect(withUnknown.description.contains("unknownFields: 3 bytes"))
    }

    @Test("nested, repeated and oneof fields print as messages")
    func nestedFields() {
        var update = ReaderGatewayV1.ReaderSoftwareUpdate()
        update.version = "2.1.0"
        var hello = ReaderGatewayV1.ReaderHello()
        hello.serialNumber = "WSQ-1"
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .hello(hello)
        #expect(uplink.description == #"ReaderUplink(hello: ReaderHello(serialNumber: "WSQ-1"))"#)
        var response = ReaderGatewayV1.DiscoverReadersResponse()
        var first = ReaderGatewayV1.Reader()
        first.id = "tmr_1"
        var second = ReaderGatewayV1.Reader()
        second.id = "tmr_2"
        response.readers = [first, second]
        #expect(response.description.contains(#"readers: [Reader(id: "tmr_1"), Reader(id: "tmr_2")]"#))
        #expect(update.description == #"ReaderSoftwareUpdate(version: "2.1.0")"#)
    }

    @Test("secrets print as <redacted>: tokens, API key secrets, reader credentials, registration codes, metadata values")
    func secretsRedacted() {
        let secret = "st_SECRET_a1b2c3"
        var open = ReaderGatewayV1.OpenSessionRequest()
        open.connectionToken = secret
        open.resumeToken = secret
        open.laneLabel = "Lane 3"
        var opened = ReaderGatewayV1.OpenSessionResponse()
        opened.sessionToken = secret
        opened.sessionID = "ses_1"
        var heartbeat = ReaderGatewayV1.HeartbeatRequest()
        heartbeat.sessionToken = secret
        var token = ReaderGatewayV1.CreateConnectionTokenResponse()
        token.secret = secret
        var key = ReaderGatewayV1.CreateApiKeyResponse()
        key.secret = secret
        var rolled = ReaderGatewayV1.RollApiKeyResponse()
        rolled.secret = secret
        var hello = ReaderGatewayV1.ReaderHello()
        hello.readerCredential = secret
        var uplink = ReaderGatewayV1.ReaderUplink()
        uplink.message = .hello(hello)
        var register = ReaderGatewayV1.RegisterReaderRequest()
        register.registrationCode = secret
        var registration = ReaderGatewayV1.RegistrationState()
        registration.registrationCode = secret
        registration.readerCredential = secret
        var complete = ReaderGatewayV1.CompleteRegistrationRequest()
        complete.registrationCode = secret
        complete.readerCredential = secret
        var tapToPay = ReaderGatewayV1.ConnectTapToPayReaderResponse()
        tapToPay.readerCredential = secret
        var bluetooth = ReaderGatewayV1.ConnectBluetoothReaderResponse()
        bluetooth.readerCredential = secret
        var metadata = ReaderGatewayV1.MetadataEntry()
        metadata.key = "authorization"
        metadata.value = Array("Bearer \(secret)".utf8)
        let messages: [any ProtobufMessage] = [open, opened, heartbeat, token, key, rolled, uplink, register, registration, complete, tapToPay, bluetooth, metadata]
        for message in messages {
            for text in Self.printed(message) {
                #expect(!text.contains("SECRET"), "\(type(of: message)) leaks a secret: \(text)")
            }
        }
        #expect(open.description == #"OpenSessionRequest(connectionToken: <redacted>, laneLabel: "Lane 3", resumeToken: <redacted>)"#)
        #expect(metadata.description == #"MetadataEntry(key: "authorization", value: 23 bytes)"#)
        #expect(uplink.description.contains("readerCredential: <redacted>"))
    }
}
