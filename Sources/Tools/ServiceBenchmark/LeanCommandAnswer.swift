import GatewayWire

/// A lean reader's answer to a command, written as the generated code writes it but without
/// decoding the downlink into messages or building the answer's: the downlink's command id is
/// read where protobuf puts it (`ReaderDownlink.command` = 2, `ReaderCommand.command_id` = 1),
/// and the answer (`ReaderUplink.command_result` = 3 holding `CommandResult { command_id, status
/// OK }`) is the command id's varint between a fixed head and tail. ``matchesGeneratedCode()``
/// checks the template against the generated encoder before a run.
enum LeanCommandAnswer {
    /// `CommandResult.status` OK as the generated code writes it.
    private static let statusOK: [UInt8] = {
        var result = ReaderGatewayV1.CommandResult()
        result.status = .ok
        return result.serializedBytes()
    }()

    /// The command id of a downlink that carries a command; nil for any other downlink (or one
    /// that is not protobuf). Read with the wire's reader, fields skipped without copying.
    static func commandID(downlink payload: [UInt8]) -> UInt64? {
        payload.withUnsafeBytes { buffer in
            do {
                guard let command = try lastLengthDelimited(field: 2, in: buffer) else { return nil }
                var reader = ProtobufReader(command)
                var id: UInt64 = 0
                while let tag = try reader.nextTag() {
                    if tag.fieldNumber == 1, tag.wireType == .varint { id = try reader.readVarint() } else { try reader.skipField(tag) }
                }
                return id
            } catch {
                return nil
            }
        }
    }

    /// The last value of length-delimited field `number` in `message` (as protobuf reads a
    /// singular field written twice), nil when absent.
    private static func lastLengthDelimited(field number: Int, in message: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        var reader = ProtobufReader(message)
        var found: UnsafeRawBufferPointer?
        while let tag = try reader.nextTag() {
            if tag.fieldNumber == number, tag.wireType == .lengthDelimited { found = try reader.readLengthDelimited() } else { try reader.skipField(tag) }
        }
        return found
    }

    /// Appends the uplink answering `commandID` with OK.
    static func appendOK(commandID: UInt64, to buffer: inout [UInt8]) {
        let idLength = commandID == 0 ? 0 : 1 + ProtobufWriter.varintSize(commandID)
        buffer.append(0x1A)  // field 3, length-delimited
        appendVarint(UInt64(idLength + statusOK.count), to: &buffer)
        if commandID != 0 {
            buffer.append(0x08)  // field 1, varint
            appendVarint(commandID, to: &buffer)
        }
        buffer.append(contentsOf: statusOK)
    }

    /// True when ``appendOK(commandID:to:)`` writes what the generated encoder writes, for ids of
    /// every varint length.
    static func matchesGeneratedCode() -> Bool {
        [0, 1, 127, 128, 300, 1 << 35, UInt64.max].allSatisfy { id in
            var result = ReaderGatewayV1.CommandResult()
            result.commandID = id
            result.status = .ok
            var uplink = ReaderGatewayV1.ReaderUplink()
            uplink.message = .commandResult(result)
            var written: [UInt8] = []
            appendOK(commandID: id, to: &written)
            var command = ReaderGatewayV1.ReaderCommand()
            command.commandID = id
            command.command = .setDisplay(ReaderGatewayV1.Cart())
            var downlink = ReaderGatewayV1.ReaderDownlink()
            downlink.message = .command(command)
            return written == uplink.serializedBytes() && commandID(downlink: downlink.serializedBytes()) == id
        }
    }

    private static func appendVarint(_ value: UInt64, to buffer: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            buffer.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        buffer.append(UInt8(value))
    }
}
