import GatewayClient
import GatewayWire
import Testing

/// WisePad 3 numeric-comparison pairing, without a radio.
@Suite("Bluetooth pairing machine")
struct PairingStateMachineTests {
    @Test("a WisePad 3 and a new device compare a 6-digit passkey: paired once the reader confirmed and the device paired, in either order")
    func numericComparison() {
        for readerFirst in [true, false] {
            var machine = PairingStateMachine()
            #expect(machine.begin(deviceType: .bbposWisepad3, bonded: false, passkey: "042917") == .showPasskey("042917"))
            if readerFirst {
                #expect(machine.readerAnswered(passkey: "042917", accepted: true) == .waiting)
                #expect(machine.deviceAnswered(accepted: true) == .paired)
            } else {
                #expect(machine.deviceAnswered(accepted: true) == .waiting)
                #expect(machine.readerAnswered(passkey: "042917", accepted: true) == .paired)
            }
            #expect(machine.state == .paired)
            #expect(machine.deviceAnswered(accepted: true) == .ignored)
        }
    }

    @Test("a bonded device, or a reader that does not compare numbers, connects without a passkey")
    func notRequired() {
        var bonded = PairingStateMachine()
        #expect(bonded.begin(deviceType: .bbposWisepad3, bonded: true, passkey: "") == .notRequired)
        #expect(bonded.state == .paired)
        for model in [ReaderGatewayV1.DeviceType.stripeM2, .bbposChipper2xBt] {
            var other = PairingStateMachine()
            #expect(other.begin(deviceType: model, bonded: false, passkey: "") == .notRequired)
        }
    }

    @Test("declined on the device, rejected on the reader, a different passkey, or not 6 digits: pairing fails")
    func failures() {
        var declined = PairingStateMachine()
        _ = declined.begin(deviceType: .bbposWisepad3, bonded: false, passkey: "123456")
        #expect(declined.deviceAnswered(accepted: false) == .failed(.declinedOnDevice))
        #expect(declined.state == .failed(reason: .declinedOnDevice))

        var rejected = PairingStateMachine()
        _ = rejected.begin(deviceType: .bbposWisepad3, bonded: false, passkey: "123456")
        #expect(rejected.deviceAnswered(accepted: true) == .waiting)
        #expect(rejected.readerAnswered(passkey: "123456", accepted: false) == .failed(.rejectedOnReader))

        var mismatch = PairingStateMachine()
        _ = mismatch.begin(deviceType: .bbposWisepad3, bonded: false, passkey: "123456")
        #expect(mismatch.readerAnswered(passkey: "654321", accepted: true) == .failed(.passkeyMismatch))

        for malformed in ["12345", "1234567", "12a456", ""] {
            var machine = PairingStateMachine()
            #expect(machine.begin(deviceType: .bbposWisepad3, bonded: false, passkey: malformed) == .fail(.malformedPasskey))
        }
        #expect(PairingStateMachine.isPasskey("000000"))
    }
}
