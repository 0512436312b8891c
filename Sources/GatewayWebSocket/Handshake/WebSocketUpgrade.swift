/// An accepted upgrade request: what the connection handler may log or route on.
public struct WebSocketUpgrade: Sendable, Hashable {
    /// The request target as sent (path and query).
    public var target: String
    /// The `Host` header.
    public var host: String
    /// The `Origin` header, nil for clients that are not browsers.
    public var origin: String?
    /// The selected subprotocol (named in the 101 response).
    public var subprotocol: String
    /// The `Sec-WebSocket-Key` as sent (base64 of 16 bytes).
    public var key: String
    /// The `Cookie` header (several joined with `; `), nil when none was sent: the fleet
    /// console's session cookie authorises the connection's admin calls.
    public var cookie: String? = nil
    /// The `User-Agent` header, nil when none was sent: the audit log names the fleet
    /// console's browser by it.
    public var userAgent: String? = nil
}

/// Why an upgrade request was refused, with the HTTP status it is answered with.
public struct WebSocketHandshakeRejection: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case malformedRequest, methodNotAllowed, versionNotSupported, notFound, headTooLarge, tooManyHeaders
        case notAnUpgrade, connectionNotUpgrade, missingVersion, unsupportedVersion, badKey, missingHost
        case originNotAllowed, subprotocolNotOffered
    }

    private let code: Code
    /// What was wrong and what to do, also the body of the response.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The request line or a header line is not HTTP/1.1 syntax (400).
    public static func malformedRequest(_ detail: String) -> Self { Self(.malformedRequest, "malformed HTTP request: \(detail)") }
    /// A method other than GET (405, `Allow: GET`).
    public static let methodNotAllowed = Self(.methodNotAllowed, "a WebSocket upgrade is a GET request")
    /// An HTTP version other than 1.1 (505).
    public static let versionNotSupported = Self(.versionNotSupported, "a WebSocket upgrade needs HTTP/1.1")
    /// A path other than the configured one (404).
    public static func notFound(_ path: String) -> Self { Self(.notFound, "no WebSocket endpoint at \(path)") }
    /// A request head over the configured byte limit (431).
    public static let headTooLarge = Self(.headTooLarge, "request header too large")
    /// More header fields than the configured limit (431).
    public static let tooManyHeaders = Self(.tooManyHeaders, "too many header fields")
    /// No `Upgrade: websocket` (426, `Upgrade: websocket`).
    public static let notAnUpgrade = Self(.notAnUpgrade, "this endpoint speaks WebSocket only: send Upgrade: websocket")
    /// `Connection` lacks the `upgrade` token (400).
    public static let connectionNotUpgrade = Self(.connectionNotUpgrade, "the Connection header must include the token upgrade")
    /// No `Sec-WebSocket-Version` (426, `Sec-WebSocket-Version: 13`).
    public static let missingVersion = Self(.missingVersion, "Sec-WebSocket-Version is missing: this server speaks version 13")
    /// A `Sec-WebSocket-Version` other than 13 (426, `Sec-WebSocket-Version: 13`).
    public static let unsupportedVersion = Self(.unsupportedVersion, "unsupported Sec-WebSocket-Version: this server speaks version 13")
    /// `Sec-WebSocket-Key` missing, repeated, or not base64 of 16 bytes (400).
    public static let badKey = Self(.badKey, "Sec-WebSocket-Key must be the base64 of 16 random bytes, sent once")
    /// No `Host`, or more than one (400).
    public static let missingHost = Self(.missingHost, "an HTTP/1.1 request carries exactly one Host header")
    /// An `Origin` not on the allow-list (403).
    public static func originNotAllowed(_ origin: String) -> Self {
        Self(.originNotAllowed, "origin \(origin) is not allowed: add it to the gateway's WebSocket origin allow-list")
    }
    /// The client did not offer the subprotocol (400).
    public static func subprotocolNotOffered(_ subprotocol: String) -> Self {
        Self(.subprotocolNotOffered, "offer the subprotocol \(subprotocol) in Sec-WebSocket-Protocol")
    }

    /// The HTTP status code of the response.
    /// The refusal's kind for metrics: `origin`, `path`, `method`, `upgrade`, `subprotocol`, `malformed`.
    public var kind: String {
        switch code {
        case .originNotAllowed: "origin"
        case .notFound: "path"
        case .methodNotAllowed, .versionNotSupported: "method"
        case .notAnUpgrade, .connectionNotUpgrade, .missingVersion, .unsupportedVersion, .badKey, .missingHost: "upgrade"
        case .subprotocolNotOffered: "subprotocol"
        case .malformedRequest, .headTooLarge, .tooManyHeaders: "malformed"
        }
    }

    public var status: Int {
        switch code {
        case .malformedRequest, .connectionNotUpgrade, .badKey, .missingHost, .subprotocolNotOffered: 400
        case .originNotAllowed: 403
        case .notFound: 404
        case .methodNotAllowed: 405
        case .notAnUpgrade, .missingVersion, .unsupportedVersion: 426
        case .headTooLarge, .tooManyHeaders: 431
        case .versionNotSupported: 505
        }
    }

    /// Header fields the response must carry beside the standard ones.
    public var extraHeaders: [(String, String)] {
        switch code {
        case .methodNotAllowed: [("Allow", "GET")]
        case .notAnUpgrade: [("Upgrade", "websocket"), ("Connection", "Upgrade")]
        case .missingVersion, .unsupportedVersion: [("Sec-WebSocket-Version", "13")]
        default: []
        }
    }

    public var description: String { "\(status): \(message)" }
}
