/// The head of one HTTP/1.x request: what the ops endpoint needs of it.
public struct OpsHTTPRequestHead: Sendable, Equatable {
    /// The method token, as sent (`GET`).
    public var method: String
    /// The path of the request target, without its query (`/metrics`).
    public var path: String
    /// The minor version: 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var minorVersion: Int
    /// The header fields in order, names lower-cased, values trimmed.
    public var headers: [Header]

    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String
    }
}

/// Parses a request head from the bytes received so far. Pure and
/// incremental: call it again with the longer buffer when it asks for more.
///
/// Strict where leniency has burned servers before: no whitespace before a
/// colon, no obsolete line folding, no control characters, one `Host` for
/// HTTP/1.1. Lines may end in CRLF or a bare LF. The size cap is checked on
/// what is buffered, before the end of the head is found.
public struct OpsHTTPRequestParser: Sendable {
    /// What one call found.
    public enum Result: Sendable, Equatable {
        /// The head is not complete yet and within the cap: read more.
        case needMoreBytes
        /// A complete, well-formed head that ended `consumed` bytes in.
        case complete(OpsHTTPRequestHead, consumed: Int)
        /// The request is refused with this status; the connection closes after it.
        case invalid(OpsHTTPStatus, reason: String)
    }

    /// The largest head accepted, request line and headers included.
    public var maxHeadBytes: Int
    /// The most header fields accepted.
    public var maxHeaderCount: Int

    public init(maxHeadBytes: Int = 8192, maxHeaderCount: Int = 64) {
        self.maxHeadBytes = maxHeadBytes
        self.maxHeaderCount = maxHeaderCount
    }

    public func parse(_ buffer: [UInt8]) -> Result {
        // Skip empty lines before the request line (RFC 9112, section 2.2).
        var start = 0
        while start < buffer.count, buffer[start] == UInt8(ascii: "\r") || buffer[start] == UInt8(ascii: "\n") {
            start += 1
        }
        guard let end = Self.endOfHead(buffer, from: start) else {
            if buffer.count > maxHeadBytes {
                return .invalid(.headerFieldsTooLarge, reason: "request head is over \(maxHeadBytes) bytes")
            }
            return .needMoreBytes
        }
        if end.headEnd - start > maxHeadBytes {
            return .invalid(.headerFieldsTooLarge, reason: "request head is over \(maxHeadBytes) bytes")
        }
        var lines = Self.lines(buffer[start..<end.headEnd])
        guard !lines.isEmpty else { return .invalid(.badRequest, reason: "empty request") }
        let requestLine = lines.removeFirst()
        let head: OpsHTTPRequestHead
        switch parseRequestLine(requestLine) {
        case .failure(let invalid): return invalid.result
        case .success(let parsed): head = parsed
        }
        guard lines.count <= maxHeaderCount else {
            return .invalid(.headerFieldsTooLarge, reason: "more than \(maxHeaderCount) header fields")
        }
        var result = head
        for line in lines {
            switch parseHeader(line) {
            case .failure(let invalid): return invalid.result
            case .success(let header): result.headers.append(header)
            }
        }
        let hosts = result.headers.filter { $0.name == "host" }.count
        if result.minorVersion == 1, hosts != 1 {
            return .invalid(.badRequest, reason: hosts == 0 ? "HTTP/1.1 request without Host" : "more than one Host")
        }
        return .complete(result, consumed: end.consumed)
    }

    /// Where the head ends: the index of the blank line, and the bytes
    /// consumed through its line feed.
    private static func endOfHead(_ buffer: [UInt8], from start: Int) -> (headEnd: Int, consumed: Int)? {
        var index = start
        while index < buffer.count {
            if buffer[index] == UInt8(ascii: "\n") {
                // A line feed followed by an empty line (LF or CRLF) ends the head.
                let next = index + 1
                if next < buffer.count, buffer[next] == UInt8(ascii: "\n") { return (index + 1, next + 1) }
                if next + 1 < buffer.count, buffer[next] == UInt8(ascii: "\r"), buffer[next + 1] == UInt8(ascii: "\n") {
                    return (index + 1, next + 2)
                }
            }
            index += 1
        }
        return nil
    }

    /// Splits the head into lines without their CRLF or LF terminators.
    private static func lines(_ head: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = head.startIndex
        for index in head.indices where head[index] == UInt8(ascii: "\n") {
            var lineEnd = index
            if lineEnd > lineStart, head[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            lines.append(head[lineStart..<lineEnd])
            lineStart = index + 1
        }
        return lines
    }

    private struct Invalid: Error {
        var status: OpsHTTPStatus
        var reason: String
        var result: Result { .invalid(status, reason: reason) }
    }

    private func parseRequestLine(_ line: ArraySlice<UInt8>) -> Swift.Result<OpsHTTPRequestHead, Invalid> {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            return .failure(Invalid(status: .badRequest, reason: "malformed request line"))
        }
        guard parts[0].allSatisfy(Self.isTokenByte) else {
            return .failure(Invalid(status: .badRequest, reason: "malformed method"))
        }
        guard parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(Invalid(status: .badRequest, reason: "malformed request target"))
        }
        let version = Array(parts[2])
        let prefix = Array("HTTP/".utf8)
        guard version.count == 8, Array(version[0..<5]) == prefix, version[6] == UInt8(ascii: "."),
              Self.isDigit(version[5]), Self.isDigit(version[7])
        else {
            return .failure(Invalid(status: .badRequest, reason: "malformed HTTP version"))
        }
        guard version[5] == UInt8(ascii: "1"), version[7] <= UInt8(ascii: "1") else {
            return .failure(Invalid(status: .versionNotSupported, reason: "only HTTP/1.0 and HTTP/1.1 are served"))
        }
        let target = String(decoding: parts[1], as: UTF8.self)
        guard target.hasPrefix("/") else {
            return .failure(Invalid(status: .badRequest, reason: "request target must be a path"))
        }
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        return .success(OpsHTTPRequestHead(
            method: String(decoding: parts[0], as: UTF8.self),
            path: path,
            minorVersion: Int(version[7] - UInt8(ascii: "0")),
            headers: []
        ))
    }

    private func parseHeader(_ line: ArraySlice<UInt8>) -> Swift.Result<OpsHTTPRequestHead.Header, Invalid> {
        guard let first = line.first, first != UInt8(ascii: " "), first != UInt8(ascii: "\t") else {
            return .failure(Invalid(status: .badRequest, reason: "obsolete line folding or empty header line"))
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            return .failure(Invalid(status: .badRequest, reason: "header line without a colon"))
        }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(Self.isTokenByte) else {
            return .failure(Invalid(status: .badRequest, reason: "malformed header name"))
        }
        var value = line[(colon + 1)...]
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            return .failure(Invalid(status: .badRequest, reason: "control character in a header value"))
        }
        while let byte = value.first, byte == 0x20 || byte == 0x09 { value = value.dropFirst() }
        while let byte = value.last, byte == 0x20 || byte == 0x09 { value = value.dropLast() }
        return .success(OpsHTTPRequestHead.Header(
            name: String(decoding: name, as: UTF8.self).lowercased(),
            value: String(decoding: value, as: UTF8.self)
        ))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
