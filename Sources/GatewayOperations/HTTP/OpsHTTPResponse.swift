/// A complete response of the ops endpoint. Every response closes the
/// connection (`Connection: close`): probes and scrapes are one request each.
public struct OpsHTTPResponse: Sendable, Equatable {
    public var status: OpsHTTPStatus
    public var contentType: String
    public var extraHeaders: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: OpsHTTPStatus, contentType: String = "text/plain; charset=utf-8", extraHeaders: [(name: String, value: String)] = [], body: String) {
        self.status = status
        self.contentType = contentType
        self.extraHeaders = extraHeaders
        self.body = Array(body.utf8)
    }

    /// A plain-text error answer: the status line, then the reason.
    static func error(_ status: OpsHTTPStatus, reason: String) -> OpsHTTPResponse {
        var extra: [(name: String, value: String)] = []
        if status == .methodNotAllowed { extra.append(("Allow", "GET, HEAD")) }
        return OpsHTTPResponse(status: status, extraHeaders: extra, body: "\(status.description): \(reason)\n")
    }

    /// The bytes on the wire; `includeBody` is false for `HEAD`.
    public func serialized(includeBody: Bool = true) -> [UInt8] {
        var head = "HTTP/1.1 \(status.code) \(status.reason)\r\n"
        head += "Content-Type: \(contentType)\r\n"
        head += "Content-Length: \(body.count)\r\n"
        head += "Cache-Control: no-store\r\n"
        for (name, value) in extraHeaders { head += "\(name): \(value)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + (includeBody ? body : [])
    }

    public static func == (lhs: OpsHTTPResponse, rhs: OpsHTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.contentType == rhs.contentType && lhs.body == rhs.body
            && lhs.extraHeaders.map(\.name) == rhs.extraHeaders.map(\.name)
            && lhs.extraHeaders.map(\.value) == rhs.extraHeaders.map(\.value)
    }
}
