import GatewayClient
@testable import GatewaySimulators
import GatewayWire
import Testing

/// The shared air's frames, without a socket: every message round-trips, the frame reader
/// waits for whole frames, and malformed bytes are refused with what was wrong.
@Suite("Bluetooth air codec")
struct BluetoothAirCodecTests {
    static let advertisement = BluetoothAdvertisement(
        serialNumber: "WPC3-0001", deviceType: .wisePad3, signalStrength: -61, batteryLevel: 0.5, softwareVersion: "2.4.0"
    )

    @Test("every message decodes to itself", arguments: [
        BluetoothAirMessage.hello(device: "phone-1"), .watch(call: 1), .unwatch(call: 2), .readBattery(call: 3, serial: "M2-1"),
        .connect(call: 4, serial: "WPC3-0001", timeoutMilliseconds: 30_000), .cancel(call: 4), .readState(call: 5, handle: 9),
        .beginPairing(call: 6, handle: 9), .pairingAnswer(call: 7, handle: 9), .bond(handle: 9), .run(call: 8, handle: 9, command: [8, 1]),
        .disconnect(handle: 9), .reboot(handle: 9), .welcome,
        .advertisements(call: 1, [advertisement, BluetoothAdvertisement(serialNumber: "M2-1", deviceType: .stripeM2, signalStrength: -80)]),
        .advertisements(call: 1, []), .batteryLevel(call: 3, level: 0.25), .batteryLevel(call: 3, level: nil),
        .connected(call: 4, handle: 9, deviceType: .stripeM2, softwareVersion: "2.4.0"),
        .state(call: 5, softwareVersion: "2.5.0", batteryLevel: nil, bonded: true), .passkey(call: 6, "012345"),
        .answer(call: 7, passkey: "012345", accepted: false), .progress(call: 8, 0.75), .result(call: 8, []),
        .ended(handle: 9, reason: .securityReboot), .failure(call: 0, code: .badRequest, message: "what was wrong"),
    ])
    func roundTrips(message: BluetoothAirMessage) throws {
        var frames = BluetoothAirCodec.FrameReader()
        frames.append(BluetoothAirCodec.frame(message)[...])
        let payload = try #require(try frames.next())
        #expect(try BluetoothAirCodec.decode(payload[...]) == message)
        #expect(try frames.next() == nil)
    }

    @Test("the frame reader waits for a whole frame and splits several from one read")
    func framing() throws {
        let first = BluetoothAirCodec.frame(.watch(call: 1))
        let second = BluetoothAirCodec.frame(.hello(device: "phone-2"))
        var frames = BluetoothAirCodec.FrameReader()
        frames.append(first[0..<3])
        #expect(try frames.next() == nil)
        frames.append(first[3...])
        frames.append(second[0..<5])
        #expect(try frames.next().map { try BluetoothAirCodec.decode($0[...]) } == .watch(call: 1))
        #expect(try frames.next() == nil)
        frames.append(second[5...])
        #expect(try frames.next().map { try BluetoothAirCodec.decode($0[...]) } == .hello(device: "phone-2"))
    }

    @Test("a frame announcing no bytes or more than the limit loses the framing", arguments: [
        [UInt8]([0, 0, 0, 0]), [0, 1, 0, 1], [0xFF, 0xFF, 0xFF, 0xFF],
    ])
    func refusesLengths(prefix: [UInt8]) {
        var frames = BluetoothAirCodec.FrameReader()
        frames.append(prefix[...])
        #expect(throws: BluetoothAirProtocolError.self) { try frames.next() }
    }

    @Test("malformed payloads say what was wrong", arguments: [
        ([UInt8]([99]), "message type 99 is unknown"),
        ([4, 0, 0], "the frame ends inside read_battery's call"),
        ([1, 0, 9, 0x61], "the frame ends inside hello's device"),
        ([1, 0, 1, 0xFF], "hello's device is not UTF-8"),
        ([10, 0, 0, 0, 1, 7], "1 bytes follow the fields of message type 10"),
        ([68, 0, 0, 0, 1, 0, 0, 0, 2], "state's bonded is 2"),
        ([74, 0, 0, 0, 1, 9, 0, 0], "failure code 9 is unknown"),
        ([65, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF], "at most 4096"),
    ])
    func refusesPayloads(payload: [UInt8], message: String) {
        do throws(BluetoothAirProtocolError) {
            let decoded = try BluetoothAirCodec.decode(payload[...])
            Issue.record("decoded \(decoded)")
        } catch {
            #expect(error.description.contains(message), "\(error)")
        }
    }
}
