import Foundation
import GatewayConsole
import GatewayCore
import GatewayOperations
import GatewayRepositories
import GatewayWebSocket

/// The fleet console's HTTP side, on the gateway's TLS port under `/console`:
///
/// | request | answer |
/// |---|---|
/// | `GET /console` | 303 to `/console/` |
/// | `GET /console/`, `GET /console/<file>` | the page and its modules and style (``ConsoleFiles``), with the CSP |
/// | `GET /console/session` | 200 `{signed_in: true, account, csrf_token, expires_unix_ms}` for a live session cookie, else 200 `{signed_in: false}` (an ordinary signed-out load, not an error) |
/// | `GET /favicon.ico` | 204: the gateway has no icon (a browser asks beside every page) |
/// | `PUT /console/session` (body: the secret key) | sign-in: the session cookie and 200 `{account, csrf_token, …}`; 401 for a wrong key; 429 with `Retry-After` while the source address (or the account of a retired key) is locked out (PROTOCOL.md section 22) |
/// | `DELETE /console/session` (`X-CSRF-Token`) | sign-out: the session row deleted, the cookie cleared |
///
/// Everything else the console does (the fleet, history, register, release) goes over the
/// WebSocket binding as `FleetAdmin` calls, authorised by the same cookie (see
/// `FleetAdminService.consoleAccess`). Sign-in only from the gateway's own pages: a `PUT`
/// whose `Origin` is not the gateway's is refused (403), as is a sign-out without the CSRF token.
struct ConsoleResponder: Sendable {
    let database: GatewayDatabase
    let metrics: GatewayMetrics
    /// Failed sign-ins, limited per source address and account.
    let limiter: AuthenticationLimiter
    let logger = Logger(component: "console")

    static let prefix = "/console"

    func respond(to request: HTTPRequest, peer: String) async -> [UInt8] {
        await response(to: request, peer: peer).bytes
    }

    /// The answer to `request` from `peer` (the socket's remote address, `host:port`), which the
    /// audit rows of sign-in and sign-out name and the limiter of failed sign-ins counts by.
    func response(to request: HTTPRequest, peer: String) async -> ConsoleResponse {
        let host = request.value("host") ?? ""
        switch (request.method, request.path) {
        case ("GET", Self.prefix):
            var redirect = ConsoleResponse.text(status: 303, "the console is at \(Self.prefix)/\n")
            redirect.headers.append(("Location", Self.prefix + "/"))
            return redirect
        case ("GET", Self.prefix + "/session"):
            guard let session = await currentSession(request) else {
                return .json(status: 200, [("signed_in", .bool(false)), ("message", .string("not signed in; sign in with the account's secret key"))])
            }
            return await sessionAnswer(session, key: sessionKey(session))
        case ("GET", "/favicon.ico"):
            return ConsoleResponse(status: 204, contentType: "image/x-icon", body: [])
        case ("PUT", Self.prefix + "/session"):
            return await signIn(request, host: host, peer: peer)
        case ("DELETE", Self.prefix + "/session"):
            return await signOut(request, peer: peer)
        case ("GET", _) where request.path.hasPrefix(Self.prefix + "/"):
            return file(request.path.dropFirst(Self.prefix.count + 1), host: host)
        case (_, Self.prefix + "/session"):
            var refused = ConsoleResponse.text(status: 405, "use GET, PUT (sign in) or DELETE (sign out) on \(Self.prefix)/session\n")
            refused.headers.append(("Allow", "GET, PUT, DELETE"))
            return refused
        default:
            var refused = ConsoleResponse.text(status: 405, "the console's pages are read with GET\n")
            refused.headers.append(("Allow", "GET"))
            return refused
        }
    }

    private func file(_ name: Substring, host: String) -> ConsoleResponse {
        let path = name.isEmpty ? "index.html" : String(name)
        guard let bytes = ConsoleFiles.files[path] else {
            return .text(status: 404, "no page \(Self.prefix)/\(path) in the console; open \(Self.prefix)/\n")
        }
        let type = path.hasSuffix(".html") ? "text/html; charset=utf-8" : path.hasSuffix(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8"
        var response = ConsoleResponse(status: 200, contentType: type, body: bytes)
        response.headers.append(("Content-Security-Policy", ConsoleResponse.contentSecurityPolicy(host: host)))
        return response
    }

    /// The session, with the key it signed in with: its id, name and permissions
    /// (`resource=level` pairs), so the page shows what the key may use.
    private func sessionAnswer(_ session: ConsoleSessionRecord, key: ApiKeyRecord?) -> ConsoleResponse {
        .json(status: 200, [
            ("signed_in", .bool(true)), ("account", .string(session.accountID)), ("csrf_token", .string(session.csrfToken)),
            ("expires_unix_ms", .number(Int64(session.expiresAt.timeIntervalSince1970 * 1000))),
            ("key_id", .string(key?.id ?? "")), ("key_name", .string(key?.name ?? "account key")),
            ("permissions", .string((key?.permissions ?? .all).text)),
        ])
    }

    private func sessionKey(_ session: ConsoleSessionRecord) async -> ApiKeyRecord? {
        guard let id = session.keyID else { return nil }
        do { return try await database.apiKeys.key(id, account: session.accountID, now: Date()) } catch {
            logger.warning("could not read a console session's key", ["error": error])
            return nil
        }
    }

    private func currentSession(_ request: HTTPRequest) async -> ConsoleSessionRecord? {
        guard let token = request.values("cookie").lazy.compactMap(ConsoleCookie.token(inCookieHeader:)).first else { return nil }
        do { return try await database.consoleSessions.consoleSession(token: token) } catch {
            logger.warning("could not read a console session", ["error": error])
            return nil
        }
    }

    private func signIn(_ request: HTTPRequest, host: String, peer: String) async -> ConsoleResponse {
        let source = AuthenticationLimiter.sourceKey(peer: peer)
        guard request.value("origin")?.lowercased() == "https://" + host.lowercased() else {
            metrics.browser.consoleSignIns.labels(ConsoleSignInResult.refused).increment()
            return .json(status: 403, [("error", .string("sign in from the console's own page (\(Self.prefix)/); other origins may not"))])
        }
        if let lockout = limiter.lockout(of: source, surface: .consoleSignIn) { return Self.limited(lockout) }
        let key = String(decoding: request.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard key.hasPrefix("sk_"), key.count <= 128 else {
            metrics.browser.consoleSignIns.labels(ConsoleSignInResult.refused).increment()
            return .json(status: 401, [("error", .string("that is not a secret key (sk_...); paste the account's secret key"))])
        }
        let found: ApiKeyLookup
        do { found = try await database.apiKeys.lookup(secret: key, now: Date()) } catch {
            metrics.browser.consoleSignIns.labels(ConsoleSignInResult.failed).increment()
            logger.warning("console sign-in failed", ["error": error])
            return .json(status: 503, [("error", .string("the gateway's database did not answer; try again in a moment"))])
        }
        let signedInKey: ApiKeyRecord
        switch found {
        case .valid(let record): signedInKey = record
        case .retired(let record, let retirement):
            metrics.browser.consoleSignIns.labels(ConsoleSignInResult.refused).increment()
            let message = KeyRefusal.message(record, retirement)
            await audit(ConsoleAudit.signIn, key: record, request, peer: peer, outcome: "SECRET_KEY_RETIRED", detail: message)
            if let lockout = await limiter.failed(source: source, account: record.accountID, surface: .consoleSignIn) { return Self.limited(lockout) }
            return .json(status: 401, [("error", .string(message))])
        case .unknown:
            metrics.browser.consoleSignIns.labels(ConsoleSignInResult.refused).increment()
            if let lockout = await limiter.failed(source: source, account: nil, surface: .consoleSignIn) { return Self.limited(lockout) }
            return .json(status: 401, [("error", .string("no account has this secret key; check the key (gatewayctl prints it when the account is created)"))])
        }
        let created: (token: String, record: ConsoleSessionRecord)
        do {
            // The sign-in's audit row is written by the session's insert.
            created = try await database.consoleSessions.createConsoleSession(
                key: signedInKey, lifetime: ConsoleCookie.lifetime,
                audit: auditEntry(ConsoleAudit.signIn, key: signedInKey, request, peer: peer, detail: "signed in to the console")
            )
        } catch {
            metrics.browser.consoleSignIns.labels(ConsoleSignInResult.failed).increment()
            logger.warning("console sign-in failed", ["error": error])
            return .json(status: 503, [("error", .string("the gateway's database did not answer; try again in a moment"))])
        }
        metrics.browser.consoleSignIns.labels(ConsoleSignInResult.signedIn).increment()
        logger.info("console signed in", ["account": created.record.accountID, "key": signedInKey.id])
        var response = sessionAnswer(created.record, key: signedInKey)
        response.headers.append(("Set-Cookie", ConsoleCookie.setting(created.token)))
        return response
    }

    /// 429 with `Retry-After` (whole seconds, rounded up) and the wait in milliseconds.
    static func limited(_ lockout: AuthLockout) -> ConsoleResponse {
        var response = ConsoleResponse.json(status: 429, [
            ("error", .string(lockout.message)), ("reason", .string("AUTHENTICATION_RATE_LIMITED")), ("retry_after_ms", .number(lockout.retryAfterMs)),
        ])
        response.headers.append(("Retry-After", String(lockout.retryAfterSeconds)))
        return response
    }

    private func signOut(_ request: HTTPRequest, peer: String) async -> ConsoleResponse {
        guard let token = request.values("cookie").lazy.compactMap(ConsoleCookie.token(inCookieHeader:)).first else {
            var response = ConsoleResponse.json(status: 200, [("signed_out", .bool(true))])
            response.headers.append(("Set-Cookie", ConsoleCookie.clearing))
            return response
        }
        let session: ConsoleSessionRecord?
        do { session = try await database.consoleSessions.consoleSession(token: token) } catch {
            return .json(status: 503, [("error", .string("the gateway's database did not answer; try again in a moment"))])
        }
        if let session, request.value("x-csrf-token") != session.csrfToken {
            return .json(status: 403, [("error", .string("signing out needs the session's CSRF token (X-CSRF-Token); reload the console"))])
        }
        do {
            if let session {
                // The sign-out's audit row is written by the session's delete.
                let key = await sessionKey(session) ?? AdminAccess.accountKey(of: session.accountID).key
                let entry = auditEntry(ConsoleAudit.signOut, key: key, request, peer: peer, detail: "signed out of the console")
                _ = try await database.consoleSessions.deleteConsoleSession(token: token, audit: entry)
            } else {
                _ = try await database.consoleSessions.deleteConsoleSession(token: token)
            }
        } catch {
            return .json(status: 503, [("error", .string("the gateway's database did not answer; try again in a moment"))])
        }
        var response = ConsoleResponse.json(status: 200, [("signed_out", .bool(true))])
        response.headers.append(("Set-Cookie", ConsoleCookie.clearing))
        return response
    }

    /// The audit row of a sign-in or sign-out by `key`, from `peer` with the request's browser.
    private func auditEntry(
        _ action: String, key: ApiKeyRecord, _ request: HTTPRequest, peer: String, outcome: String = AuditEntry.ok, detail: String
    ) -> AuditEntry {
        AuditEntry(
            accountID: key.accountID, action: action,
            actor: AuditActor(keyID: key.id, keyName: key.name, sourceAddress: peer, userAgent: request.value("user-agent")),
            outcome: outcome, detail: detail
        )
    }

    /// Writes the audit row of a refused sign-in (no session to write it with). The refusal is
    /// answered already, so a failure is logged and counted, not answered.
    private func audit(
        _ action: String, key: ApiKeyRecord, _ request: HTTPRequest, peer: String, outcome: String = AuditEntry.ok, detail: String
    ) async {
        let entry = auditEntry(action, key: key, request, peer: peer, outcome: outcome, detail: detail)
        do { try await database.audit.record(entry) } catch {
            metrics.storeErrors.labels(StoreErrorKind(error)).increment()
            logger.warning("writing the audit row of a console \(action == ConsoleAudit.signIn ? "sign-in" : "sign-out") failed: the audit log misses it", ["error": error])
        }
    }
}
