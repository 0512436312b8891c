#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GatewayTestSupport

/// A blocking loopback TCP client for the ops endpoint tests. Every receive
/// has a timeout, so a test that waits for something that never comes fails
/// instead of hanging. Tests that wait on it call it through `onOwnThread`;
/// `@unchecked Sendable` so it can be handed there (one thread uses it at a time).
final class OpsTestClient: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { var description: String }

    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    let fd: Int32

    /// Connects to `host` (a 127.0.0.0/8 address, 127.0.0.1 by default) at `port`.
    init(port: Int, host: UInt32 = 0x7F00_0001, receiveTimeoutSeconds: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(host).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            // Not closed here: every stored property is set, so a throw from here on runs
            // deinit, which closes it. Closing twice would close whatever descriptor another
            // thread opened under the same number in between (another test's listener).
            throw Failure(description: "connect to 127.0.0.1:\(port): errno \(errno)")
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Sends all of `text`. Returns false if the peer already closed.
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return false }
            offset += count
        }
        return true
    }

    /// Whether the server closed the connection, without waiting.
    var isClosedByServer: Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Closes the sending side (the server sees end of input).
    func finishSending() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads until the server closes (or the receive timeout fails the test).
    func readToEnd() throws -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return received }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET { return received }
                throw Failure(description: "receive failed or timed out: errno \(errno) after \(received.count) bytes")
            }
            received.append(contentsOf: chunk[0..<count])
        }
    }

    /// Reads the whole response and splits it into status, headers and body.
    func readResponse() throws -> Response {
        try Self.parse(readToEnd())
    }

    static func parse(_ bytes: [UInt8], headRequest: Bool = false) throws -> Response {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw Failure(description: "no complete response head in \(text.debugDescription)") }
        let headLines = text[..<split.lowerBound].split(separator: "\r\n")
        guard let statusLine = headLines.first, statusLine.hasPrefix("HTTP/1.1 "),
              let status = Int(statusLine.dropFirst(9).prefix(3))
        else { throw Failure(description: "bad status line in \(text.debugDescription)") }
        var headers: [String: String] = [:]
        for line in headLines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw Failure(description: "bad header \(line)") }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = String(text[split.upperBound...])
        if !headRequest, let length = headers["content-length"].flatMap(Int.init), length != body.utf8.count {
            throw Failure(description: "Content-Length \(length) but \(body.utf8.count) body bytes")
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// One request on a new connection; returns the parsed response.
    static func request(port: Int, _ raw: String) throws -> Response {
        let client = try OpsTestClient(port: port)
        client.send(raw)
        return try parse(client.readToEnd(), headRequest: raw.hasPrefix("HEAD "))
    }

    static func get(port: Int, _ path: String, method: String = "GET") throws -> Response {
        try request(port: port, "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: test\r\n\r\n")
    }

    /// ``request(port:_:)`` on a thread of its own, for async tests.
    static func exchange(port: Int, _ raw: String) async throws -> Response {
        try await onOwnThread { try request(port: port, raw) }
    }

    /// ``get(port:_:method:)`` on a thread of its own, for async tests.
    static func fetch(port: Int, _ path: String, method: String = "GET") async throws -> Response {
        try await onOwnThread { try get(port: port, path, method: method) }
    }
}

