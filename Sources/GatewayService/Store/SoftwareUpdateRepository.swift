import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import GatewayWire

/// Software update catalogs, install windows and what readers reported: PostgreSQL's
/// ``SoftwareUpdateStore`` in the gateway.
protocol SoftwareUpdateRepository: Sendable {
    func catalog(account: String, deviceType: ReaderGatewayV1.DeviceType) async throws(StoreError) -> [ReaderGatewayV1.ReaderSoftwareUpdate]
    /// True when it replaced an entry; `audit` written in the statement, its detail led by `added` or `replaced`.
    func add(_ update: ReaderGatewayV1.ReaderSoftwareUpdate, account: String, audit: AuditEntry?) async throws(StoreError) -> Bool
    /// False when there was no such entry (and `audit` is not written).
    func remove(deviceType: ReaderGatewayV1.DeviceType, version: String, account: String, audit: AuditEntry?) async throws(StoreError) -> Bool
    func installWindows(account: String, locations: [String]) async throws(StoreError) -> [String: InstallWindow]
    func setInstallWindow(_ window: InstallWindow?, location: String, account: String) async throws(StoreError) -> Bool
    func ranLatestAt(reader: String, location: String) async throws(StoreError) -> Int64?
    func recordRanLatest(reader: String, location: String, atMs: Int64) async throws(StoreError)
    func recordBattery(reader: String, level: Float?) async throws(StoreError)
    func batteryLevels(readers: [String]) async throws(StoreError) -> [String: Float]
}

extension SoftwareUpdateStore: SoftwareUpdateRepository {}
