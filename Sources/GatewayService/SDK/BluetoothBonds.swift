import GatewayRepositories

/// A Bluetooth reader talks to the point-of-sale device it is bonded to: discovery hides it
/// from other devices (BLE: a bonded reader stops advertising), and a connect from another
/// device is refused with BLUETOOTH_ALREADY_PAIRED_WITH_ANOTHER_DEVICE.
struct BluetoothBonds: Sendable {
    let bluetooth: any BluetoothRepository

    /// BLUETOOTH_ALREADY_PAIRED_WITH_ANOTHER_DEVICE for `reader`.
    static func pairedWithAnotherDevice(_ reader: String) -> ServiceError {
        ServiceError(
            .bluetoothAlreadyPairedWithAnotherDevice,
            "Bluetooth reader \(reader) is connected to another point-of-sale device (or held by it while it reconnects); disconnect it there, or wait until that device gives it up"
        )
    }

    /// Bluetooth readers bonded to another device than `device` are hidden from its discovery.
    func withoutForeignBluetoothReaders(_ records: [ReaderRecord], device: String) async throws(ServiceError) -> [ReaderRecord] {
        let bluetoothIDs = records.filter { $0.deviceType.isBluetoothReaderType }.map(\.id)
        guard !bluetoothIDs.isEmpty else { return records }
        let bonds: [String: String]
        do { bonds = try await bluetooth.bonds(of: bluetoothIDs) } catch { throw ServiceError.store(error) }
        return records.filter { !$0.deviceType.isBluetoothReaderType || bonds[$0.id] == device }
    }

    /// The precise refusal of a ConnectReader naming a Bluetooth reader that another device
    /// holds (nil: not such a reader).
    func foreignBluetoothRefusal(_ record: ReaderRecord, device: String) async throws(ServiceError) -> ServiceError? {
        guard record.deviceType.isBluetoothReaderType else { return nil }
        let bonds: [String: String]
        do { bonds = try await bluetooth.bonds(of: [record.id]) } catch { throw ServiceError.store(error) }
        guard let bonded = bonds[record.id], bonded != device else { return nil }
        return Self.pairedWithAnotherDevice(record.id)
    }
}
