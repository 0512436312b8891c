import Foundation
import GatewayDomain
import GatewayPostgres
import GatewayRepositories
@testable import GatewayService
import GatewayWire

/// Bluetooth registrations and bonds, decided by ``BluetoothBondRule`` as the store's transaction does.
extension InMemoryStore: BluetoothRepository {
    func connect(
        serial: String, deviceType: ReaderGatewayV1.DeviceType, softwareVersion: String, account: String, location: String,
        label: String, device: String, credential: String
    ) async throws(StoreError) -> BluetoothStore.ConnectOutcome {
        try run { tables in
            let existing = tables.readers.values.first { $0.serial == serial }
            if let existing, !existing.deviceType.isBluetoothReaderType || existing.accountID != account { return .serialTaken }
            let id = existing?.id ?? "tmr_bt_\(serial.lowercased())"
            let owned = tables.ownership[ReaderID(id)]?.owner != nil
            let bond = tables.bonds[id].map { BluetoothBondRule.Bond(device: $0, online: existing?.online ?? false, owned: owned) }
            switch BluetoothBondRule.decide(device: device, bond: bond) {
            case .refuse(let other):
                return .bondedElsewhere(device: other)
            case .bond(let rebonded):
                let record = ReaderRecord(
                    id: id, accountID: account, serial: serial, label: label, deviceType: deviceType, softwareVersion: softwareVersion,
                    locationID: location, lastSeen: nil, online: existing?.online ?? false
                )
                tables.readers[id] = record
                if tables.ownership[ReaderID(id)] == nil {
                    tables.ownership[ReaderID(id)] = ReaderOwnershipStateMachine(reader: ReaderID(id), link: .offline(LinkEpoch(0)))
                }
                tables.bonds[id] = device
                return .connected(record, rebonded: rebonded)
            }
        }
    }

    func bonds(of readers: [String]) async throws(StoreError) -> [String: String] {
        try run { tables in tables.bonds.filter { readers.contains($0.key) } }
    }
}

/// Tap to Pay's terms, admissions (``TapToPayAccountWindow`` per device), phone readers and device setups.
extension InMemoryStore: TapToPayRepository {
    var limit: Int { tapToPayLimit }

    func admit(device: String, account: String, now: Date?) async throws(StoreError) -> TapToPayAccountWindow.Admission {
        let nowMs = now.map { Int64($0.timeIntervalSince1970 * 1000) } ?? clock.nowUnixMs
        let limit = tapToPayLimit
        return try run { tables in
            var window = tables.tapToPayWindows[device] ?? TapToPayAccountWindow(limit: limit)
            let admission = window.admit(account, nowMs: nowMs)
            tables.tapToPayWindows[device] = window
            return admission
        }
    }

    func termsAccepted(account: String) async throws(StoreError) -> Bool {
        try run { tables in tables.tapToPayTerms.contains(account) }
    }

    func acceptTerms(account: String, device: String) async throws(StoreError) -> Bool {
        try run { tables in tables.tapToPayTerms.insert(account).inserted }
    }

    func registerReader(serial: String, account: String, location: String, label: String, credential: String) async throws(StoreError) -> ReaderRecord? {
        try run { tables in
            if let existing = tables.readers.values.first(where: { $0.serial == serial }) {
                return existing.accountID == account && existing.deviceType == .tapToPay ? existing : nil
            }
            let id = "tmr_ttp_\(serial.lowercased())"
            let record = ReaderRecord(
                id: id, accountID: account, serial: serial, label: label, deviceType: .tapToPay, softwareVersion: "", locationID: location, lastSeen: nil
            )
            tables.readers[id] = record
            tables.ownership[ReaderID(id)] = ReaderOwnershipStateMachine(reader: ReaderID(id), link: .offline(LinkEpoch(0)))
            return record
        }
    }

    func deviceSetup(device: String) async throws(StoreError) -> TapToPayDeviceSetupRule.Setup? {
        try run { tables in tables.deviceSetups[device]?.setup }
    }

    func recordDeviceSetup(device: String, _ setup: TapToPayDeviceSetupRule.Setup) async throws(StoreError) -> Int64 {
        let now = clock.nowUnixMs
        return try run { tables in
            tables.deviceSetups[device] = (setup, now)
            return now
        }
    }
}

/// Software update catalogs per account, install windows per location, what readers reported.
extension InMemoryStore: SoftwareUpdateRepository {
    func catalog(account: String, deviceType: ReaderGatewayV1.DeviceType) async throws(StoreError) -> [ReaderGatewayV1.ReaderSoftwareUpdate] {
        try run { tables in (tables.catalogs[account] ?? []).filter { deviceType == .unspecified || $0.deviceType == deviceType } }
    }

    func add(_ update: ReaderGatewayV1.ReaderSoftwareUpdate, account: String, audit: AuditEntry?) async throws(StoreError) -> Bool {
        let at = clock.nowUnixMs
        return try run { tables in
            var catalog = tables.catalogs[account] ?? []
            let fresh = !catalog.contains { $0.deviceType == update.deviceType && $0.version == update.version }
            catalog.removeAll { $0.deviceType == update.deviceType && $0.version == update.version }
            catalog.append(update)
            tables.catalogs[account] = catalog
            if var audit {
                audit.detail = (fresh ? "added " : "replaced ") + audit.detail
                _ = tables.appendAudit(audit, atUnixMs: at)
            }
            return !fresh
        }
    }

    func remove(deviceType: ReaderGatewayV1.DeviceType, version: String, account: String, audit: AuditEntry?) async throws(StoreError) -> Bool {
        let at = clock.nowUnixMs
        return try run { tables in
            let before = tables.catalogs[account]?.count ?? 0
            tables.catalogs[account]?.removeAll { $0.deviceType == deviceType && $0.version == version }
            let removed = (tables.catalogs[account]?.count ?? 0) < before
            if removed, let audit { _ = tables.appendAudit(audit, atUnixMs: at) }
            return removed
        }
    }

    func installWindows(account: String, locations: [String]) async throws(StoreError) -> [String: InstallWindow] {
        try run { tables in tables.installWindows.filter { locations.contains($0.key) } }
    }

    func setInstallWindow(_ window: InstallWindow?, location: String, account: String) async throws(StoreError) -> Bool {
        try run { tables in
            guard tables.locations[location]?.account == account else { return false }
            tables.installWindows[location] = window
            return true
        }
    }

    func ranLatestAt(reader: String, location: String) async throws(StoreError) -> Int64? {
        try run { tables in tables.ranLatest[reader].flatMap { $0.location == location ? $0.atMs : nil } }
    }

    func recordRanLatest(reader: String, location: String, atMs: Int64) async throws(StoreError) {
        try run { tables in
            if let kept = tables.ranLatest[reader], kept.location == location { return }
            tables.ranLatest[reader] = (location, atMs)
        }
    }

    func recordBattery(reader: String, level: Float?) async throws(StoreError) {
        try run { tables in tables.batteries[reader] = level }
    }

    func batteryLevels(readers: [String]) async throws(StoreError) -> [String: Float] {
        try run { tables in tables.batteries.filter { readers.contains($0.key) } }
    }
}
