/// A bulk registration by serial numbers: "one or many serials, separated by
/// commas", each named from an optional label prefix ("Lane 1", "Lane 2", …
/// in the order given), as Stripe's dashboard does for several readers.
public struct SerialRegistrationRequest: Hashable, Sendable {
    /// The most serials one request may register.
    public static let maximumCount = 500
    /// The longest label, in characters.
    public static let maximumLabelLength = 100

    /// One reader to register.
    public struct Entry: Hashable, Sendable {
        /// The serial, upper-cased, as the reader's certificate states it.
        public let serial: String
        /// The label, or nil when none was given.
        public let label: String?
    }

    public let entries: [Entry]

    /// Parses `serials` (comma- or whitespace-separated) and names them.
    ///
    /// With one serial the label is used as is; with several it is a prefix
    /// and readers are numbered from 1 in the order given.
    public init(serials: String, labelPrefix: String?) throws(RegistrationError) {
        let parts = serials.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
        try self.init(serials: parts, labelPrefix: labelPrefix)
    }

    public init(serials: [String], labelPrefix: String?) throws(RegistrationError) {
        let cleaned = serials.map { $0.trimmingWhitespace().uppercased() }.filter { !$0.isEmpty }
        guard !cleaned.isEmpty else {
            throw RegistrationError(code: .noSerials, message: "no serial numbers given: send one or more serials separated by commas")
        }
        guard cleaned.count <= Self.maximumCount else {
            throw RegistrationError(code: .tooManySerials, message: "\(cleaned.count) serial numbers in one request: register at most \(Self.maximumCount) at a time")
        }
        var seen = Set<String>()
        for serial in cleaned {
            try Self.validate(serial: serial)
            guard seen.insert(serial).inserted else {
                throw RegistrationError(code: .duplicateSerial, message: "serial number \(serial) appears twice: list each reader once")
            }
        }
        var prefix: String?
        if let labelPrefix {
            let trimmed = labelPrefix.trimmingWhitespace()
            guard !trimmed.isEmpty, trimmed.count <= Self.maximumLabelLength, !trimmed.contains(where: \.isNewline) else {
                throw RegistrationError(code: .malformedLabel, message: "label \(labelPrefix.debugDescription) is not valid: use 1 to \(Self.maximumLabelLength) characters on one line, or no label")
            }
            prefix = trimmed
        }
        if cleaned.count == 1 {
            entries = [Entry(serial: cleaned[0], label: prefix)]
        } else {
            entries = cleaned.enumerated().map { index, serial in
                Entry(serial: serial, label: prefix.map { "\($0) \(index + 1)" })
            }
        }
    }

    /// Serials are 4 to 64 characters of letters, digits and dashes (e.g.
    /// `WSC513105011295`, `STRM26138003393`).
    public static func validate(serial: String) throws(RegistrationError) {
        let allowed = serial.unicodeScalars.allSatisfy { scalar in
            (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9") || scalar == "-"
        }
        guard allowed, (4...64).contains(serial.count) else {
            throw RegistrationError(code: .malformedSerial, message: "serial number \(serial.debugDescription) is not valid: serials are 4 to 64 letters, digits or dashes, as printed on the reader")
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
