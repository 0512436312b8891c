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
    /// that is not protobuf).
    static func commandID(downlink payload: [UInt8]) -> UInt64? {
        guard let command = field(2, in: payload[...], wireType: 2).flatMap(\.bytes) else { return nil }
        return field(1, in: command, wireType: 0)?.varint ?? 0
    }

    /// Appends the uplink answering `commandID` with OK.
    static func appendOK(commandID: UInt64, to buffer: inout [UInt8]) {
        let idLength = commandID == 0 ? 0 : 1 + varintLength(commandID)
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

    private enum Value {
        case varint(UInt64)
        case bytes(ArraySlice<UInt8>)

        var varint: UInt64? { if case .varint(let value) = self { value } else { nil } }
        var bytes: ArraySlice<UInt8>? { if case .bytes(let value) = self { value } else { nil } }
    }

    /// The last value of field `number` with `wireType` in `message` (as protobuf reads a
    /// repeated singular field), nil when absent or malformed.
    private static func field(_ number: UInt64, in message: ArraySlice<UInt8>, wireType: UInt64) -> Value? {
        var index = message.startIndex
        var found: Value?
        while index < message.endIndex {
            guard let key = readVarint(message, &index) else { return nil }
            let value: Value
            switch key & 7 {
            case 0:
                guard let number = readVarint(message, &index) else { return nil }
                value = .varint(number)
            case 1, 5:
                let width = key & 7 == 1 ? 8 : 4
                guard message.endIndex - index >= width else { return nil }
                index += width
                continue
            case 2:
                guard let length = readVarint(message, &index), length <= UInt64(message.endIndex - index) else { return nil }
                value = .bytes(message[index..<index + Int(length)])
                index += Int(length)
            default:
                return nil
            }
            if key >> 3 == number, key & 7 == wireType { found = value }
        }
        return found
    }

    private static func readVarint(_ bytes: ArraySlice<UInt8>, _ index: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.endIndex, shift < 64 {
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

    private static func varintLength(_ value: UInt64) -> Int {
        var value = value
        var length = 1
        while value >= 0x80 {
            value >>= 7
            length += 1
        }
        return length
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
