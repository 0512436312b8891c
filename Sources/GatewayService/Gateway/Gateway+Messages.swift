import Foundation
import GatewayDomain
import GatewayRegistry
import GatewayRepositories
import GatewayWire

/// Messages every surface builds the same way: readers, locations, commands on the
/// reader link, discovery ids, the wall clock in milliseconds.
extension Gateway {

    /// A discovery id as the wire carries it (`disc_7`).
    static func wireDiscoveryID(_ id: DiscoveryStateMachine.DiscoveryID) -> String { "disc_\(id.value)" }

    /// The discovery a wire id names; nil when this gateway never issues such an id.
    static func discoveryID(_ text: String) -> DiscoveryStateMachine.DiscoveryID? {
        guard text.hasPrefix("disc_"), let value = UInt64(text.dropFirst(5)) else { return nil }
        return DiscoveryStateMachine.DiscoveryID(value)
    }

    /// A reader as the store describes it, without its live status.
    static func describedReader(_ record: ReaderRecord) -> ReaderGatewayV1.Reader {
        var reader = ReaderGatewayV1.Reader()
        reader.id = record.id
        reader.serialNumber = record.serial
        reader.label = record.label
        reader.deviceType = record.deviceType
        reader.softwareVersion = record.softwareVersion
        reader.locationID = record.locationID ?? ""
        reader.simulated = record.deviceType == .simulatedWiseposE
        if let lastSeen = record.lastSeen { reader.lastSeenUnixMs = Int64(lastSeen.timeIntervalSince1970 * 1000) }
        return reader
    }

    /// A reader as discovery and the admin surface show it, live status from its link here.
    static func readerMessage(at clock: any ServiceClock, _ record: ReaderRecord, link: LinkStatus?) -> ReaderGatewayV1.Reader {
        let reader = describedReader(record)
        if let link { return link.render(reader, nowUnixMs: clock.nowUnixMs) }
        var offline = reader
        // No link here: online when another replica holds its link.
        offline.networkStatus = record.online ? .online : .offline
        return offline
    }

    static func downlink(
        _ command: ReaderGatewayV1.ReaderCommand.Command, id: UInt64, session: SessionID, timeout: Duration
    ) -> ReaderGatewayV1.ReaderDownlink {
        var message = downlinkCommand(command, session: session, timeout: timeout)
        message.commandID = id
        var downlink = ReaderGatewayV1.ReaderDownlink()
        downlink.message = .command(message)
        return downlink
    }

    /// The command as the reader link carries it (its id is set by the link's replica).
    static func downlinkCommand(
        _ command: ReaderGatewayV1.ReaderCommand.Command, session: SessionID, timeout: Duration
    ) -> ReaderGatewayV1.ReaderCommand {
        var message = ReaderGatewayV1.ReaderCommand()
        message.timeoutMs = Int64(timeout.seconds * 1000)
        message.sessionID = session.rawValue
        message.command = command
        return message
    }

    static func locationMessage(_ record: LocationRecord) -> ReaderGatewayV1.Location {
        var location = ReaderGatewayV1.Location()
        location.id = record.id
        location.displayName = record.displayName
        location.address = record.address
        return location
    }
}
