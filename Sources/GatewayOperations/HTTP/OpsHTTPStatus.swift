/// The HTTP statuses the ops endpoint answers with.
public struct OpsHTTPStatus: Sendable, Equatable, CustomStringConvertible {
    public let code: Int
    public let reason: String

    public static let ok = OpsHTTPStatus(code: 200, reason: "OK")
    public static let badRequest = OpsHTTPStatus(code: 400, reason: "Bad Request")
    public static let notFound = OpsHTTPStatus(code: 404, reason: "Not Found")
    public static let methodNotAllowed = OpsHTTPStatus(code: 405, reason: "Method Not Allowed")
    public static let requestTimeout = OpsHTTPStatus(code: 408, reason: "Request Timeout")
    public static let headerFieldsTooLarge = OpsHTTPStatus(code: 431, reason: "Request Header Fields Too Large")
    public static let serviceUnavailable = OpsHTTPStatus(code: 503, reason: "Service Unavailable")
    public static let versionNotSupported = OpsHTTPStatus(code: 505, reason: "HTTP Version Not Supported")

    public var description: String { "\(code) \(reason)" }
}
