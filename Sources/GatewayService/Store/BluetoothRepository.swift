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

/// Why mobile readers' links ended, for their ownership history: PostgreSQL's
/// ``BluetoothStore`` in the gateway.
protocol MobileLinkEndings: Sendable {
    func recordLinkEnding(reader: String, reason: ReaderGatewayV1.MobileDisconnectReason, reconnecting: Bool, at: Date) async throws(StoreError)
    /// The reader's latest link endings, newest first.
    func linkEndings(reader: String, limit: Int) async throws(StoreError) -> [BluetoothStore.LinkEnding]
}

extension BluetoothStore: MobileLinkEndings {}
