import Foundation
import GatewayPostgres
import GatewayRepositories
import GatewayWire

/// Bluetooth readers' registrations and bonds to point-of-sale devices: PostgreSQL's
/// ``BluetoothStore`` in the gateway.
protocol BluetoothRepository: Sendable {
    /// Registers (or finds) the reader with `serial` and bonds it to `device`.
    func connect(
        serial: String, deviceType: ReaderGatewayV1.DeviceType, softwareVersion: String, account: String, location: String,
        label: String, device: String, credential: String
    ) async throws(StoreError) -> BluetoothStore.ConnectOutcome
    /// The device each of `readers` is bonded to (readers without a bond are left out).
    func bonds(of readers: [String]) async throws(StoreError) -> [String: String]
}

extension BluetoothStore: BluetoothRepository {}
