/// The readable text of a message's `description`, as the generated code builds it:
/// `Reader(id: "tmr_1", label: "Lane 1", networkStatus: NETWORK_STATUS_ONLINE)`.
///
/// Fields at their default (empty, zero, false, absent) are left out, as protobuf's text
/// format leaves them out; bytes print as their count, never their content; a secret
/// (a session, resume or connection token, an API key's secret, a reader credential, a
/// registration code) prints as `<redacted>` when set, so printing or logging a message
/// never leaks one. The generator decides which fields are secrets (`SECRET_FIELDS` in
/// proto/tools/generate_swift.py).
public struct ProtobufDescription {
    /// The message's short name (`Reader`), without its package.
    private let name: String
    private var fields: [String] = []

    /// What a secret prints as, whatever its value.
    public static let redacted = "<redacted>"

    public init(_ protoMessageName: String) {
        name = String(protoMessageName.split(separator: ".").last ?? Substring(protoMessageName))
    }

    /// `Name(field: value, ...)`.
    public var text: String { "\(name)(\(fields.joined(separator: ", ")))" }

    /// A string field, quoted; left out when empty.
    public mutating func string(_ field: String, _ value: String) {
        if !value.isEmpty { fields.append("\(field): \(value.debugDescription)") }
    }

    /// A secret string field: `<redacted>` when set, left out when empty.
    public mutating func secret(_ field: String, _ value: String) {
        if !value.isEmpty { fields.append("\(field): \(Self.redacted)") }
    }

    /// A bytes field: its length only.
    public mutating func bytes(_ field: String, _ value: [UInt8]) {
        if !value.isEmpty { fields.append("\(field): \(value.count) bytes") }
    }

    /// A number, bool or enum field; left out when `isDefault`.
    public mutating func value(_ field: String, _ value: some CustomStringConvertible, isDefault: Bool) {
        if !isDefault { fields.append("\(field): \(value)") }
    }

    /// A message field; left out when absent.
    public mutating func message(_ field: String, _ value: (some ProtobufMessage)?) {
        if let value { fields.append("\(field): \(value.description)") }
    }

    /// A repeated message field; left out when empty.
    public mutating func messages(_ field: String, _ values: [some ProtobufMessage]) {
        if !values.isEmpty { fields.append("\(field): [\(values.map(\.description).joined(separator: ", "))]") }
    }

    /// A repeated string field; left out when empty.
    public mutating func strings(_ field: String, _ values: [String]) {
        if !values.isEmpty { fields.append("\(field): [\(values.map(\.debugDescription).joined(separator: ", "))]") }
    }

    /// A repeated number, bool or enum field; left out when empty.
    public mutating func values(_ field: String, _ values: [some CustomStringConvertible]) {
        if !values.isEmpty { fields.append("\(field): [\(values.map(\.description).joined(separator: ", "))]") }
    }

    /// Fields this version does not know: their size only.
    public mutating func unknown(_ bytes: [UInt8]) {
        if !bytes.isEmpty { fields.append("unknownFields: \(bytes.count) bytes") }
    }
}
