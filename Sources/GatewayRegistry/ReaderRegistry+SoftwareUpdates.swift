import GatewayDomain
import GatewayWire

extension ReaderRegistry {
    /// The reader reported the software version it runs now (after an install): the link's
    /// status follows. True when it changed (the caller records it in the store).
    public mutating func softwareVersionReported(_ reader: ReaderID, link: LinkID, version: String) -> Bool {
        guard !version.isEmpty, let index = links.index(forKey: reader), links.values[index].id == link,
              links.values[index].status.softwareVersion != version
        else { return false }
        links.values[index].status.softwareVersion = version
        links.values[index].described.softwareVersion = version
        return true
    }

    /// A software update event (available, started) for the session here that owns `reader`;
    /// nil when no session here owns it.
    public mutating func softwareUpdateEvent(
        _ reader: ReaderID, _ event: ReaderGatewayV1.SessionEvent.Event, nowUnixMs: Int64
    ) -> RegistryAction? {
        guard let owner = owner(of: reader) else { return nil }
        return deliver(.softwareUpdate(event), toSessionAt: owner.token, nowUnixMs: nowUnixMs)
    }

    /// Readers of `deviceType` linked here and owned by a session here of `account`, not in a
    /// payment: those to tell of a catalog change (a reader mid-payment hears at its next connect).
    public func idleOwnedReaders(account: String, deviceType: ReaderGatewayV1.DeviceType) -> [(reader: ReaderID, status: LinkStatus, location: String)] {
        var found: [(reader: ReaderID, status: LinkStatus, location: String)] = []
        for reader in holders.keys {
            guard let link = links[reader], link.described.deviceType == deviceType,
                  link.status.activity != .collecting, link.status.activity != .confirming,
                  let owner = owner(of: reader), owner.accountID == account
            else { continue }
            found.append((reader, link.status, link.described.locationID))
        }
        return found
    }
}
