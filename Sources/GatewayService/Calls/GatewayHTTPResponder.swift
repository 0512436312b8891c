import GatewayCore
import GatewayRPC
import GatewayWebClient
import GatewayWebClientCodecs
import GatewayWebSocket

/// The plain HTTP on the gateway's TLS port, beside the WebSocket binding: the browser
/// library's files (and whether an origin may upgrade) under the library prefix, and the fleet
/// console's requests (`/console...`), answered by ``ConsoleResponder``.
struct GatewayHTTPResponder: PlainHTTPResponder {
    let console: ConsoleResponder

    /// Request lines that are the console's: a connection starting with one of these is HTTP
    /// for the console (`GET /console…` before the WebSocket rule, which takes other GETs);
    /// the icon a browser asks for beside any page is answered there too.
    static let consoleProbes: [[UInt8]] = ["GET /console", "PUT /console", "DELETE /console", "GET /favicon.ico "].map { Array($0.utf8) }

    /// What the first bytes say about the console: it is (true), it is not (false), or
    /// they are too few to tell (nil).
    func claims(_ firstBytes: [UInt8]) -> Bool? {
        var undecided = false
        for probe in Self.consoleProbes {
            if firstBytes.starts(with: probe) { return true }
            if firstBytes.count < probe.count, probe.starts(with: firstBytes) { undecided = true }
        }
        return undecided ? nil : false
    }

    func respond(to request: HTTPRequest, peer: String) async -> [UInt8] {
        await console.respond(to: request, peer: peer)
    }

    func refusal(status: Int, message: String) -> [UInt8] {
        ConsoleResponse.text(status: status, message + "\n").bytes
    }

    /// The console session the upgrade's cookie carries (``ConsoleCookie/token(in:)``).
    func sessionToken(in upgrade: WebSocketUpgrade) -> String? {
        ConsoleCookie.token(in: upgrade)
    }

    /// Where the browser library asks, after a failed upgrade, whether the page's origin is
    /// allowed: `GET <this><percent-encoded origin>` answers `{"origin": …, "allowed": …}`
    /// (a browser does not tell a page why its upgrade failed; the 403 is for the browser).
    static let originQueryPrefix = WebSocketCarrierConfiguration.libraryPrefix + "origins/"

    /// The answer to a plain GET under the library prefix: the file, whether an origin is
    /// allowed, or 404.
    func plainGet(_ path: String, origins: OriginAllowList) -> [UInt8] {
        if path.hasPrefix(Self.originQueryPrefix) {
            let origin = Self.percentDecoded(path.dropFirst(Self.originQueryPrefix.count))
            let body = "{\"origin\":\(JSONText.quoted(origin)),\"allowed\":\(origins.allows(origin)),\"flag\":\"--websocket-origins\"}"
            return WebSocketHandshake.plainResponse(status: 200, contentType: "application/json", body: Array(body.utf8))
        }
        let name = String(path.dropFirst(WebSocketCarrierConfiguration.libraryPrefix.count))
        guard let file = WebClientLibrary.files[name] ?? WebClientCodecs.files[name] else {
            return WebSocketHandshake.plainResponse(status: 404, body: Array("no file \(path) in the browser library; the module to import is \(WebSocketCarrierConfiguration.libraryPrefix)readergateway.js\n".utf8))
        }
        // The TypeScript declarations are served beside the module for editors and `tsc`.
        let type = name.hasSuffix(".d.ts") ? "application/typescript; charset=utf-8" : "text/javascript; charset=utf-8"
        return WebSocketHandshake.plainResponse(status: 200, contentType: type, body: file)
    }

    /// `%XX` escapes decoded (an invalid one is kept as it is).
    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
