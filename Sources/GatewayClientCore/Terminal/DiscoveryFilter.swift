import GatewayWire

/// One reader to discover (Stripe's `DiscoveryFilter`), for
/// ``TerminalClient/discoverReaders(locationID:filter:timeout:simulated:)`` and
/// ``TerminalClient/easyConnect(locationID:filter:failIfInUse:)``.
public enum DiscoveryFilter: Sendable, Hashable {
    /// The reader's id (`tmr_…`).
    case readerID(String)
    /// The serial number printed on the reader.
    case serialNumber(String)

    /// Whether `reader` is the one named.
    func names(_ reader: ReaderGatewayV1.Reader) -> Bool {
        switch self {
        case .readerID(let id): reader.id == id
        case .serialNumber(let serial): reader.serialNumber == serial
        }
    }

    /// The filter as the wire carries it.
    var message: ReaderGatewayV1.DiscoveryFilter {
        var filter = ReaderGatewayV1.DiscoveryFilter()
        switch self {
        case .readerID(let id): filter.readerID = id
        case .serialNumber(let serial): filter.serialNumber = serial
        }
        return filter
    }
}
