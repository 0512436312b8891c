/// The server side of the opening handshake (RFC 6455 §4.2): bytes of an HTTP/1.1 request
/// in, the 101 response or a precise refusal out.
///
/// Pure and incremental: ``receive(_:)`` buffers until the blank line that ends the request
/// head and answers ``OnReceive/needMoreBytes`` meanwhile; the head limit is checked before
/// bytes are kept, so a peer that never ends its head costs at most `maxHeadBytes`.
///
/// ```
///   reading ──head complete, valid──▶ accepted   (write the 101, then WebSocket frames)
///      │
///      └──limit passed / invalid────▶ rejected   (write the response, then close)
/// ```
public struct WebSocketHandshake: Sendable {
    /// Where the handshake stands.
    public enum State: Sendable, Hashable {
        /// Waiting for the rest of the request head.
        case reading
        /// The 101 was produced; the connection speaks WebSocket now.
        case accepted
        /// A refusal (or a plain GET) was produced; the connection closes after answering it.
        case rejected
    }

    /// The result of feeding bytes.
    public enum OnReceive: Sendable, Hashable {
        /// The head is not complete yet: feed more bytes when they arrive.
        case needMoreBytes
        /// Write `response` (the 101), then run a ``WebSocketConnection`` fed with `leftover`
        /// (bytes the client sent after its head, if it did not wait for the 101).
        case accept(WebSocketUpgrade, response: [UInt8], leftover: [UInt8])
        /// Write `response` (the error status with `Connection: close`), then close.
        case reject(WebSocketHandshakeRejection, response: [UInt8])
        /// A GET under ``WebSocketHandshakeConfiguration/plainGetPrefix``: answer it (for
        /// example with ``plainResponse(status:contentType:body:)``), then close.
        case plainGet(path: String)
        /// The handshake already ended; the bytes were ignored.
        case ignored
    }

    public let configuration: WebSocketHandshakeConfiguration
    public private(set) var state: State = .reading
    private var buffer: [UInt8] = []
    /// How far the search for the blank line has looked (so each byte is scanned once).
    private var scanned = 0

    public init(configuration: WebSocketHandshakeConfiguration) {
        self.configuration = configuration
    }

    /// Feeds bytes read from the connection.
    public mutating func receive(_ bytes: some Collection<UInt8>) -> OnReceive {
        guard state == .reading else { return .ignored }
        // Keep at most one byte past the limit: enough to tell an over-long head apart.
        let room = configuration.maxHeadBytes + 1 - buffer.count
        buffer.append(contentsOf: bytes.prefix(max(0, room)))
        let overflow = bytes.count > room
        guard let end = findEndOfHead() else {
            if buffer.count > configuration.maxHeadBytes || overflow { return reject(.headTooLarge) }
            return .needMoreBytes
        }
        guard end <= configuration.maxHeadBytes else { return reject(.headTooLarge) }
        var leftover = Array(buffer[end...])
        if overflow { leftover.append(contentsOf: bytes.suffix(bytes.count - max(0, room))) }
        switch WebSocketRequestHead.parse(buffer[..<end], configuration: configuration) {
        case .failure(let rejection):
            return reject(rejection)
        case .success(.plainGet(let path)):
            state = .rejected
            buffer = []
            return .plainGet(path: path)
        case .success(.upgrade(let upgrade)):
            state = .accepted
            buffer = []
            return .accept(upgrade, response: Self.acceptResponse(for: upgrade), leftover: leftover)
        }
    }

    /// A complete HTTP/1.1 response that closes the connection: for the files of the
    /// browser library (200 with `text/javascript`, `Cache-Control: no-cache`, and
    /// `Access-Control-Allow-Origin: *` so a page on any allowed origin may import them),
    /// or 404.
    public static func plainResponse(status: Int, contentType: String = "text/plain; charset=utf-8", body: [UInt8]) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : reasonPhrase(status))\r\n"
        head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
        if status == 200 { head += "Cache-Control: no-cache\r\nAccess-Control-Allow-Origin: *\r\n" }
        head += "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// The `Sec-WebSocket-Accept` value for a key (RFC 6455 §4.2.2, item 5.4).
    public static func acceptValue(forKey key: String) -> String {
        Base64.encode(SHA1.digest(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)))
    }

    /// The 101 response for an accepted upgrade.
    public static func acceptResponse(for upgrade: WebSocketUpgrade) -> [UInt8] {
        Array((
            "HTTP/1.1 101 Switching Protocols\r\n"
                + "Upgrade: websocket\r\n"
                + "Connection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(acceptValue(forKey: upgrade.key))\r\n"
                + "Sec-WebSocket-Protocol: \(upgrade.subprotocol)\r\n\r\n"
        ).utf8)
    }

    /// The response for a refusal: status, the rejection's extra headers, a text body.
    public static func rejectResponse(for rejection: WebSocketHandshakeRejection) -> [UInt8] {
        let body = rejection.message + "\n"
        var head = "HTTP/1.1 \(rejection.status) \(reasonPhrase(rejection.status))\r\n"
        for (name, value) in rejection.extraHeaders { head += "\(name): \(value)\r\n" }
        head += "Content-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        return Array((head + body).utf8)
    }

    private mutating func reject(_ rejection: WebSocketHandshakeRejection) -> OnReceive {
        state = .rejected
        buffer = []
        return .reject(rejection, response: Self.rejectResponse(for: rejection))
    }

    /// The index just past the first CR LF CR LF, if the buffer holds one.
    private mutating func findEndOfHead() -> Int? {
        var index = max(0, scanned - 3)
        while index + 3 < buffer.count {
            if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 {
                return index + 4
            }
            index += 1
        }
        scanned = buffer.count
        return nil
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 426: "Upgrade Required"
        case 431: "Request Header Fields Too Large"
        case 505: "HTTP Version Not Supported"
        default: "Error"
        }
    }
}
