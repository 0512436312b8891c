/// The rules of an upgrade request head (RFC 6455 §4.2.1 over RFC 9112 syntax), applied in
/// a fixed order so each bad request gets one precise answer: syntax and limits, then the
/// method, version and path, then the upgrade headers, then origin and subprotocol.
enum WebSocketRequestHead {
    /// What a valid head asks for.
    enum Request {
        case upgrade(WebSocketUpgrade)
        /// A GET under the configured plain-GET prefix: the path, without query.
        case plainGet(String)
    }

    /// Parses a complete head (request line, header lines, the blank line).
    static func parse(_ head: ArraySlice<UInt8>, configuration: WebSocketHandshakeConfiguration) -> Result<Request, WebSocketHandshakeRejection> {
        var lines = splitLines(head)
        guard !lines.isEmpty else { return .failure(.malformedRequest("empty request")) }
        let requestLine = lines.removeFirst()
        guard let requestLineText = ascii(requestLine) else { return .failure(.malformedRequest("request line is not ASCII")) }
        let parts = requestLineText.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, parts[0].allSatisfy(isTokenCharacter) else {
            return .failure(.malformedRequest("request line must be METHOD SP TARGET SP VERSION"))
        }
        let target = String(parts[1])
        guard parts[2].hasPrefix("HTTP/"), parts[2].count == 8 else { return .failure(.malformedRequest("bad HTTP version")) }

        // Header fields, names lower-cased, values trimmed; repeated names keep every value.
        guard lines.count <= configuration.maxHeaderCount else { return .failure(.tooManyHeaders) }
        var fields: [(name: String, value: String)] = []
        for line in lines {
            if line.first == 32 || line.first == 9 { return .failure(.malformedRequest("obsolete line folding")) }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return .failure(.malformedRequest("header line without a colon")) }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy({ isTokenCharacter(Character(UnicodeScalar($0))) }) else {
                return .failure(.malformedRequest("bad header field name"))
            }
            let valueBytes = line[(colon + 1)...]
            guard valueBytes.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else {
                return .failure(.malformedRequest("control character in a header value"))
            }
            let value = String(decoding: valueBytes, as: UTF8.self).trimmingHTTPWhitespace()
            fields.append((String(decoding: name, as: UTF8.self).lowercased(), value))
        }
        func values(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }
        func tokens(_ name: String) -> [String] {
            values(name).flatMap { $0.split(separator: ",") }.map { String($0).trimmingHTTPWhitespace().lowercased() }.filter { !$0.isEmpty }
        }

        guard parts[0] == "GET" else { return .failure(.methodNotAllowed) }
        guard parts[2] == "HTTP/1.1" else { return .failure(.versionNotSupported) }
        guard target.hasPrefix("/") else { return .failure(.malformedRequest("the request target must be a path")) }
        let path = String(target.prefix { $0 != "?" })
        let hosts = values("host")
        if let prefix = configuration.plainGetPrefix, path.hasPrefix(prefix), !path.contains("/../"), !path.hasSuffix("/..") {
            guard hosts.count == 1, !hosts[0].isEmpty else { return .failure(.missingHost) }
            return .success(.plainGet(path))
        }
        guard path == configuration.path else { return .failure(.notFound(path)) }
        guard hosts.count == 1, !hosts[0].isEmpty else { return .failure(.missingHost) }
        guard tokens("upgrade").contains("websocket") else { return .failure(.notAnUpgrade) }
        guard tokens("connection").contains("upgrade") else { return .failure(.connectionNotUpgrade) }
        let versions = values("sec-websocket-version")
        guard !versions.isEmpty else { return .failure(.missingVersion) }
        guard versions == ["13"] else { return .failure(.unsupportedVersion) }
        let keys = values("sec-websocket-key")
        guard keys.count == 1, let key = Base64.decode(keys[0]), key.count == 16 else { return .failure(.badKey) }

        let origins = values("origin")
        guard origins.count <= 1 else { return .failure(.malformedRequest("more than one Origin header")) }
        let origin = origins.first
        // A page the gateway served itself (the fleet console) is same-origin: always allowed.
        let sameOrigin = origin.map { $0.lowercased() == "https://" + hosts[0].lowercased() } ?? false
        guard sameOrigin || configuration.origins.allows(origin) else { return .failure(.originNotAllowed(origin ?? "")) }

        let offered = values("sec-websocket-protocol").flatMap { $0.split(separator: ",") }.map { String($0).trimmingHTTPWhitespace() }
        guard offered.contains(configuration.subprotocol) else { return .failure(.subprotocolNotOffered(configuration.subprotocol)) }

        let cookies = values("cookie")
        return .success(.upgrade(WebSocketUpgrade(
            target: target, host: hosts[0], origin: origin, subprotocol: configuration.subprotocol, key: keys[0],
            cookie: cookies.isEmpty ? nil : cookies.joined(separator: "; "), userAgent: values("user-agent").first
        )))
    }

    /// The lines of a head, without their CR LF and without the final blank line. A bare LF
    /// or CR inside a line stays in it and fails the syntax checks.
    private static func splitLines(_ head: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = head.startIndex
        var index = head.startIndex
        while index + 1 < head.endIndex {
            if head[index] == 13, head[index + 1] == 10 {
                lines.append(head[start..<index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    private static func ascii(_ bytes: ArraySlice<UInt8>) -> String? {
        guard bytes.allSatisfy({ $0 >= 32 && $0 < 127 }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue, ascii > 32, ascii < 127 else { return false }
        return !"\"(),/:;<=>?@[\\]{}".contains(character)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    func trimmingHTTPWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
