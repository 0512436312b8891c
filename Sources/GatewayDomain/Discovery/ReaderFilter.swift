/// A discovery narrowed to one reader (Stripe's `DiscoveryFilter`): by its id or by the
/// serial number printed on it. Parsed from the two request fields, of which at most one
/// may be set; a discovery with a filter reads that reader alone, never the location.
public enum ReaderFilter: Hashable, Sendable, CustomStringConvertible {
    /// A reader id as the gateway issues them (`tmr_…`).
    case readerID(String)
    /// A serial number as registered (capital letters, digits and dashes).
    case serialNumber(String)

    /// The longest reader id a filter accepts.
    public static let maximumReaderIDLength = 64

    /// The filter the request's fields name; nil when both are empty (no filter).
    /// Both set, or one that cannot name any reader, is refused with a message saying which.
    public static func parse(readerID: String, serialNumber: String) throws(ReaderFilterError) -> ReaderFilter? {
        switch (readerID.isEmpty, serialNumber.isEmpty) {
        case (true, true):
            return nil
        case (false, false):
            throw ReaderFilterError(
                "the discovery filter names both reader_id \(readerID.debugDescription) and serial_number \(serialNumber.debugDescription); set exactly one of them"
            )
        case (false, true):
            let allowed = readerID.unicodeScalars.allSatisfy { scalar in
                (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9") || scalar == "_" || scalar == "-"
            }
            guard allowed, readerID.unicodeScalars.count <= maximumReaderIDLength else {
                throw ReaderFilterError(
                    "the discovery filter's reader_id \(readerID.debugDescription) is not a reader id: ids are 1 to \(maximumReaderIDLength) letters, digits, underscores or dashes (tmr_…), as DiscoverReaders and FleetAdmin show them"
                )
            }
            return .readerID(readerID)
        case (true, false):
            do {
                try SerialRegistrationRequest.validate(serial: serialNumber)
            } catch {
                throw ReaderFilterError(
                    "the discovery filter's serial_number \(serialNumber.debugDescription) is not a serial number: serials are 4 to 64 capital letters, digits or dashes, as printed on the reader"
                )
            }
            return .serialNumber(serialNumber)
        }
    }

    /// Whether a reader of the session's account, with this id and serial, is the one named.
    public func matches(id: String, serial: String) -> Bool {
        switch self {
        case .readerID(let wanted): wanted == id
        case .serialNumber(let wanted): wanted == serial
        }
    }

    public var description: String {
        switch self {
        case .readerID(let id): "reader_id \(id)"
        case .serialNumber(let serial): "serial_number \(serial)"
        }
    }
}

/// A discovery filter that names no reader it could: both fields set, or a malformed one.
public struct ReaderFilterError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong and what to send instead.
    public let message: String

    init(_ message: String) { self.message = message }

    public var description: String { message }
}
