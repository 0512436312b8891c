/// A complete HTTP/1.1 request to the gateway's own pages (the fleet console): method,
/// path, query, header fields (names lower-cased) and body.
public struct HTTPRequest: Sendable, Hashable {
    public var method: String
    /// The path without the query.
    public var path: String
    /// The query without its `?` (empty when none).
    public var query: String
    public var fields: [HTTPField]
    public var body: [UInt8]

    public init(method: String, path: String, query: String = "", fields: [HTTPField] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.fields = fields
        self.body = body
    }

    /// The first value of the header field `name` (lower case), if any.
    public func value(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }
}

/// One header field: its name in lower case and its value without surrounding whitespace.
public struct HTTPField: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A request the parser refused, with the status to answer and why.
public struct HTTPRequestError: Error, Sendable, Hashable {
    public var status: Int
    public var message: String

    public init(status: Int, message: String) {
        self.status = status
        self.message = message
    }
}
