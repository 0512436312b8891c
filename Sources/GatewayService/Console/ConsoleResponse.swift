/// An HTTP/1.1 response of the fleet console, with the headers every one of them carries:
/// nothing cached, no sniffing, no framing by other sites, no referrer, and the connection
/// closes after it.
struct ConsoleResponse: Sendable {
    var status: Int
    var contentType: String
    var body: [UInt8]
    var headers: [(String, String)] = []

    /// The console's Content-Security-Policy: scripts, styles and connections only from the
    /// gateway itself (its WebSocket included), no inline script or style, no plugins, no
    /// framing, forms only to the gateway.
    static func contentSecurityPolicy(host: String) -> String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self' wss://\(host); "
            + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    }

    static func text(status: Int, _ text: String) -> ConsoleResponse {
        ConsoleResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    /// A JSON object of string, number and boolean values (the session endpoints' answers).
    static func json(status: Int, _ fields: [(String, JSONScalar)]) -> ConsoleResponse {
        let members = fields.map { "\(JSONScalar.string($0.0).encoded):\($0.1.encoded)" }
        return ConsoleResponse(status: status, contentType: "application/json", body: Array(("{" + members.joined(separator: ",") + "}").utf8))
    }

    var bytes: [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
        head += "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\nReferrer-Policy: no-referrer\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 303: "See Other"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Error"
        }
    }
}

/// A JSON scalar for ``ConsoleResponse/json(status:_:)``.
enum JSONScalar: Sendable {
    case string(String)
    case number(Int64)
    case bool(Bool)

    var encoded: String {
        switch self {
        case .number(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .string(let value):
            var out = "\""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "<": out += "\\u003c"
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
            return out + "\""
        }
    }
}
