@testable import GatewayService
import GatewayWire
import Testing

/// ConnectBluetoothReader's checks with the stores in memory: the serial, the device type,
/// the location, the bond.
@Suite("Local rules: ConnectBluetoothReader")
struct BluetoothConnectRuleTests {
    func connect(
        _ local: LocalSDK, _ token: String, serial: String = "WP3-0001", type: ReaderGatewayV1.DeviceType = .bbposWisepad3, location: String = "tml_a"
    ) async throws(ServiceError) -> ReaderGatewayV1.ConnectBluetoothReaderResponse {
        var request = ReaderGatewayV1.ConnectBluetoothReaderRequest()
        request.sessionToken = token
        request.serialNumber = serial
        request.deviceType = type
        request.locationID = location
        return try await local.sdk.mobile.connectBluetoothReader(request, local.context())
    }

    @Test func anEmptySerialIsAnInvalidRequest() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: [])
        let token = try await local.openSession()
        #expect(await failure { try await connect(local, token, serial: "  ") }?.reason == .invalidRequest)
    }

    @Test func aSmartReadersDeviceTypeIsAnInvalidRequest() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: [])
        let token = try await local.openSession()
        let error = await failure { try await connect(local, token, type: .bbposWiseposE) }
        #expect(error?.reason == .invalidRequest)
        #expect(error?.message.contains("is not a Bluetooth reader's") == true)
    }

    @Test func aBluetoothReaderNeedsALocation() async throws {
        let local = LocalSDK()
        let token = try await local.openSession()
        #expect(await failure { try await connect(local, token, location: "") }?.reason == .locationRequired)
    }

    @Test func theFirstDeviceBondsAndAnotherIsRefusedWhileTheReaderIsHeld() async throws {
        let local = LocalSDK()
        local.location("tml_a", readers: [])
        let first = try await local.openSession(device: "pos-1")
        let response = try await connect(local, first, serial: "wp3-0001")
        #expect(response.reader?.serialNumber == "WP3-0001")
        #expect(!response.readerCredential.isEmpty)
        #expect(!response.rebondedFromAnotherDevice)
        let id = try #require(response.reader?.id)
        local.store.tables.withLock { $0.readers[id]?.online = true }
        let second = try await local.openSession(device: "pos-2")
        #expect(await failure { try await connect(local, second) }?.reason == .bluetoothAlreadyPairedWithAnotherDevice)
    }
}
