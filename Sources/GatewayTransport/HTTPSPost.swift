import GatewayCore

/// One HTTP/1.1 POST over a TLS connection to an address already resolved and vetted, with a
/// deadline and a bounded read of the answer (webhook deliveries).
///
/// The connection is made for the request and closed after it (`Connection: close`): only the
/// status line and headers are read, at most ``maxResponseHeaderBytes``; the body is not
/// waited for. The deadline covers the connect, the handshake, the write and the answer; on
/// expiry the connection is closed and ``TransportError`` `ioError` says so.
public struct HTTPSPost: Sendable {
    /// The status line and headers of the answer.
    public struct Response: Sendable, Hashable {
        public var status: Int
        public var headerBytes: Int
    }

    /// The most bytes of an answer's head read before giving up on it.
    public static let maxResponseHeaderBytes = 16 * 1024

    public var context: TLSContext
    public var timeout: Duration

    public init(context: TLSContext, timeout: Duration) {
        self.context = context
        self.timeout = timeout
    }

    /// POSTs `body` to `target` on `address`, verifying the certificate against `serverName`
    /// (and sending it as SNI and, with `hostHeader`, as `Host`).
    public func send(
        to address: SocketAddress, serverName: String, hostHeader: String, target: String, headers: [(String, String)], body: [UInt8],
        on loop: EventLoop
    ) async throws -> Response {
        var connectionLimits = ConnectionLimits()
        // The deadline below closes the connection; the transport's own timers stay behind it
        // as a backstop for a connect the deadline cannot interrupt.
        connectionLimits.handshakeTimeout = timeout + .seconds(2)
        connectionLimits.idleTimeout = nil
        connectionLimits.writeBufferHardLimit = max(connectionLimits.writeBufferHardLimit, body.count + 64 * 1024)
        let limits = connectionLimits
        let context = self.context
        let timeout = self.timeout
        return try await withThrowingTaskGroup(of: Response?.self) { group in
            group.addTask {
                let connection = try await AsyncTLSConnection.connect(
                    address: address, serverName: serverName, context: context, limits: limits, on: loop
                )
                defer { connection.close(graceful: false) }
                connection.write(Self.request(hostHeader: hostHeader, target: target, headers: headers, body: body))
                return try await Self.readHead(connection)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                throw TransportError(.ioError, "no answer from \(serverName) (\(address)) within \(timeout)")
            }
            return response
        }
    }

    static func request(hostHeader: String, target: String, headers: [(String, String)], body: [UInt8]) -> [UInt8] {
        var head = "POST \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    static func readHead(_ connection: AsyncTLSConnection) async throws -> Response? {
        var received: [UInt8] = []
        var iterator = connection.inbound.makeAsyncIterator()
        while true {
            if let end = Self.endOfHead(received) {
                guard let status = Self.status(Array(received[..<end])) else {
                    throw TransportError(.ioError, "the answer is not HTTP/1.x: \(String(decoding: received.prefix(40), as: UTF8.self).debugDescription)")
                }
                return Response(status: status, headerBytes: end)
            }
            guard received.count <= maxResponseHeaderBytes else {
                throw TransportError(.ioError, "the answer's head is longer than \(maxResponseHeaderBytes) bytes")
            }
            let next: [UInt8]?
            do { next = try await iterator.next() } catch {
                throw TransportError(.ioError, "the receiver closed the connection before answering (\(error))")
            }
            guard let chunk = next else {
                if Task.isCancelled { return nil }
                throw TransportError(.ioError, "the receiver closed the connection before answering")
            }
            received.append(contentsOf: chunk)
        }
    }

    static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// The status code of `HTTP/1.x NNN ...`.
    static func status(_ head: [UInt8]) -> Int? {
        let line = String(decoding: head.prefix { $0 != 13 }, as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let code = Int(parts[1]) else { return nil }
        return code
    }
}
