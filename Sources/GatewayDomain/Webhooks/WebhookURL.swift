/// A webhook endpoint's URL, parsed: `https://host[:port][/path][?query]`.
///
/// Only `https` is accepted: deliveries carry the fleet's events and a signature, and go over
/// TLS with the certificate and the host name verified. No user-info (`user@`), no fragment.
public struct WebhookURL: Sendable, Hashable {
    /// The host as written (a name, an IPv4 address, or an IPv6 address without brackets).
    public var host: String
    public var port: Int
    /// The path and query (`/` when none).
    public var target: String

    /// Parses `text`, or throws a sentence saying what is wrong.
    public init(_ text: String) throws(WebhookURLError) {
        guard text.count <= 2_048 else { throw WebhookURLError("the URL is longer than 2048 characters") }
        guard text.lowercased().hasPrefix("https://") else {
            throw WebhookURLError("\"\(text)\" is not an https:// URL; webhooks are delivered over TLS only")
        }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7f }) else {
            throw WebhookURLError("the URL contains spaces, control or non-ASCII characters; percent-encode them")
        }
        let rest = text.dropFirst("https://".count)
        guard !rest.contains("#") else { throw WebhookURLError("the URL has a fragment (#...); remove it") }
        let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[rest.startIndex..<slash]
        var target = String(rest[slash...])
        if target.isEmpty { target = "/" } else if target.hasPrefix("?") { target = "/" + target }
        guard !authority.contains("@") else { throw WebhookURLError("the URL names a user (user@host); credentials do not belong in it") }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw WebhookURLError("the IPv6 address in the URL has no closing ]") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw WebhookURLError("unexpected \"\(after)\" after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[authority.startIndex..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw WebhookURLError("the URL has no host") }
        var port = 443
        if let portText {
            guard let value = Int(portText), (1...65_535).contains(value) else {
                throw WebhookURLError("\"\(portText)\" is not a port (1-65535)")
            }
            port = value
        }
        self.host = host.lowercased()
        self.port = port
        self.target = target
    }

    /// The `Host` header's value.
    public var hostHeader: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return port == 443 ? shown : "\(shown):\(port)"
    }
}

/// Why a webhook URL was refused: a sentence for the caller.
public struct WebhookURLError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
