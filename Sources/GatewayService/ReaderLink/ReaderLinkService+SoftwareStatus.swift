import GatewayDomain
import GatewayRegistry
import GatewayWire

extension ReaderLinkService {
    /// What a heartbeat says about the reader's software and battery. Memory always has the
    /// latest; PostgreSQL gets a new version at once (it changes after an install, rarely) and
    /// a battery level only when ``SoftwareUpdateCatalog/batteryReported(_:level:)`` says it is
    /// worth a write — never one write per heartbeat.
    func softwareStatusReported(_ heartbeat: ReaderGatewayV1.ReaderHeartbeat, reader: ReaderID, linkID: LinkID) {
        let version = heartbeat.softwareVersion
        if !version.isEmpty, registry.update({ $0.softwareVersionReported(reader, link: linkID, version: version) }) {
            Task {
                await followUp("recording a reader's new software version", leaves: "admins see the older version until its next attach") {
                    try await database.readerReported(reader.rawValue, softwareVersion: version, deviceType: .unspecified)
                }
            }
        }
        batteryReported(reader, level: heartbeat.batteryLevel)
    }

    /// Records the battery level when the throttle says so (on a task: the heartbeat path never waits for the store).
    func batteryReported(_ reader: ReaderID, level: Float?) {
        guard updates.batteryReported(reader, level: level) else { return }
        Task {
            await followUp("recording a reader's battery level", leaves: "the fleet view shows an older level while the reader is offline") {
                try await updates.store.recordBattery(reader: reader.rawValue, level: level)
            }
        }
    }
}
