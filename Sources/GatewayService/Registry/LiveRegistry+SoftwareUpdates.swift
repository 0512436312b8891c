import GatewayDomain
import GatewayRegistry
import GatewayWire

extension LiveRegistry {
    /// A link reported its software version: true when it changed.
    func softwareVersionReported(_ reader: ReaderID, link: LinkID, version: String) -> Bool {
        guard case .flag(let changed) = handle(.softwareVersionReported(reader, link: link, version: version)) else { return false }
        return changed
    }

    /// A software update event for the reader's owner here, if it has one.
    func softwareUpdateEvent(_ reader: ReaderID, _ event: ReaderGatewayV1.SessionEvent.Event, nowUnixMs: Int64) {
        handle(.softwareUpdateEvent(reader, event, nowUnixMs: nowUnixMs))
    }

    /// The account's readers of `deviceType` owned here, linked here and idle.
    func idleOwnedReaders(account: String, deviceType: ReaderGatewayV1.DeviceType) -> [(reader: ReaderID, status: LinkStatus, location: String)] {
        guard case .idleReaders(let readers) = handle(.idleOwnedReadersAsked(account: account, deviceType: deviceType)) else { return [] }
        return readers
    }
}
