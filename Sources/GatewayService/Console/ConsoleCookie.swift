import GatewayWebSocket

/// The fleet console's session cookie: `rg_console=<token>; Path=/; HttpOnly; Secure;
/// SameSite=Strict`. HttpOnly keeps it from page scripts, Secure from plain HTTP, and
/// SameSite=Strict from requests another site starts (the first line of CSRF defence; the
/// CSRF token is the second).
enum ConsoleCookie {
    static let name = "rg_console"
    /// How long a console session lasts after sign-in.
    static let lifetime: Duration = .seconds(8 * 3600)

    /// The session token in a `Cookie` header, if it carries one that looks like ours.
    static func token(inCookieHeader header: String) -> String? {
        for pair in header.split(separator: ";") {
            let trimmed = pair.drop { $0 == " " }
            guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
            let value = trimmed[trimmed.index(after: equals)...]
            guard value.hasPrefix("cs_"), value.count <= 64, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else { return nil }
            return String(value)
        }
        return nil
    }

    /// The session token an upgrade's cookie carries, honoured only when the page is the
    /// gateway's own (its `Origin` is `https://<Host>`): a point-of-sale page on the origin
    /// allow-list that shares the gateway's site would otherwise send the console's cookie
    /// along and read the fleet with it.
    static func token(in upgrade: WebSocketUpgrade) -> String? {
        guard let origin = upgrade.origin, origin.lowercased() == "https://" + upgrade.host.lowercased(), let cookie = upgrade.cookie else { return nil }
        return token(inCookieHeader: cookie)
    }

    /// The `Set-Cookie` value that signs a browser in.
    static func setting(_ token: String) -> String {
        "\(name)=\(token); Path=/; Max-Age=\(lifetime.components.seconds); HttpOnly; Secure; SameSite=Strict"
    }

    /// The `Set-Cookie` value that signs a browser out.
    static let clearing = "\(name)=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict"
}
