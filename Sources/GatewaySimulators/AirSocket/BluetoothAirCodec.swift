import GatewayClient
import GatewayWire

/// The shared air's frames: a 4-byte big-endian payload length (1 to ``maximumPayload``), then
/// the payload: one type byte and the message's fields in order. Integers are big-endian;
/// a string is a 2-byte length and UTF-8; bytes are a 4-byte length and the bytes; a float is
/// its IEEE 754 bits as 4 bytes; an optional float is a presence byte (0 or 1) and, when 1, the
/// float; a bool is one byte (0 or 1). docs/mobile-readers.md has the table of types.
enum BluetoothAirCodec {
    /// The largest payload either side accepts (a frame announcing more is refused).
    static let maximumPayload = 65_536

    static func frame(_ message: BluetoothAirMessage) -> [UInt8] {
        var payload = Writer()
        switch message {
        case .hello(let device): payload.byte(1); payload.string(device)
        case .watch(let call): payload.byte(2); payload.u32(call)
        case .unwatch(let call): payload.byte(3); payload.u32(call)
        case .readBattery(let call, let serial): payload.byte(4); payload.u32(call); payload.string(serial)
        case .connect(let call, let serial, let timeout): payload.byte(5); payload.u32(call); payload.string(serial); payload.u32(timeout)
        case .cancel(let call): payload.byte(6); payload.u32(call)
        case .readState(let call, let handle): payload.byte(7); payload.u32(call); payload.u32(handle)
        case .beginPairing(let call, let handle): payload.byte(8); payload.u32(call); payload.u32(handle)
        case .pairingAnswer(let call, let handle): payload.byte(9); payload.u32(call); payload.u32(handle)
        case .bond(let handle): payload.byte(10); payload.u32(handle)
        case .run(let call, let handle, let command): payload.byte(11); payload.u32(call); payload.u32(handle); payload.blob(command)
        case .disconnect(let handle): payload.byte(12); payload.u32(handle)
        case .reboot(let handle): payload.byte(13); payload.u32(handle)
        case .welcome: payload.byte(64)
        case .advertisements(let call, let list):
            payload.byte(65); payload.u32(call); payload.u32(UInt32(list.count))
            for advertisement in list {
                payload.string(advertisement.serialNumber)
                payload.u32(UInt32(bitPattern: advertisement.deviceType.wire.rawValue))
                payload.u32(UInt32(bitPattern: Int32(clamping: advertisement.signalStrength)))
                payload.optionalFloat(advertisement.batteryLevel)
                payload.string(advertisement.softwareVersion)
            }
        case .batteryLevel(let call, let level): payload.byte(66); payload.u32(call); payload.optionalFloat(level)
        case .connected(let call, let handle, let type, let version):
            payload.byte(67); payload.u32(call); payload.u32(handle); payload.u32(UInt32(bitPattern: type.rawValue)); payload.string(version)
        case .state(let call, let version, let level, let bonded):
            payload.byte(68); payload.u32(call); payload.string(version); payload.optionalFloat(level); payload.byte(bonded ? 1 : 0)
        case .passkey(let call, let passkey): payload.byte(69); payload.u32(call); payload.string(passkey)
        case .answer(let call, let passkey, let accepted): payload.byte(70); payload.u32(call); payload.string(passkey); payload.byte(accepted ? 1 : 0)
        case .progress(let call, let fraction): payload.byte(71); payload.u32(call); payload.u32(fraction.bitPattern)
        case .result(let call, let result): payload.byte(72); payload.u32(call); payload.blob(result)
        case .ended(let handle, let reason): payload.byte(73); payload.u32(handle); payload.u32(UInt32(bitPattern: reason.rawValue))
        case .failure(let call, let code, let message): payload.byte(74); payload.u32(call); payload.byte(code.rawValue); payload.string(message)
        }
        var frame = Writer()
        frame.u32(UInt32(payload.bytes.count))
        return frame.bytes + payload.bytes
    }

    /// Decodes one payload (without its length prefix).
    static func decode(_ payload: ArraySlice<UInt8>) throws(BluetoothAirProtocolError) -> BluetoothAirMessage {
        var reader = Reader(bytes: payload)
        let type = try reader.byte("the message type")
        let message: BluetoothAirMessage
        switch type {
        case 1: message = .hello(device: try reader.string("hello's device"))
        case 2: message = .watch(call: try reader.u32("watch's call"))
        case 3: message = .unwatch(call: try reader.u32("unwatch's call"))
        case 4: message = .readBattery(call: try reader.u32("read_battery's call"), serial: try reader.string("read_battery's serial"))
        case 5:
            message = .connect(call: try reader.u32("connect's call"), serial: try reader.string("connect's serial"), timeoutMilliseconds: try reader.u32("connect's timeout"))
        case 6: message = .cancel(call: try reader.u32("cancel's call"))
        case 7: message = .readState(call: try reader.u32("read_state's call"), handle: try reader.u32("read_state's handle"))
        case 8: message = .beginPairing(call: try reader.u32("begin_pairing's call"), handle: try reader.u32("begin_pairing's handle"))
        case 9: message = .pairingAnswer(call: try reader.u32("pairing_answer's call"), handle: try reader.u32("pairing_answer's handle"))
        case 10: message = .bond(handle: try reader.u32("bond's handle"))
        case 11: message = .run(call: try reader.u32("run's call"), handle: try reader.u32("run's handle"), command: try reader.blob("run's command"))
        case 12: message = .disconnect(handle: try reader.u32("disconnect's handle"))
        case 13: message = .reboot(handle: try reader.u32("reboot's handle"))
        case 64: message = .welcome
        case 65:
            let call = try reader.u32("advertisements' call")
            let count = try reader.u32("advertisements' count")
            guard count <= 4_096 else { throw BluetoothAirProtocolError("advertisements announces \(count) readers; at most 4096") }
            var list: [BluetoothAdvertisement] = []
            for _ in 0..<count {
                let serial = try reader.string("an advertisement's serial")
                let type = DeviceType(ReaderGatewayV1.DeviceType(rawValue: Int32(bitPattern: try reader.u32("an advertisement's device type"))))
                let signal = Int(Int32(bitPattern: try reader.u32("an advertisement's signal strength")))
                let level = try reader.optionalFloat("an advertisement's battery level")
                let version = try reader.string("an advertisement's software version")
                list.append(BluetoothAdvertisement(serialNumber: serial, deviceType: type, signalStrength: signal, batteryLevel: level, softwareVersion: version))
            }
            message = .advertisements(call: call, list)
        case 66: message = .batteryLevel(call: try reader.u32("battery_level's call"), level: try reader.optionalFloat("battery_level's level"))
        case 67:
            message = .connected(
                call: try reader.u32("connected's call"), handle: try reader.u32("connected's handle"),
                deviceType: ReaderGatewayV1.DeviceType(rawValue: Int32(bitPattern: try reader.u32("connected's device type"))),
                softwareVersion: try reader.string("connected's software version")
            )
        case 68:
            message = .state(
                call: try reader.u32("state's call"), softwareVersion: try reader.string("state's software version"),
                batteryLevel: try reader.optionalFloat("state's battery level"), bonded: try reader.bool("state's bonded")
            )
        case 69: message = .passkey(call: try reader.u32("passkey's call"), try reader.string("passkey's passkey"))
        case 70: message = .answer(call: try reader.u32("answer's call"), passkey: try reader.string("answer's passkey"), accepted: try reader.bool("answer's accepted"))
        case 71: message = .progress(call: try reader.u32("progress' call"), Float(bitPattern: try reader.u32("progress' fraction")))
        case 72: message = .result(call: try reader.u32("result's call"), try reader.blob("result's result"))
        case 73:
            message = .ended(
                handle: try reader.u32("ended's handle"),
                reason: ReaderGatewayV1.MobileDisconnectReason(rawValue: Int32(bitPattern: try reader.u32("ended's reason")))
            )
        case 74:
            let call = try reader.u32("failure's call")
            let raw = try reader.byte("failure's code")
            guard let code = BluetoothAirFailure(rawValue: raw) else { throw BluetoothAirProtocolError("failure code \(raw) is unknown; 1 to 5") }
            message = .failure(call: call, code: code, message: try reader.string("failure's message"))
        default:
            throw BluetoothAirProtocolError("message type \(type) is unknown; 1 to 13 from a device, 64 to 74 from the air")
        }
        guard reader.bytes.isEmpty else {
            throw BluetoothAirProtocolError("\(reader.bytes.count) bytes follow the fields of message type \(type); a frame holds one message")
        }
        return message
    }

    /// Splits a byte stream into payloads.
    struct FrameReader {
        private var buffer: [UInt8] = []

        mutating func append(_ bytes: ArraySlice<UInt8>) { buffer.append(contentsOf: bytes) }

        /// The next whole payload, nil when more bytes are needed.
        mutating func next() throws(BluetoothAirProtocolError) -> [UInt8]? {
            guard buffer.count >= 4 else { return nil }
            let length = buffer[0..<4].reduce(0) { $0 << 8 | Int($1) }
            guard length >= 1, length <= maximumPayload else {
                throw BluetoothAirProtocolError("a frame announces \(length) bytes; a payload holds 1 to \(maximumPayload) bytes after its 4-byte big-endian length")
            }
            guard buffer.count >= 4 + length else { return nil }
            let payload = Array(buffer[4..<(4 + length)])
            buffer.removeFirst(4 + length)
            return payload
        }
    }

    private struct Writer {
        var bytes: [UInt8] = []
        mutating func byte(_ value: UInt8) { bytes.append(value) }
        mutating func u32(_ value: UInt32) {
            bytes.append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
        }
        mutating func string(_ value: String) {
            let utf8 = Array(value.utf8.prefix(Int(UInt16.max)))
            bytes.append(contentsOf: [UInt8(utf8.count >> 8), UInt8(utf8.count & 0xFF)])
            bytes.append(contentsOf: utf8)
        }
        mutating func blob(_ value: [UInt8]) {
            u32(UInt32(value.count))
            bytes.append(contentsOf: value)
        }
        mutating func optionalFloat(_ value: Float?) {
            guard let value else { return byte(0) }
            byte(1)
            u32(value.bitPattern)
        }
    }

    private struct Reader {
        var bytes: ArraySlice<UInt8>

        mutating func take(_ count: Int, _ what: String) throws(BluetoothAirProtocolError) -> ArraySlice<UInt8> {
            guard bytes.count >= count else {
                throw BluetoothAirProtocolError("the frame ends inside \(what) (\(count) bytes needed, \(bytes.count) left)")
            }
            defer { bytes = bytes.dropFirst(count) }
            return bytes.prefix(count)
        }
        mutating func byte(_ what: String) throws(BluetoothAirProtocolError) -> UInt8 { try take(1, what).first! }
        mutating func u32(_ what: String) throws(BluetoothAirProtocolError) -> UInt32 {
            try take(4, what).reduce(0) { $0 << 8 | UInt32($1) }
        }
        mutating func bool(_ what: String) throws(BluetoothAirProtocolError) -> Bool {
            let value = try byte(what)
            guard value <= 1 else { throw BluetoothAirProtocolError("\(what) is \(value); a bool is 0 or 1") }
            return value == 1
        }
        mutating func string(_ what: String) throws(BluetoothAirProtocolError) -> String {
            let length = try take(2, what).reduce(0) { $0 << 8 | Int($1) }
            let utf8 = try take(length, what)
            guard let text = String(validating: utf8, as: UTF8.self) else { throw BluetoothAirProtocolError("\(what) is not UTF-8") }
            return text
        }
        mutating func blob(_ what: String) throws(BluetoothAirProtocolError) -> [UInt8] {
            let length = Int(try u32(what))
            return Array(try take(length, what))
        }
        mutating func optionalFloat(_ what: String) throws(BluetoothAirProtocolError) -> Float? {
            guard try bool(what) else { return nil }
            return Float(bitPattern: try u32(what))
        }
    }
}
