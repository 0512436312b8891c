import Foundation
import GatewayDomain
import GatewayOperations
import GatewayService
import GatewayWire
import Testing

/// The fleet console on the gateway's TLS port: its session (sign-in with the secret key for
/// an HttpOnly, Secure, SameSite=Strict cookie kept in PostgreSQL, sign-out with the CSRF
/// token), its pages with their Content-Security-Policy, and the cookie authorising
/// `WatchFleet` and changes over the WebSocket binding, one account only.
@Suite("the fleet console")
struct ConsoleTests {
    static let watchFleet = ReaderGatewayV1.FleetAdmin.watchFleet.path
    static let registerSerials = ReaderGatewayV1.FleetAdmin.registerReadersBySerial.path

    @Test func signInReadTheSessionAndSignOut() async throws {
        try await withHarness { harness in
            let signIn = try await harness.http("PUT", "/console/session", origin: harness.ownOrigin, body: harness.account.secretKey)
            #expect(signIn.status == 200, "\(signIn.head)")
            let setCookie = try #require(signIn.header("Set-Cookie"))
            for attribute in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/"] { #expect(setCookie.contains(attribute), "\(setCookie)") }
            #expect(!signIn.body.contains(harness.account.secretKey), "the answer repeats the secret key")
            let cookie = String(setCookie.prefix { $0 != ";" })
            let csrf = try #require(signIn.json["csrf_token"])
            #expect(signIn.json["account"] == harness.account.accountID)

            // Only the token's hash is stored: the cookie's value is nowhere in the table.
            let rows = try await harness.database.client.query("SELECT encode(token_sha256, 'hex') AS h, csrf_token FROM console_sessions", [])
            #expect(rows.count == 1)
            #expect(try rows[0].decode(String.self, "h") != String(cookie.dropFirst("rg_console=".count)))

            let session = try await harness.http("GET", "/console/session", cookie: cookie)
            #expect(session.status == 200 && session.json["csrf_token"] == csrf && session.json["account"] == harness.account.accountID)

            let withoutToken = try await harness.http("DELETE", "/console/session", cookie: cookie)
            #expect(withoutToken.status == 403, "sign-out without the CSRF token: \(withoutToken.head)")
            #expect(try await harness.http("GET", "/console/session", cookie: cookie).status == 200, "the refused sign-out ended the session")

            let signOut = try await harness.http("DELETE", "/console/session", cookie: cookie, csrf: csrf)
            #expect(signOut.status == 200)
            #expect(signOut.header("Set-Cookie")?.contains("Max-Age=0") == true)
            #expect(try await harness.http("GET", "/console/session", cookie: cookie).saysSignedOut, "the cookie still works after sign-out")
            #expect(harness.metrics.browser.consoleSignIns.labels(ConsoleSignInResult.signedIn).value == 1)
        }
    }

    /// A session past its expiry works nowhere: neither the session endpoint nor a call over
    /// the WebSocket; the page is asked to sign in again.
    @Test func anExpiredSessionIsRefused() async throws {
        try await withHarness { harness in
            let signIn = try await harness.http("PUT", "/console/session", origin: harness.ownOrigin, body: harness.account.secretKey)
            let cookie = String(try #require(signIn.header("Set-Cookie")).prefix { $0 != ";" })
            let live = try await WebSocketPeer.open(port: harness.port, caPath: harness.caPath, origin: harness.ownOrigin, cookie: cookie)
            try await live.startCall(stream: 1, method: Self.watchFleet, ReaderGatewayV1.WatchFleetRequest())
            if case .snapshot = try await live.nextMessage(on: 1, as: ReaderGatewayV1.WatchFleetEvent.self).event {} else { Issue.record("no snapshot while live") }

            _ = try await harness.database.client.execute("UPDATE console_sessions SET expires_at = now() - interval '1 second'", [])
            #expect(try await harness.http("GET", "/console/session", cookie: cookie).saysSignedOut)
            let expired = try await WebSocketPeer.open(port: harness.port, caPath: harness.caPath, origin: harness.ownOrigin, cookie: cookie)
            try await expired.startCall(stream: 1, method: Self.watchFleet, ReaderGatewayV1.WatchFleetRequest())
            let end = try await expired.callEnd(on: 1)
            #expect(end.reason == .secretKeyInvalid && end.message.contains("sign in again"), "\(end)")
            // The next sign-in deletes the expired row.
            _ = try await harness.http("PUT", "/console/session", origin: harness.ownOrigin, body: harness.account.secretKey)
            let rows = try await harness.database.client.query("SELECT count(*) AS n FROM console_sessions WHERE expires_at < now()", [])
            #expect(try rows[0].decode(Int.self, "n") == 0)
        }
    }

    @Test func aWrongKeyOrAForeignOriginDoesNotSignIn() async throws {
        try await withHarness { harness in
            let wrong = try await harness.http("PUT", "/console/session", origin: harness.ownOrigin, body: "sk_" + String(repeating: "x", count: 43))
            #expect(wrong.status == 401 && wrong.header("Set-Cookie") == nil, "\(wrong.head)")
            let foreign = try await harness.http("PUT", "/console/session", origin: "https://elsewhere.example", body: harness.account.secretKey)
            #expect(foreign.status == 403 && foreign.header("Set-Cookie") == nil, "\(foreign.head)")
            let noOrigin = try await harness.http("PUT", "/console/session", body: harness.account.secretKey)
            #expect(noOrigin.status == 403, "a sign-in without Origin: \(noOrigin.head)")
            #expect(harness.metrics.browser.consoleSignIns.labels(ConsoleSignInResult.refused).value == 3)
            #expect(harness.metrics.browser.consoleSignIns.labels(ConsoleSignInResult.signedIn).value == 0)
            let rows = try await harness.database.client.query("SELECT count(*) AS n FROM console_sessions", [])
            #expect(try rows[0].decode(Int.self, "n") == 0)
        }
    }

    @Test func wrongSignInsFromOneAddressAreLockedOutWith429AndRetryAfter() async throws {
        // The default burst of 20 failures from one address, and almost no refill (one per
        // 1,000 s): however slowly a loaded machine runs the 21 sign-ins, none comes back between them.
        try await withHarness(authFailuresPerSource: AuthFailureRule(burst: 20, refillPerSecond: 0.001)) { harness in
            for attempt in 1...20 {
                let wrong = try await harness.http("PUT", "/console/session", origin: harness.ownOrigin, body: "sk_guess\(attempt)")
                #expect(wrong.status == 401, "attempt \(attempt): \(wrong.head)")
            }
            let locked = try await harness.http("PUT", "/console/session", origin: harness.ownOrigin, body: "sk_guess21")
            #expect(locked.status == 429)
            let retryAfter = try #require(locked.header("Retry-After").flatMap { Int($0) })
            #expect((1...1000).contains(retryAfter), "\(retryAfter)")
            #expect(locked.json["reason"] == "AUTHENTICATION_RATE_LIMITED")
            #expect(locked.json["error"]?.contains("127.0.0.1") == true)
            // While locked out, the address is refused before its key is looked at: a correct key too.
            let correct = try await harness.http("PUT", "/console/session", origin: harness.ownOrigin, body: harness.account.secretKey)
            #expect(correct.status == 429)
            #expect(correct.header("Set-Cookie") == nil)
            let text = harness.metrics.collection.render()
            for line in [
                #"reader_gateway_auth_failures_total{surface="console_sign_in"} 21"#, #"reader_gateway_auth_lockouts_total{scope="source"} 1"#,
                #"reader_gateway_auth_limited_total{surface="console_sign_in"} 2"#,
            ] {
                #expect(text.contains(line + "\n"), "no \(line) in the metrics")
            }
        }
    }

    @Test func pagesAreServedAsCommittedWithTheContentSecurityPolicy() async throws {
        try await withHarness { harness in
            let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Sources/GatewayConsole").standardized
            // Every file of the folder (but the Swift table that compiles them in) is served as it is there.
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasSuffix(".swift") }.sorted()
            #expect(files == ["console.css", "console.js", "fleet-view.js", "index.html", "webhooks.js"], "a file added to Sources/GatewayConsole goes into Package.swift's consoleFiles and ConsoleFiles.swift")
            for (path, file) in [("/console/", "index.html")] + files.map({ ("/console/\($0)", $0) }) {
                let page = try await harness.http("GET", path)
                #expect(page.status == 200, "\(path): \(page.head)")
                let policy = try #require(page.header("Content-Security-Policy"), "\(path) has no CSP")
                #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline") && policy.contains("frame-ancestors 'none'"), "\(policy)")
                #expect(page.header("Cache-Control") == "no-store")
                #expect(page.bodyBytes == Array(try Data(contentsOf: folder.appendingPathComponent(file))), "\(path) is served byte for byte as Sources/GatewayConsole/\(file)")
            }
            // A signed-out load asks for the session and the icon: neither is an error.
            #expect(try await harness.http("GET", "/console/session").saysSignedOut)
            let icon = try await harness.http("GET", "/favicon.ico")
            #expect(icon.status == 204, "\(icon.head)")
            // The page itself has no inline script or style: the CSP would block it.
            let index = try await harness.http("GET", "/console/")
            #expect(!index.body.contains("<script>") && !index.body.contains("<style") && !index.body.contains("onclick"))
            #expect(try await harness.http("GET", "/console/../Package.swift").status == 404)
            // Pages are read-only; the session answers GET, PUT and DELETE only.
            let put = try await harness.http("PUT", "/console/index.html", origin: harness.ownOrigin, body: "x")
            #expect(put.status == 405 && put.header("Allow") == "GET", "\(put.head)")
        }
    }

    /// A cookie of account B opens WatchFleet over WebSocket and sees B's readers only; a
    /// change without the CSRF token is refused; a page without the cookie sees nothing.
    @Test func theCookieAuthorisesWatchFleetForItsAccountOnly() async throws {
        try await withHarness { harness in
            let admin = try await harness.admin()
            let locationA = try await admin.createLocation("Store A")
            let readersA = try await admin.registerSerials(["CONSA-1", "CONSA-2"], prefix: "A", location: locationA)
            let other = try await DevelopmentAccount.create(name: "other", client: harness.database.client)
            let adminB = try await harness.admin(secretKey: other.secretKey)
            let locationB = try await adminB.createLocation("Store B")

            let signIn = try await harness.http("PUT", "/console/session", origin: harness.ownOrigin, body: other.secretKey)
            let cookie = String(try #require(signIn.header("Set-Cookie")).prefix { $0 != ";" })
            let csrf = try #require(signIn.json["csrf_token"])

            let peer = try await WebSocketPeer.open(port: harness.port, caPath: harness.caPath, origin: harness.ownOrigin, cookie: cookie)
            try await peer.startCall(stream: 1, method: Self.watchFleet, ReaderGatewayV1.WatchFleetRequest())
            var snapshot = ReaderGatewayV1.FleetSnapshot()
            var seen: [String] = []
            while !snapshot.complete {
                let event = try await peer.nextMessage(on: 1, as: ReaderGatewayV1.WatchFleetEvent.self)
                if case .snapshot(let page) = event.event {
                    snapshot = page
                    seen += page.readers.map { $0.reader?.id ?? "" }
                    if !page.locations.isEmpty { #expect(page.locations.map(\.id) == [locationB]) }
                }
            }
            #expect(seen.isEmpty, "account B's watcher saw readers: \(seen)")

            // A change without the CSRF token is refused; with it, it is made and heard.
            var register = ReaderGatewayV1.RegisterReadersBySerialRequest()
            register.serialNumbers = ["CONSB-1"]
            register.labelPrefix = "B"
            register.locationID = locationB
            try await peer.startCall(stream: 3, method: Self.registerSerials, register)
            let refused = try await peer.callEnd(on: 3)
            #expect(refused.reason == .permissionDenied, "\(refused)")
            try await peer.startCall(stream: 5, method: Self.registerSerials, register, metadata: [.init("x-csrf-token", csrf)])
            let registered = try await peer.nextMessage(on: 5, as: ReaderGatewayV1.RegisterReadersBySerialResponse.self)
            let readerB = try #require(registered.readers.first?.id)
            var changed: ReaderGatewayV1.FleetReader?
            while changed == nil {
                let event = try await peer.nextMessage(on: 1, as: ReaderGatewayV1.WatchFleetEvent.self)
                if case .readerChanged(let reader) = event.event { changed = reader }
            }
            #expect(changed?.reader?.id == readerB, "the first change B hears is not its own reader: \(String(describing: changed))")
            // Account A's changes never reach B: register another A reader, then one of B's, and B hears only its own.
            _ = try await admin.registerSerials(["CONSA-3"], prefix: "A3", location: locationA)
            register.serialNumbers = ["CONSB-2"]
            try await peer.startCall(stream: 7, method: Self.registerSerials, register, metadata: [.init("x-csrf-token", csrf)])
            var next: ReaderGatewayV1.FleetReader?
            while next == nil {
                let event = try await peer.nextMessage(on: 1, as: ReaderGatewayV1.WatchFleetEvent.self)
                if case .readerChanged(let reader) = event.event { next = reader }
            }
            #expect(next?.reader?.serialNumber == "CONSB-2", "B heard another reader first: \(String(describing: next))")
            #expect(!readersA.map(\.id).contains(next?.reader?.id ?? ""))

            // A page of another origin (even one on the allow-list) that sends the cookie along
            // is not the console: the cookie is not honoured there.
            let elsewhere = try await WebSocketPeer.open(port: harness.port, caPath: harness.caPath, origin: GatewayHarness.allowedOrigin, cookie: cookie)
            try await elsewhere.startCall(stream: 1, method: Self.watchFleet, ReaderGatewayV1.WatchFleetRequest())
            let notHonoured = try await elsewhere.callEnd(on: 1)
            #expect(notHonoured.reason == .secretKeyInvalid, "\(notHonoured)")

            // A page without the cookie sees nothing.
            let stranger = try await WebSocketPeer.open(port: harness.port, caPath: harness.caPath, origin: harness.ownOrigin)
            try await stranger.startCall(stream: 1, method: Self.watchFleet, ReaderGatewayV1.WatchFleetRequest())
            let end = try await stranger.callEnd(on: 1)
            #expect(end.reason == .secretKeyInvalid, "\(end)")
            #expect(harness.metrics.browser.webSocketUpgrades.unlabeled.value >= 2)
        }
    }

    /// The ops endpoint's text counts upgrades, refusals by reason, and sign-ins by result.
    @Test func upgradesRefusalsAndSignInsAreInTheMetrics() async throws {
        try await withHarness { harness in
            let (_, refused) = try await WebSocketPeer.connect(port: harness.port, caPath: harness.caPath, origin: "https://elsewhere.example")
            #expect(refused.hasPrefix("HTTP/1.1 403 "))
            let (_, wrongPath) = try await WebSocketPeer.connect(port: harness.port, caPath: harness.caPath, origin: GatewayHarness.allowedOrigin, path: "/elsewhere")
            #expect(wrongPath.hasPrefix("HTTP/1.1 404 "))
            _ = try await WebSocketPeer.open(port: harness.port, caPath: harness.caPath)
            _ = try await harness.http("PUT", "/console/session", origin: harness.ownOrigin, body: harness.account.secretKey)
            _ = try await harness.http("PUT", "/console/session", origin: harness.ownOrigin, body: "sk_wrong")
            let text = harness.metrics.collection.render()
            for line in [
                "reader_gateway_websocket_upgrades_total 1", #"reader_gateway_websocket_upgrades_refused_total{reason="origin"} 1"#,
                #"reader_gateway_websocket_upgrades_refused_total{reason="path"} 1"#, #"reader_gateway_console_sign_ins_total{result="signed_in"} 1"#,
                #"reader_gateway_console_sign_ins_total{result="refused"} 1"#,
            ] {
                #expect(text.contains(line + "\n"), "no \(line) in the metrics")
            }
        }
    }

    private func withHarness(authFailuresPerSource: AuthFailureRule = .perSource, _ body: (GatewayHarness) async throws -> Void) async throws {
        try await GatewayHarness.start(authFailuresPerSource: authFailuresPerSource).run(body)
    }
}

/// One HTTP answer of the console.
struct ConsoleAnswer {
    var head: String
    var bodyBytes: [UInt8]
    var status: Int { Int(head.dropFirst("HTTP/1.1 ".count).prefix(3)) ?? 0 }
    var body: String { String(decoding: bodyBytes, as: UTF8.self) }

    func header(_ name: String) -> String? {
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ": ") }.map { String($0.dropFirst(name.count + 2)) }
    }

    /// Whether a `GET /console/session` answer says signed out: 200 `{"signed_in": false}`
    /// (an ordinary signed-out load is not an error the browser would log).
    var saysSignedOut: Bool {
        guard status == 200, let object = try? JSONSerialization.jsonObject(with: Data(bodyBytes)) as? [String: Any] else { return false }
        return object["signed_in"] as? Bool == false
    }

    /// The answer's string members (the session endpoints answer flat JSON objects).
    var json: [String: String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bodyBytes)) as? [String: Any] else { return [:] }
        return object.compactMapValues { $0 as? String }
    }
}

extension GatewayHarness {
    /// The gateway's own origin, as a page it served sends it.
    var ownOrigin: String { "https://127.0.0.1:\(port)" }

    /// One HTTP request on the gateway's TLS port, the answer read until the gateway closes.
    func http(
        _ method: String, _ path: String, origin: String? = nil, cookie: String? = nil, csrf: String? = nil, userAgent: String? = nil, body: String = ""
    ) async throws -> ConsoleAnswer {
        let tls = try await RawFramePeer.connect(port: port, caPath: caPath, timeout: 10)
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: \(body.utf8.count)\r\n"
        if let origin { request += "Origin: \(origin)\r\n" }
        if let cookie { request += "Cookie: \(cookie)\r\n" }
        if let csrf { request += "X-CSRF-Token: \(csrf)\r\n" }
        if let userAgent { request += "User-Agent: \(userAgent)\r\n" }
        try await tls.write(Array((request + "\r\n" + body).utf8))
        let head = try await tls.readHead().mapError { RawFramePeer.Failure(description: "no answer to \(method) \(path): \($0)") }.get()
        let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length: ") }.flatMap { Int($0.dropFirst(16)) } ?? 0
        let bytes = length > 0 ? try await tls.read(exactly: length).mapError { RawFramePeer.Failure(description: "short body: \($0)") }.get() : []
        return ConsoleAnswer(head: head, bodyBytes: bytes)
    }
}

extension WebSocketPeer {
    /// CALL_START with `metadata`, the request, HALF_CLOSE.
    func startCall(stream: UInt32, method: String, _ request: some ProtobufMessage, metadata: [ReaderGatewayV1.MetadataEntry] = []) async throws {
        var start = ReaderGatewayV1.CallStart()
        start.method = method
        start.metadata = metadata
        try await sendFrame(RawWire.frame(0x1, stream: stream, start.serializedBytes()))
        try await sendFrame(RawWire.frame(0x2, stream: stream, request.serializedBytes()))
        try await sendFrame(RawWire.frame(0x3, stream: stream, []))
    }

    /// The next MESSAGE on `stream` (frames of other streams read meanwhile are set aside for
    /// their own calls to this or ``callEnd(on:)``); fails if the call ends first.
    func nextMessage<Message: ProtobufMessage>(on stream: UInt32, as type: Message.Type) async throws -> Message {
        while true {
            let frame = try await nextFrame(on: stream)
            if frame.type == 0x2 { return try Message(serializedBytes: frame.payload) }
            if frame.type == 0x4 {
                let end = try ReaderGatewayV1.CallEnd(serializedBytes: frame.payload)
                throw RawFramePeer.Failure(description: "the call on stream \(stream) ended: \(String(describing: end.status))")
            }
        }
    }

    /// The status the call on `stream` ends with (its messages before it are skipped; other
    /// streams' frames are set aside, as by ``nextMessage(on:as:)``).
    func callEnd(on stream: UInt32) async throws -> ReaderGatewayV1.Status {
        while true {
            let frame = try await nextFrame(on: stream)
            if frame.type == 0x4 { return try ReaderGatewayV1.CallEnd(serializedBytes: frame.payload).status ?? .ok }
        }
    }

    /// The next frame on `stream`: the earliest set aside, else the next read; frames of other
    /// streams read meanwhile are set aside in order. A watcher's event that arrives before the
    /// answer a test waits for on another stream is therefore still there afterwards.
    private func nextFrame(on stream: UInt32) async throws -> RawFramePeer.RawFrame {
        if let frame = setAside.withLock({ frames in frames.firstIndex { $0.streamID == stream }.map { frames.remove(at: $0) } }) {
            return frame
        }
        while true {
            let frame = try await readProtocolFrame()
            if frame.streamID == stream { return frame }
            setAside.withLock { $0.append(frame) }
        }
    }
}
