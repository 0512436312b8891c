extension JSONValue {
    /// The document on one line, keys sorted (one object per line for streams: `gatewayctl --json watch`).
    public var compact: String {
        switch self {
        case .null, .bool, .number, .integer, .string: return description
        case .array(let values): return "[" + values.map(\.compact).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.keys.sorted().map { Self.quote($0) + ":" + members[$0]!.compact }.joined(separator: ",") + "}"
        }
    }
}
