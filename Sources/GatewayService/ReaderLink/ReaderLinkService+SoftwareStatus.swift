import GatewayDomain
import GatewayRegistry
import GatewayWire

extension ReaderLinkService {
    /// What a hello or heartbeat says about the reader's software and battery. Memory always
    /// has the latest; PostgreSQL gets a new version at once (it changes after an install,
    /// rarely) and a battery level only when ``SoftwareUpdateCatalog/linkReported(_:level:version:recorded:)``
    /// says it is worth a write — never one write per heartbeat. `batteryRecorded`: the attach
    /// already wrote this level (a hello's, with the link): counted as written, not written again.
    func softwareStatusReported(_ reader: ReaderID, linkID: LinkID, batteryLevel: Float?, version: String, batteryRecorded: Bool = false) {
        let (writeBattery, newVersion) = updates.linkReported(reader, level: batteryLevel, version: version, recorded: batteryRecorded)
        if newVersion, registry.softwareVersionReported(reader, link: linkID, version: version) {
            Task {
                await followUp("recording a reader's new software version", leaves: "admins see the older version until its next attach") {
                    try await readerRecords.readerReported(reader.rawValue, softwareVersion: version, deviceType: .unspecified)
                }
            }
        }
        if writeBattery {
            // On a task: the heartbeat path never waits for the store. One write per reader at
            // a time, the latest level reported meanwhile after it: two in flight could commit
            // the older level last.
            Task {
                var level = batteryLevel
                while true {
                    await followUp("recording a reader's battery level", leaves: "the fleet view shows an older level while the reader is offline") {
                        try await updates.store.recordBattery(reader: reader.rawValue, level: level)
                    }
                    guard let next = updates.batteryWritten(reader) else { return }
                    level = next
                }
            }
        }
    }
}
