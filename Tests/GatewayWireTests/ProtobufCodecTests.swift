import GatewayWire
import GatewayWireConformance
import Testing

typealias AllTypes = ReaderGatewayTestingV1.AllTypes

@Suite("Protobuf wire format")
struct ProtobufCodecTests {
    func decodeError(_ bytes: [UInt8], maxDepth: Int = 64) -> WireError? {
        do {
            _ = try AllTypes(serializedBytes: bytes, options: .init(maxDepth: maxDepth))
            return nil
        } catch let error as WireError {
            return error
        } catch {
            return nil
        }
    }

    @Test("varints round-trip at every length boundary", arguments: [
        UInt64(0), 1, 127, 128, 16_383, 16_384, 1 << 21, 1 << 28, 1 << 35, 1 << 42, 1 << 49, 1 << 56, 1 << 63, .max,
    ])
    func varintBoundaries(value: UInt64) throws {
        var writer = ProtobufWriter()
        writer.writeVarint(value)
        #expect(writer.bytes.count == ProtobufWriter.varintSize(value))
        let (decoded, atEnd) = try writer.bytes.withUnsafeBytes { buffer throws -> (UInt64, Bool) in
            var reader = ProtobufReader(buffer)
            let decoded = try reader.readVarint()
            return (decoded, reader.isAtEnd)
        }
        #expect(decoded == value)
        #expect(atEnd)
    }

    @Test("known encodings: 150, -1 as int32, zigzag, fixed")
    func knownEncodings() {
        var message = AllTypes()
        message.int32Value = 150
        #expect(message.serializedBytes() == [0x08, 0x96, 0x01])
        message.int32Value = -1
        #expect(message.serializedBytes() == [0x08] + [UInt8](repeating: 0xFF, count: 9) + [0x01])
        message = AllTypes()
        message.sint32Value = -1
        #expect(message.serializedBytes() == [0x28, 0x01])
        message.sint32Value = 0
        message.sint64Value = -64
        #expect(message.serializedBytes() == [0x30, 0x7F])
        message = AllTypes()
        message.fixed32Value = 1
        #expect(message.serializedBytes() == [0x3D, 1, 0, 0, 0])
    }

    @Test("every field kind survives a round trip")
    func roundTrip() throws {
        var message = AllTypes()
        message.int64Value = .min
        message.uint64Value = .max
        message.sint32Value = .min
        message.sfixed64Value = -2
        message.doubleValue = -0.0
        message.floatValue = 1.5
        message.boolValue = true
        message.stringValue = "caf\u{E9} \u{1F4B3}"
        message.bytesValue = [0, 255]
        message.color = .negative
        message.repeatedSint64 = [-1, 0, .max]
        message.repeatedDouble = [1, -1]
        message.repeatedString = ["", "x"]
        message.unpackedInt32 = [-5, 5]
        message.optionalInt32 = 0
        message.choice = .choiceChild(AllTypes())
        var child = AllTypes()
        child.child = AllTypes()
        message.child = child
        message.repeatedChild = [AllTypes(), child]
        let decoded = try AllTypes(serializedBytes: message.serializedBytes())
        #expect(decoded == message)
        #expect(decoded.doubleValue.sign == .minus)
    }

    @Test("a message 200 bytes long gets a two-byte length prefix")
    func longEmbeddedMessage() throws {
        var message = AllTypes()
        var child = AllTypes()
        child.stringValue = String(repeating: "x", count: 200)
        message.child = child
        let bytes = message.serializedBytes()
        #expect(bytes[0] == 0x8A && bytes[1] == 0x01)  // field 17, wire type 2
        #expect(bytes[2] == 0xCB && bytes[3] == 0x01)  // 203 = 1 + 2 + 200
        #expect(try AllTypes(serializedBytes: bytes) == message)
    }

    @Test("repeated numeric fields accept packed and unpacked encodings")
    func packedAndUnpacked() throws {
        let unpacked: [UInt8] = [0xA8, 0x01, 0x05, 0xA8, 0x01, 0x07]
        #expect(try AllTypes(serializedBytes: unpacked).repeatedInt32 == [5, 7])
        let packed: [UInt8] = [0xB2, 0x02, 0x02, 0x01, 0x02]
        #expect(try AllTypes(serializedBytes: packed).unpackedInt32 == [1, 2])
    }

    @Test("unknown fields, including groups, are kept and written back")
    func unknownFields() throws {
        var full = AllTypes()
        full.int32Value = 1
        full.uint64Value = 2
        full.stringValue = "kept"
        full.repeatedFixed64 = [3]
        full.child = AllTypes()
        let subset = try ReaderGatewayTestingV1.Subset(serializedBytes: full.serializedBytes())
        #expect(subset.int32Value == 1)
        #expect(subset.stringValue == "kept")
        #expect(!subset.unknownFields.isEmpty)
        #expect(try AllTypes(serializedBytes: subset.serializedBytes()) == full)

        // field 100 as a group holding field 1 = 5, then END_GROUP 100.
        let group: [UInt8] = [0xA3, 0x06, 0x08, 0x05, 0xA4, 0x06]
        let withGroup = try ReaderGatewayTestingV1.Subset(serializedBytes: group)
        #expect(withGroup.unknownFields == group)
    }

    @Test("enum values this version does not know survive")
    func openEnums() throws {
        var message = AllTypes()
        message.color = AllTypes.Color(rawValue: 1234)
        let decoded = try AllTypes(serializedBytes: message.serializedBytes())
        #expect(decoded.color.rawValue == 1234)
        #expect(decoded.color.protoName == nil)
        #expect(AllTypes.Color.red.protoName == "COLOR_RED")
    }

    @Test("truncated input", arguments: [
        [UInt8]([0x08]), [0x08, 0xFF], [0x3D, 1, 2], [0x41, 1], [0x72, 0x05, 0x61], [0x8A, 0x01, 0x03, 0x08],
        [0xA3, 0x06, 0x08, 0x05],
    ])
    func truncated(bytes: [UInt8]) {
        #expect(decodeError(bytes)?.code == .truncated)
    }

    @Test("a varint longer than 10 bytes")
    func varintTooLong() {
        #expect(decodeError([0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01])?.code == .varintTooLong)
    }

    @Test("a 10-byte varint with bits beyond 64")
    func varintOverflow() {
        #expect(decodeError([0x08] + [UInt8](repeating: 0xFF, count: 9) + [0x02])?.code == .varintOverflow)
    }

    @Test("wrong wire type for a declared field")
    func wrongWireType() {
        // field 1 (int32) as fixed32; field 17 (message) as varint; field 14 (string) as fixed64.
        #expect(decodeError([0x0D, 0, 0, 0, 0])?.code == .wrongWireType)
        #expect(decodeError([0x88, 0x01, 0x01])?.code == .wrongWireType)
        #expect(decodeError([0x71, 0, 0, 0, 0, 0, 0, 0, 0])?.code == .wrongWireType)
    }

    @Test("wire types 6 and 7, field number 0, stray END_GROUP")
    func invalidKeys() {
        #expect(decodeError([0x0E])?.code == .invalidWireType)
        #expect(decodeError([0x0F])?.code == .invalidWireType)
        #expect(decodeError([0x00, 0x01])?.code == .invalidFieldNumber)
        #expect(decodeError([0x0C])?.code == .unexpectedEndGroup)
        #expect(decodeError([0xA3, 0x06, 0xAC, 0x06])?.code == .unexpectedEndGroup)
    }

    @Test("invalid UTF-8 in a string field", arguments: [
        [UInt8]([0xC3, 0x28]), [0xFF], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x92],
    ])
    func invalidUTF8(content: [UInt8]) {
        let error = decodeError([0x72, UInt8(content.count)] + content)
        #expect(error?.code == .invalidUTF8)
        #expect(error?.reason == .malformedMessage)
        #expect(error?.statusCode == .internal)
    }

    @Test("nesting beyond the limit is refused, at the limit accepted")
    func nesting() throws {
        func nested(_ depth: Int) -> [UInt8] {
            var message = AllTypes()
            message.int32Value = 1
            for _ in 0..<depth {
                var parent = AllTypes()
                parent.child = message
                message = parent
            }
            return message.serializedBytes()
        }
        #expect(decodeError(nested(10), maxDepth: 10) == nil)
        #expect(decodeError(nested(11), maxDepth: 10)?.code == .nestingTooDeep)
        // Deep nesting without content: 100k nested empty groups must not blow the stack.
        let groups = [UInt8]((0..<50_000).flatMap { _ in [UInt8(0xA3), 0x06] })
        #expect(decodeError(groups)?.code == .nestingTooDeep)
    }

    @Test("every error reason is paired with its documented status code")
    func reasonStatusPairs() {
        typealias Reason = ReaderGatewayV1.ErrorReason
        #expect(Reason.readerBusy.statusCode == .aborted)
        #expect(Reason.readerOffline.statusCode == .unavailable)
        #expect(Reason.staleDiscovery.statusCode == .failedPrecondition)
        #expect(Reason.connectionTokenExpired.statusCode == .unauthenticated)
        #expect(Reason.frameTooLarge.statusCode == .resourceExhausted)
        #expect(Reason.methodNotFound.statusCode == .unimplemented)
        for reason in Reason.knownValues where reason != .unspecified {
            #expect(reason.statusCode != .ok, "\(reason) must not pair with OK")
        }
    }

    @Test("services expose method paths and shapes")
    func methodDescriptors() {
        #expect(ReaderGatewayV1.Sdk.connectReader.path == "/readergateway.v1.Sdk/ConnectReader")
        #expect(ReaderGatewayV1.Sdk.subscribeEvents.descriptor.kind == .serverStreaming)
        #expect(ReaderGatewayV1.ReaderLink.attach.descriptor.kind == .bidirectionalStreaming)
        #expect(ReaderGatewayV1.FleetAdmin.watchFleet.descriptor.kind == .serverStreaming)
        #expect(ReaderGatewayV1.FleetAdmin.methods.count == 30)
        #expect(ReaderGatewayV1.FleetAdmin.createWebhookEndpoint.path == "/readergateway.v1.FleetAdmin/CreateWebhookEndpoint")
        #expect(ReaderGatewayV1.FleetAdmin.resendEvents.path == "/readergateway.v1.FleetAdmin/ResendEvents")
        #expect(ReaderGatewayV1.FleetAdmin.rollApiKey.path == "/readergateway.v1.FleetAdmin/RollApiKey")
        #expect(ReaderGatewayV1.FleetAdmin.listEvents.path == "/readergateway.v1.FleetAdmin/ListEvents")
        #expect(ReaderGatewayV1.FleetAdmin.listAuditEvents.path == "/readergateway.v1.FleetAdmin/ListAuditEvents")
        #expect(ReaderGatewayV1.FleetAdmin.addSoftwareUpdate.path == "/readergateway.v1.FleetAdmin/AddSoftwareUpdate")
    }
}
