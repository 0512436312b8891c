/// `HOST:PORT`, `[::1]:PORT` or `HOST` (default port) as a host and port.
public struct GatewayAddress: Sendable, Hashable, CustomStringConvertible {
    /// The gateway's default TLS port.
    public static let defaultPort = 7443

    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `127.0.0.1:7443`, `[::1]:7443`, `localhost`; nil when malformed.
    public init?(parsing text: String) {
        var host = text
        var port = Self.defaultPort
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let parsed = Int(rest.dropFirst()) else { return nil }
                port = parsed
            }
        } else if let colon = text.lastIndex(of: ":"), text.filter({ $0 == ":" }).count == 1 {
            host = String(text[..<colon])
            guard let parsed = Int(text[text.index(after: colon)...]) else { return nil }
            port = parsed
        }
        guard !host.isEmpty, (1...65_535).contains(port) else { return nil }
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
