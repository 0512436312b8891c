/// Reads one HTTP/1.1 request (head, then a `Content-Length` body) for the gateway's own
/// pages. Pure and incremental: ``receive(_:)`` answers ``OnReceive/needMoreBytes`` until
/// the request is whole; the head and body limits are checked before bytes are kept.
/// Chunked bodies are refused (411): the console never sends them.
public struct HTTPRequestParser: Sendable {
    /// The result of feeding bytes.
    public enum OnReceive: Sendable, Hashable {
        case needMoreBytes
        case request(HTTPRequest)
        case invalid(HTTPRequestError)
    }

    public let maxHeadBytes: Int
    public let maxBodyBytes: Int
    private var buffer: [UInt8] = []
    private var head: HTTPRequest?
    private var bodyLength = 0
    private var done = false

    public init(maxHeadBytes: Int = 8192, maxBodyBytes: Int = 4096) {
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
    }

    public mutating func receive(_ bytes: some Collection<UInt8>) -> OnReceive {
        guard !done else { return .needMoreBytes }
        let limit = head == nil ? maxHeadBytes + 4 : bodyLength
        let room = max(0, limit - buffer.count)
        buffer.append(contentsOf: bytes.prefix(room))
        if head == nil {
            guard let end = endOfHead() else {
                return buffer.count >= maxHeadBytes + 4 ? fail(431, "the request head is longer than \(maxHeadBytes) bytes") : .needMoreBytes
            }
            switch Self.parseHead(buffer[..<end]) {
            case .failure(let error): return fail(error.status, error.message)
            case .success(let parsed): head = parsed
            }
            let lengths = head?.values("content-length") ?? []
            if head?.value("transfer-encoding") != nil { return fail(411, "send the body with Content-Length, not chunked") }
            guard lengths.count <= 1, let length = Int(lengths.first ?? "0"), length >= 0 else {
                return fail(400, "Content-Length must be one non-negative number")
            }
            guard length <= maxBodyBytes else { return fail(413, "the body is longer than \(maxBodyBytes) bytes") }
            bodyLength = length
            // The bytes after the head that were already read (at most the body's length).
            let rest = Array(buffer[end...]) + Array(bytes.dropFirst(room))
            buffer = Array(rest.prefix(length))
        }
        guard buffer.count >= bodyLength, var request = head else { return .needMoreBytes }
        request.body = Array(buffer.prefix(bodyLength))
        done = true
        buffer = []
        return .request(request)
    }

    private mutating func fail(_ status: Int, _ message: String) -> OnReceive {
        done = true
        buffer = []
        return .invalid(HTTPRequestError(status: status, message: message))
    }

    private func endOfHead() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    static func parseHead(_ bytes: ArraySlice<UInt8>) -> Result<HTTPRequest, HTTPRequestError> {
        guard bytes.allSatisfy({ $0 == 9 || $0 == 10 || $0 == 13 || ($0 >= 32 && $0 < 127) }) else {
            return .failure(HTTPRequestError(status: 400, message: "the request head must be ASCII"))
        }
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last == "" { lines.removeLast() }
        guard !lines.isEmpty else { return .failure(HTTPRequestError(status: 400, message: "empty request")) }
        let parts = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[1].hasPrefix("/") else {
            return .failure(HTTPRequestError(status: 400, message: "the request line must be METHOD SP /path SP HTTP/1.1"))
        }
        guard parts[2] == "HTTP/1.1" else { return .failure(HTTPRequestError(status: 505, message: "only HTTP/1.1 is served")) }
        var fields: [HTTPField] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex, !line.hasPrefix(" "), !line.hasPrefix("\t"),
                  !line[..<colon].contains(" ")
            else {
                return .failure(HTTPRequestError(status: 400, message: "a header line is malformed"))
            }
            fields.append(HTTPField(name: line[..<colon].lowercased(), value: String(line[line.index(after: colon)...]).trimmingHTTPWhitespace()))
        }
        guard fields.count <= 64 else { return .failure(HTTPRequestError(status: 431, message: "more than 64 header fields")) }
        let target = parts[1]
        let path = target.prefix { $0 != "?" }
        let query = target.dropFirst(path.count + 1)
        return .success(HTTPRequest(method: String(parts[0]), path: String(path), query: String(query), fields: fields))
    }
}
