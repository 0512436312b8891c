import GatewayDomain
import Testing

/// Which device may connect a Bluetooth reader, and whether a lost link keeps the owner.
@Suite("Bluetooth bond rule")
struct BluetoothBondRuleTests {
    @Test("a reader never bonded, or bonded to the same device, connects; another device only once the reader is free")
    func bond() {
        #expect(BluetoothBondRule.decide(device: "phone-a", bond: nil) == .bond(rebonded: false))
        #expect(BluetoothBondRule.decide(device: "phone-a", bond: .init(device: "phone-a", online: true, owned: true)) == .bond(rebonded: false))
        #expect(BluetoothBondRule.decide(device: "phone-b", bond: .init(device: "phone-a", online: true, owned: true)) == .refuse(bondedTo: "phone-a"))
        #expect(BluetoothBondRule.decide(device: "phone-b", bond: .init(device: "phone-a", online: true, owned: false)) == .refuse(bondedTo: "phone-a"))
        // Held through a reconnect (no link, still owned).
        #expect(BluetoothBondRule.decide(device: "phone-b", bond: .init(device: "phone-a", online: false, owned: true)) == .refuse(bondedTo: "phone-a"))
        #expect(BluetoothBondRule.decide(device: "phone-b", bond: .init(device: "phone-a", online: false, owned: false)) == .bond(rebonded: true))
    }

    @Test("a lost link keeps the owner while the device reconnects or said nothing; released when it said it does not reconnect")
    func linkEnd() {
        #expect(MobileLinkEndRule.keepsOwner(reconnecting: true))
        #expect(MobileLinkEndRule.keepsOwner(reconnecting: nil))
        #expect(!MobileLinkEndRule.keepsOwner(reconnecting: false))
    }
}
