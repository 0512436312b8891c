import Foundation
import GatewayPostgres
import GatewayRepositories
@testable import GatewayService
import GatewayTestKit
import GatewayTestSupport
import GatewayWire
import Testing

/// The audit log on a running gateway (real PostgreSQL, real TLS): each administrative change
/// writes its row naming the key, the caller's address and the outcome; each refusal for a
/// missing permission does too; `ListAuditEvents` pages and filters; accounts and locations
/// are kept apart; and a release forced mid-payment names its key in the audit log (as
/// `gatewayctl audit` prints it) and in the reader's ownership history.
@Suite("audit log")
struct AuditLogTests {
    typealias Admin = ReaderGatewayV1.FleetAdmin

    /// Every audit row `admin` sees, newest first, following the pages (`limit` each).
    static func allRows(
        _ admin: TestAdmin, _ request: ReaderGatewayV1.ListAuditEventsRequest = .init(), limit: UInt32 = 100
    ) async throws -> [ReaderGatewayV1.AuditEvent] {
        var request = request
        request.limit = limit
        var rows: [ReaderGatewayV1.AuditEvent] = []
        while true {
            let page = try await admin.call(Admin.listAuditEvents, request)
            rows += page.events
            guard !page.nextPageToken.isEmpty else { return rows }
            request.pageToken = page.nextPageToken
        }
    }

    /// The id and name of the key `secret` is a secret of, as `ListApiKeys` answers them.
    static func key(_ admin: TestAdmin, named name: String) async throws -> ReaderGatewayV1.ApiKey {
        try #require(try await admin.call(Admin.listApiKeys, .init()).keys.first { $0.name == name }, "no key named \(name)")
    }

    /// A change each method that changes something makes, and the row it must leave (its
    /// outcome and what it concerns). A method whose permission is a write and has no entry
    /// here fails the test: a new change must say how it is audited.
    @Test("each kind of change writes one audit row with the key, the caller's address, the outcome and what it concerned")
    func eachChangeWritesItsRow() async throws {
        let harness = try await GatewayHarness.start()
        do {
            let root = try await harness.admin()
            let secret = try await KeyPermissionTableTests.createKey(root, name: "back office", permissions: .all)
            let admin = try await harness.admin(secretKey: secret)
            let actor = try await Self.key(root, named: "back office")
            let location = try await admin.createLocation("Front")
            let spare = try await admin.registerSerials(["AU-SPARE"], prefix: "Spare", location: location)[0].id
            let free = try await admin.registerSerials(["AU-FREE"], prefix: "Free", location: location)[0].id
            let codeReader = try await TestReader.attach(harness, serial: "WSCAUDIT01")
            let code = try #require(await codeReader.waitForCode(), "no registration code: \(String(describing: codeReader.endStatus))")
            let throwaway = try await KeyPermissionTableTests.createKey(admin, name: "throwaway", permissions: KeyPermissionTableTests.readOnly)
            let throwawayID = try await Self.key(admin, named: "throwaway").id
            _ = throwaway

            // Webhook endpoints to change, resend to and delete; `localhost` with the default
            // SSRF guard, so the gateway never sends their deliveries anywhere.
            func makeEndpoint(_ path: String) async throws -> String {
                var request = ReaderGatewayV1.CreateWebhookEndpointRequest()
                request.url = "https://localhost:9\(path)"
                return try #require(try await root.call(Admin.createWebhookEndpoint, request).endpoint?.id)
            }
            let kept = try await makeEndpoint("/kept")
            let doomed = try await makeEndpoint("/doomed")
            let anEvent = try #require(try await root.call(Admin.listEvents, ReaderGatewayV1.ListEventsRequest()).events.first?.id)

            struct Expected {
                var reader: String?
                var location: String?
                var target: String?
                var detail: String
            }
            var update = ReaderGatewayV1.ReaderSoftwareUpdate()
            update.deviceType = .simulatedWiseposE
            update.version = "9.9.9"
            update.components = ["firmware"]
            let changes: [FleetAdminMethod: () async throws -> Expected] = [
                .createLocation: {
                    let made = try await admin.createLocation("Back")
                    return Expected(location: made, detail: "created location \"Back\"")
                },
                .updateLocation: {
                    var request = ReaderGatewayV1.UpdateLocationRequest()
                    request.locationID = location
                    request.displayName = "Front door"
                    _ = try await admin.call(Admin.updateLocation, request)
                    return Expected(location: location, detail: "updated location \"Front door\"")
                },
                .registerReader: {
                    let reader = try await admin.registerCode(code, label: "Till", location: location)
                    return Expected(reader: reader.id, location: location, detail: "registered reader WSCAUDIT01 by its registration code")
                },
                .registerReadersBySerial: {
                    let readers = try await admin.registerSerials(["AU-0001"], prefix: "Serial", location: location)
                    return Expected(location: location, detail: "registered 1 reader(s) by serial: \(readers[0].id)")
                },
                .deleteReader: {
                    var request = ReaderGatewayV1.DeleteReaderRequest()
                    request.readerID = spare
                    _ = try await admin.call(Admin.deleteReader, request)
                    return Expected(reader: spare, location: location, detail: "deleted reader AU-SPARE (Spare)")
                },
                .forceReleaseReader: {
                    var request = ReaderGatewayV1.ForceReleaseReaderRequest()
                    request.readerID = free
                    _ = try await admin.call(Admin.forceReleaseReader, request)
                    return Expected(reader: free, location: location, detail: "the reader had no owner")
                },
                .createConnectionToken: {
                    _ = try await admin.connectionToken(location: location)
                    return Expected(location: location, detail: "minted a connection token for location \(location)")
                },
                .addSoftwareUpdate: {
                    var request = ReaderGatewayV1.AddSoftwareUpdateRequest()
                    request.update = update
                    _ = try await admin.call(Admin.addSoftwareUpdate, request)
                    return Expected(target: "simulated_wisepos_e 9.9.9", detail: "added update 9.9.9 for simulated_wisepos_e")
                },
                .removeSoftwareUpdate: {
                    var request = ReaderGatewayV1.RemoveSoftwareUpdateRequest()
                    request.deviceType = .simulatedWiseposE
                    request.version = "9.9.9"
                    _ = try await admin.call(Admin.removeSoftwareUpdate, request)
                    return Expected(target: "simulated_wisepos_e 9.9.9", detail: "removed update 9.9.9 for simulated_wisepos_e")
                },
                .createApiKey: {
                    var request = ReaderGatewayV1.CreateApiKeyRequest()
                    request.name = "made here"
                    var permissions = ReaderGatewayV1.ApiKeyPermissions()
                    permissions.readers = .read
                    request.permissions = permissions
                    let made = try await admin.call(Admin.createApiKey, request)
                    return Expected(target: made.key?.id, detail: "created key \"made here\" (readers=read)")
                },
                .rollApiKey: {
                    var request = ReaderGatewayV1.RollApiKeyRequest()
                    request.keyID = throwawayID
                    _ = try await admin.call(Admin.rollApiKey, request)
                    return Expected(target: throwawayID, detail: "rolled key \"throwaway\"")
                },
                .createWebhookEndpoint: {
                    var request = ReaderGatewayV1.CreateWebhookEndpointRequest()
                    request.url = "https://localhost:9/made"
                    let made = try await admin.call(Admin.createWebhookEndpoint, request)
                    return Expected(target: made.endpoint?.id, detail: "created a webhook endpoint for https://localhost:9/made (*)")
                },
                .updateWebhookEndpoint: {
                    var request = ReaderGatewayV1.UpdateWebhookEndpointRequest()
                    request.endpointID = kept
                    request.description = "renamed"
                    _ = try await admin.call(Admin.updateWebhookEndpoint, request)
                    return Expected(target: kept, detail: "changed description")
                },
                .deleteWebhookEndpoint: {
                    var request = ReaderGatewayV1.DeleteWebhookEndpointRequest()
                    request.endpointID = doomed
                    _ = try await admin.call(Admin.deleteWebhookEndpoint, request)
                    return Expected(target: doomed, detail: "deleted the webhook endpoint")
                },
                .resendEvent: {
                    var request = ReaderGatewayV1.ResendEventRequest()
                    request.endpointID = kept
                    request.eventID = anEvent
                    _ = try await admin.call(Admin.resendEvent, request)
                    return Expected(target: kept, detail: "queued event \(anEvent) again")
                },
                .resendEvents: {
                    var request = ReaderGatewayV1.ResendEventsRequest()
                    request.endpointID = kept
                    request.createdFromUnixMs = 1
                    _ = try await admin.call(Admin.resendEvents, request)
                    return Expected(target: kept, detail: "queued again the events created from 1 to ")
                },
                .revokeApiKey: {
                    var request = ReaderGatewayV1.RevokeApiKeyRequest()
                    request.keyID = throwawayID
                    _ = try await admin.call(Admin.revokeApiKey, request)
                    return Expected(target: throwawayID, detail: "revoked key \"throwaway\"")
                },
            ]
            for method in FleetAdminMethod.allCases where method.requirement.level == .write {
                guard let change = changes[method] else {
                    Issue.record("\(method.name) changes something and this test makes no such change: add it, with the row it must write")
                    continue
                }
                let before = try await Self.allRows(root).count
                let expected = try await change()
                let rows = try await Self.allRows(root)
                #expect(rows.count == before + 1, "\(method.name) wrote \(rows.count - before) rows")
                let row = try #require(rows.first)
                #expect(row.action == method.name)
                #expect(row.outcome == "ok", "\(method.name): \(row.outcome) \(row.detail)")
                #expect(row.keyID == actor.id && row.keyName == "back office", "\(method.name): \(row.keyID) \(row.keyName)")
                #expect(row.sourceAddress.hasPrefix("127.0.0.1:"), "\(method.name): \(row.sourceAddress)")
                #expect(row.userAgent.isEmpty)
                #expect(row.id.hasPrefix("aud_") && row.id.count == 36, "\(row.id)")
                #expect(row.readerID == (expected.reader ?? ""), "\(method.name): reader \(row.readerID)")
                #expect(row.locationID == (expected.location ?? ""), "\(method.name): location \(row.locationID)")
                #expect(row.targetID == (expected.target ?? ""), "\(method.name): target \(row.targetID)")
                #expect(row.detail.hasPrefix(expected.detail), "\(method.name): \(row.detail)")
            }
            // Reads write nothing.
            let count = try await Self.allRows(root).count
            _ = try await admin.call(Admin.listReaders, .init())
            _ = try await admin.call(Admin.listApiKeys, .init())
            #expect(try await Self.allRows(root).count == count)

            // A change that fails is audited with its reason.
            var missing = ReaderGatewayV1.DeleteReaderRequest()
            missing.readerID = "tmr_nosuchreader"
            await expectFailure(.readerNotFound) { try await admin.call(Admin.deleteReader, missing) }
            let failed = try #require(try await Self.allRows(root).first)
            #expect(failed.action == "DeleteReader" && failed.outcome == "READER_NOT_FOUND" && failed.readerID == "tmr_nosuchreader", "\(failed)")
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    @Test("a refusal for a missing permission is audited with the key and the permission, for reads and changes alike")
    func refusalsAreAudited() async throws {
        let harness = try await GatewayHarness.start()
        do {
            let root = try await harness.admin()
            let location = try await root.createLocation("Front")
            let reader = try await root.registerSerials(["AU-REF"], prefix: "R", location: location)[0].id
            let readOnly = try await harness.admin(secretKey: try await KeyPermissionTableTests.createKey(root, name: "wall", permissions: KeyPermissionTableTests.readOnly))
            var nothing = KeyPermissions()
            nothing[.locations] = .read
            let narrow = try await harness.admin(secretKey: try await KeyPermissionTableTests.createKey(root, name: "narrow", permissions: nothing))
            let wall = try await Self.key(root, named: "wall")

            var release = ReaderGatewayV1.ForceReleaseReaderRequest()
            release.readerID = reader
            await expectFailure(.permissionDenied) { try await readOnly.call(Admin.forceReleaseReader, release) }
            await expectFailure(.permissionDenied) { try await narrow.call(Admin.listReaders, .init()) }

            var refused = ReaderGatewayV1.ListAuditEventsRequest()
            refused.outcome = .refused
            let rows = try await Self.allRows(root, refused)
            #expect(rows.map(\.action) == ["ListReaders", "ForceReleaseReader"], "\(rows.map(\.action))")
            #expect(rows.allSatisfy { $0.outcome == "PERMISSION_DENIED" })
            #expect(rows[1].keyID == wall.id && rows[1].keyName == "wall")
            #expect(rows[1].detail.contains("ownership:write"), "\(rows[1].detail)")
            #expect(rows[0].keyName == "narrow" && rows[0].detail.contains("readers:read"), "\(rows[0].detail)")
            // The refused release changed nothing and left no row saying it did.
            var succeeded = ReaderGatewayV1.ListAuditEventsRequest()
            succeeded.actions = ["ForceReleaseReader"]
            succeeded.outcome = .succeeded
            #expect(try await Self.allRows(root, succeeded).isEmpty)
            // Reading the audit log needs keys:read, which `narrow` lacks: refused, and audited.
            await expectFailure(.permissionDenied) { try await narrow.call(Admin.listAuditEvents, .init()) }
            #expect(try await Self.allRows(root, refused).first?.action == "ListAuditEvents")
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    @Test("pages hold still while rows are written; filters narrow by action, key, reader, location, outcome and time; bad filters are refused")
    func pagingAndFilters() async throws {
        let harness = try await GatewayHarness.start()
        do {
            let root = try await harness.admin()
            let front = try await root.createLocation("Front")
            let back = try await root.createLocation("Back")
            let other = try await harness.admin(secretKey: try await KeyPermissionTableTests.createKey(root, name: "other desk", permissions: .all))
            let frontReaders = try await other.registerSerials(["AU-F1", "AU-F2"], prefix: "Front", location: front)
            _ = try await other.registerSerials(["AU-B1"], prefix: "Back", location: back)
            var delete = ReaderGatewayV1.DeleteReaderRequest()
            delete.readerID = frontReaders[1].id
            _ = try await other.call(Admin.deleteReader, delete)
            let all = try await Self.allRows(root)
            // createLocation ×2, createApiKey, registerReadersBySerial ×2, deleteReader.
            #expect(all.map(\.action) == ["DeleteReader", "RegisterReadersBySerial", "RegisterReadersBySerial", "CreateApiKey", "CreateLocation", "CreateLocation"])

            var request = ReaderGatewayV1.ListAuditEventsRequest()
            request.limit = 4
            let first = try await root.call(Admin.listAuditEvents, request)
            #expect(first.events == Array(all.prefix(4)))
            // Rows written between pages land above the first page, never in a later one.
            _ = try await root.createLocation("Late")
            request.pageToken = first.nextPageToken
            let second = try await root.call(Admin.listAuditEvents, request)
            #expect(second.events == Array(all[4...]))
            #expect(second.nextPageToken.isEmpty)

            let otherKey = try await Self.key(root, named: "other desk")
            var byKey = ReaderGatewayV1.ListAuditEventsRequest()
            byKey.keyID = otherKey.id
            #expect(try await Self.allRows(root, byKey, limit: 1).map(\.action) == ["DeleteReader", "RegisterReadersBySerial", "RegisterReadersBySerial"])
            var byAction = ReaderGatewayV1.ListAuditEventsRequest()
            byAction.actions = ["CreateLocation", "CreateApiKey"]
            #expect(try await Self.allRows(root, byAction).count == 4)
            var atBack = ReaderGatewayV1.ListAuditEventsRequest()
            atBack.locationID = back
            #expect(try await Self.allRows(root, atBack).map(\.action) == ["RegisterReadersBySerial", "CreateLocation"])
            var aboutReader = ReaderGatewayV1.ListAuditEventsRequest()
            aboutReader.readerID = frontReaders[1].id
            #expect(try await Self.allRows(root, aboutReader).map(\.action) == ["DeleteReader"])
            var refusedOnly = ReaderGatewayV1.ListAuditEventsRequest()
            refusedOnly.outcome = .refused
            #expect(try await Self.allRows(root, refusedOnly).isEmpty)
            var window = ReaderGatewayV1.ListAuditEventsRequest()
            window.createdFromUnixMs = all[0].createdUnixMs + 60_000
            #expect(try await Self.allRows(root, window).isEmpty)
            window.createdFromUnixMs = all.last!.createdUnixMs
            window.createdBeforeUnixMs = all[0].createdUnixMs + 1
            #expect(Set(try await Self.allRows(root, window).map(\.id)).isSuperset(of: all.map(\.id)))

            func refused(_ request: ReaderGatewayV1.ListAuditEventsRequest, saying words: String) async {
                do {
                    _ = try await root.call(Admin.listAuditEvents, request)
                    Issue.record("ListAuditEvents accepted a request it should refuse (\(words))")
                } catch let failure as CallFailure {
                    #expect(failure.reason == .invalidRequest, "\(failure)")
                    #expect(failure.status.message.contains(words), "\(failure.status.message)")
                } catch {
                    Issue.record("\(error)")
                }
            }
            var unknownAction = ReaderGatewayV1.ListAuditEventsRequest()
            unknownAction.actions = ["ListReaders"]
            await refused(unknownAction, saying: "\"ListReaders\" is not an audited action")
            var eventToken = ReaderGatewayV1.ListAuditEventsRequest()
            eventToken.pageToken = PageCursor.events.token(after: 5)
            await refused(eventToken, saying: "page_token is not one this gateway issued")
            var reversed = ReaderGatewayV1.ListAuditEventsRequest()
            reversed.createdFromUnixMs = 2_000
            reversed.createdBeforeUnixMs = 1_000
            await refused(reversed, saying: "the range is empty")
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    @Test("another account sees none of the rows; a key limited to one location sees that location's rows alone")
    func accountsAndLocationsAreKeptApart() async throws {
        let harness = try await GatewayHarness.start()
        do {
            let root = try await harness.admin()
            let front = try await root.createLocation("Front")
            let back = try await root.createLocation("Back")
            _ = try await root.registerSerials(["AU-IF"], prefix: "Front", location: front)
            _ = try await root.registerSerials(["AU-IB"], prefix: "Back", location: back)
            let limited = try await harness.admin(
                secretKey: try await KeyPermissionTableTests.createKey(root, name: "front desk", permissions: KeyPermissionTableTests.readOnly, locations: [front])
            )
            let all = try await Self.allRows(root)
            let seen = try await Self.allRows(limited, limit: 1)
            #expect(!seen.isEmpty)
            #expect(seen.map(\.id) == all.filter { $0.locationID == front }.map(\.id))
            #expect(seen.allSatisfy { $0.locationID == front })
            var atBack = ReaderGatewayV1.ListAuditEventsRequest()
            atBack.locationID = back
            await expectFailure(.locationNotFound) { try await limited.call(Admin.listAuditEvents, atBack) }

            let other = try await DevelopmentAccount.create(name: "other", client: harness.database.client)
            let otherAdmin = try await harness.admin(secretKey: other.secretKey)
            #expect(try await Self.allRows(otherAdmin).isEmpty)
            _ = try await otherAdmin.createLocation("Theirs")
            #expect(try await Self.allRows(otherAdmin).map(\.action) == ["CreateLocation"])
            #expect(try await Self.allRows(root).count == all.count)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    @Test("a release forced mid-payment: gatewayctl audit names the key, and the history names it too")
    func whoReleasedAReaderMidPayment() async throws {
        let harness = try await GatewayHarness.start()
        do {
            let store = try await StoreFixture.make(harness)
            var support = KeyPermissions()
            support[.ownership] = .write
            support[.readers] = .read
            let supportSecret = try await KeyPermissionTableTests.createKey(store.admin, name: "support desk", permissions: support)
            let supportKey = try await Self.key(store.admin, named: "support desk")
            let lane = try await store.lane("Lane 1")
            try await lane.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
            let collecting = Task { try await lane.collect() }
            #expect(await eventually { store.reader.isHoldingCollect })

            var release = ReaderGatewayV1.ForceReleaseReaderRequest()
            release.readerID = store.readerID
            let released = try await harness.admin(secretKey: supportSecret).call(Admin.forceReleaseReader, release)
            #expect(released.releasedOwner?.laneLabel == "Lane 1")
            collecting.cancel()

            // The audit row, written by the release's own statement.
            var releases = ReaderGatewayV1.ListAuditEventsRequest()
            releases.actions = ["ForceReleaseReader"]
            let rows = try await Self.allRows(store.admin, releases)
            #expect(rows.count == 1)
            let row = try #require(rows.first)
            #expect(row.keyID == supportKey.id && row.keyName == "support desk" && row.outcome == "ok")
            #expect(row.readerID == store.readerID && row.locationID == store.location)
            #expect(row.detail.contains("(lane Lane 1), interrupting collect_payment_method"), "\(row.detail)")

            // The history entry of the release names the key.
            let history = try await store.admin.history(of: store.readerID)
            let entry = try #require(history.first { $0.reason == .adminReleased })
            #expect(entry.releasedByKeyID == supportKey.id && entry.releasedByKeyName == "support desk")
            #expect(entry.previousOwner?.laneLabel == "Lane 1")

            // gatewayctl as an operator runs it.
            func ctl(_ arguments: [String]) async throws -> (status: Int32?, output: String) {
                try await LoggedProcess.run(
                    PackageExecutables.path("gatewayctl"),
                    ["--gateway", "127.0.0.1:\(harness.port)", "--ca", harness.caPath, "--server-name", "localhost", "--secret-key", store.admin.secretKey] + arguments,
                    logPath: harness.directory + "/gatewayctl-\(arguments[0]).log"
                )
            }
            let audit = try await ctl(["audit", "--action", "ForceReleaseReader", "--reader", store.readerID])
            #expect(audit.status == 0, "\(audit.output)")
            let line = try #require(audit.output.split(separator: "\n").first { $0.contains("ForceReleaseReader") }, "\(audit.output)")
            #expect(line.contains("support desk (\(supportKey.id))") && line.contains("127.0.0.1:") && line.contains("interrupting collect_payment_method"), "\(line)")
            let shown = try await ctl(["history", store.readerID])
            #expect(shown.status == 0, "\(shown.output)")
            #expect(shown.output.contains("admin_released by support desk (\(supportKey.id))"), "\(shown.output)")
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    @Test("console sign-in, a change over the console's WebSocket and sign-out are audited with the key, the address and the browser's user-agent")
    func theConsoleIsAudited() async throws {
        let harness = try await GatewayHarness.start()
        do {
            let root = try await harness.admin()
            let location = try await root.createLocation("Front")
            let secret = try await KeyPermissionTableTests.createKey(root, name: "store manager", permissions: .all)
            let manager = try await Self.key(root, named: "store manager")
            let browser = "Mozilla/5.0 (X11; Linux x86_64) AuditTest/1.0"

            let wrong = try await harness.http("PUT", "/console/session", origin: harness.ownOrigin, userAgent: browser, body: "sk_not_a_key_of_anyone")
            #expect(wrong.status == 401)
            let signIn = try await harness.http("PUT", "/console/session", origin: harness.ownOrigin, userAgent: browser, body: secret)
            #expect(signIn.status == 200, "\(signIn.head)")
            let cookie = String(try #require(signIn.header("Set-Cookie")).prefix { $0 != ";" })
            let csrf = try #require(signIn.json["csrf_token"])

            let peer = try await WebSocketPeer.open(port: harness.port, caPath: harness.caPath, origin: harness.ownOrigin, cookie: cookie, userAgent: browser)
            var register = ReaderGatewayV1.RegisterReadersBySerialRequest()
            register.serialNumbers = ["AU-CONSOLE"]
            register.labelPrefix = "C"
            register.locationID = location
            try await peer.startCall(stream: 1, method: Admin.registerReadersBySerial.path, register, metadata: [.init("x-csrf-token", csrf)])
            _ = try await peer.nextMessage(on: 1, as: ReaderGatewayV1.RegisterReadersBySerialResponse.self)

            let signOut = try await harness.http("DELETE", "/console/session", cookie: cookie, csrf: csrf, userAgent: browser)
            #expect(signOut.status == 200)

            var console = ReaderGatewayV1.ListAuditEventsRequest()
            console.keyID = manager.id
            let rows = try await Self.allRows(root, console)
            // A wrong key names no account: nothing to write it under.
            #expect(rows.map(\.action) == ["ConsoleSignOut", "RegisterReadersBySerial", "ConsoleSignIn"], "\(rows.map(\.action))")
            for row in rows {
                #expect(row.keyName == "store manager" && row.outcome == "ok", "\(row)")
                #expect(row.userAgent == browser, "\(row.action): \(row.userAgent)")
                #expect(row.sourceAddress.hasPrefix("127.0.0.1:"), "\(row.action): \(row.sourceAddress)")
            }
            #expect(rows[1].locationID == location)
            // The same change with the secret key (no console) names no user-agent.
            _ = try await harness.admin(secretKey: secret).registerSerials(["AU-API"], prefix: "A", location: location)
            #expect(try await Self.allRows(root, console).first?.userAgent == "")
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }
}
