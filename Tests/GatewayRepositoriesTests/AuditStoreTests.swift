import Foundation
import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
import GatewayWire
import Testing

/// The audit rows written by the change's own statement (migration 0023): a forced release,
/// a key's creation, roll and revocation, a location, a token, a console sign-in and out, a
/// reader registered or deleted, a location changed and an update catalog entry commit with
/// their row, and when the row cannot be written the change is not made either. The history row of a forced release names
/// the key.
@Suite("Audit log: rows written with their change")
struct AuditStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_900_000_000)

    static func entry(_ action: String, account: String, keyName: String = "support desk", detail: String = "") -> AuditEntry {
        AuditEntry(
            accountID: account, action: action, actor: AuditActor(keyID: "key_support", keyName: keyName, sourceAddress: "192.0.2.7:50123"),
            detail: detail
        )
    }

    /// The key name of audit rows the test's trigger refuses (``refuseMarkedRows(_:)``).
    static let unwritable = "refused by the test"

    /// A trigger that makes the insert of an audit row named ``unwritable`` fail, as a full
    /// disk or a lost connection would: the statement that carries it fails as a whole.
    static func refuseMarkedRows(_ client: PostgresClient) async throws {
        try await client.execute(
            """
            CREATE FUNCTION test_refuse_audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.key_name = '\(unwritable)' THEN RAISE EXCEPTION 'audit row refused by the test'; END IF;
                RETURN NEW;
            END $$
            """
        )
        try await client.execute(
            "CREATE TRIGGER test_refuse_audit_row BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION test_refuse_audit_row()"
        )
    }

    static func rows(_ client: PostgresClient, account: String) async throws -> [AuditRecord] {
        try await AuditStore(client: client).events(account: account, filter: AuditFilter(), beforeSeq: nil, limit: 100)
    }

    @Test func aForcedReleaseWritesItsRowAndNamesItsKeyInTheHistoryOrChangesNothing() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            let owner = ReaderOwner(session: SessionID("sess_audit"), lane: LaneLabel("Till 1"))
            try await fixtures.openSession(owner.session, lane: owner.lane)
            let reader = ReaderID("tmr_audit")
            try await fixtures.registerReader(reader)
            _ = try await store.readerAttached(reader)
            _ = try await store.claim(reader, ConnectRequest(session: owner.session, lane: owner.lane))
            let account = OwnershipFixtures.account
            try await Self.refuseMarkedRows(client)

            // The row cannot be written: the release is not made.
            await #expect(throws: StoreError.self) {
                try await store.adminRelease(reader: reader, audit: Self.entry("ForceReleaseReader", account: account, keyName: Self.unwritable))
            }
            #expect(try await store.ownership(of: reader)?.owner == owner)
            #expect(try await Self.rows(client, account: account).isEmpty)

            guard case .released = try await store.adminRelease(reader: reader, audit: Self.entry("ForceReleaseReader", account: account, detail: "unused")) else {
                Issue.record("the owned reader was not released")
                return
            }
            #expect(try await store.ownership(of: reader)?.owner == nil)
            let rows = try await Self.rows(client, account: account)
            #expect(rows.count == 1)
            #expect(rows.first?.entry.actor == AuditActor(keyID: "key_support", keyName: "support desk", sourceAddress: "192.0.2.7:50123"))
            #expect(rows.first?.entry.detail.hasPrefix("released session sess_audit (lane Till 1) at generation ") == true, "\(rows.first?.entry.detail ?? "")")
            let released = try #require(try await store.history(of: reader).first)
            #expect(released.reason == .adminReleased && released.byKeyID == "key_support" && released.byKeyName == "support desk")

            // No owner: nothing released, the row says so (the detail given).
            guard case .unchanged = try await store.adminRelease(reader: reader, audit: Self.entry("ForceReleaseReader", account: account, detail: "the reader had no owner")) else {
                Issue.record("a reader without an owner was released")
                return
            }
            #expect(try await Self.rows(client, account: account).first?.entry.detail == "the reader had no owner")
            // The release without an audit entry (a reader's deletion) names no key.
            _ = try await store.claim(reader, ConnectRequest(session: owner.session, lane: owner.lane))
            _ = try await store.adminRelease(reader: reader)
            let plain = try #require(try await store.history(of: reader).first)
            #expect(plain.reason == .adminReleased && plain.byKeyID == nil && plain.byKeyName == nil)
        }
    }

    @Test func aKeysCreationRollAndRevocationWriteTheirRowsOrChangeNothing() async throws {
        try await withOwnershipDatabase { client in
            let account = try await Accounts.create(name: "audit", client: client)
            let keys = ApiKeyStore(client: client)
            try await Self.refuseMarkedRows(client)

            await #expect(throws: StoreError.self) {
                try await keys.createKey(
                    account: account.id, name: "never", permissions: KeyPermissions([.readers: .read]), locations: nil, expiresAt: nil, now: Self.t0,
                    audit: Self.entry("CreateApiKey", account: account.id, keyName: Self.unwritable)
                )
            }
            #expect(try await keys.keys(account: account.id, now: Self.t0).filter { $0.name == "never" }.isEmpty)

            let created = try await keys.createKey(
                account: account.id, name: "wall", permissions: KeyPermissions([.readers: .read]), locations: nil, expiresAt: nil, now: Self.t0,
                audit: Self.entry("CreateApiKey", account: account.id, detail: "created")
            )
            #expect(try await Self.rows(client, account: account.id).map(\.entry.targetID) == [created.key.id])

            await #expect(throws: StoreError.self) {
                try await keys.rollKey(created.key.id, account: account.id, overlapUntil: Self.t0 + 60, now: Self.t0, audit: Self.entry("RollApiKey", account: account.id, keyName: Self.unwritable))
            }
            if case .valid = try await keys.lookup(secret: created.secret, now: Self.t0 + 3600) {} else { Issue.record("a roll whose audit row failed rolled the key") }
            let rolled = try #require(try await keys.rollKey(created.key.id, account: account.id, overlapUntil: Self.t0 + 60, now: Self.t0, audit: Self.entry("RollApiKey", account: account.id)))
            #expect(rolled.key.rolledAt == Self.t0)

            await #expect(throws: StoreError.self) {
                try await keys.revokeKey(created.key.id, account: account.id, now: Self.t0, audit: Self.entry("RevokeApiKey", account: account.id, keyName: Self.unwritable))
            }
            #expect(try await keys.key(created.key.id, account: account.id, now: Self.t0)?.revokedAt == nil)
            let revoked = try #require(try await keys.revokeKey(created.key.id, account: account.id, now: Self.t0, audit: Self.entry("RevokeApiKey", account: account.id)))
            #expect(revoked.audited && revoked.key.revokedAt != nil)
            // Revoked before: answered as it is, no row written by the statement.
            let again = try #require(try await keys.revokeKey(created.key.id, account: account.id, now: Self.t0 + 1, audit: Self.entry("RevokeApiKey", account: account.id)))
            #expect(!again.audited)
            #expect(try await Self.rows(client, account: account.id).map(\.entry.action) == ["RevokeApiKey", "RollApiKey", "CreateApiKey"])
            // An unknown key: nothing rolled, nothing written.
            #expect(try await keys.rollKey("key_nosuchkey", account: account.id, overlapUntil: Self.t0, now: Self.t0, audit: Self.entry("RollApiKey", account: account.id)) == nil)
            #expect(try await Self.rows(client, account: account.id).count == 3)
        }
    }

    @Test func aLocationAndAConnectionTokenAreMadeWithTheirRowsOrNotAtAll() async throws {
        try await withOwnershipDatabase { client in
            let account = try await Accounts.create(name: "audit", client: client)
            try await Self.refuseMarkedRows(client)
            let locations = LocationStore(client: client)
            let tokens = ConnectionTokenStore(client: client)

            await #expect(throws: StoreError.self) {
                try await locations.createLocation(
                    account: account.id, displayName: "Never", address: .init(), audit: Self.entry("CreateLocation", account: account.id, keyName: Self.unwritable)
                )
            }
            #expect(try await locations.locations(account: account.id, after: nil, limit: 10).isEmpty)
            let created = try await locations.createLocation(
                account: account.id, displayName: "Front", address: .init(), audit: Self.entry("CreateLocation", account: account.id)
            )
            #expect(try await Self.rows(client, account: account.id).map(\.entry.locationID) == [created.id])

            let before = try await client.query("SELECT count(*)::bigint AS n FROM connection_tokens", [])[0].decode(Int64.self, "n")
            await #expect(throws: StoreError.self) {
                try await tokens.createConnectionToken(
                    account: account.id, location: created.id, ttl: .seconds(60), audit: Self.entry("CreateConnectionToken", account: account.id, keyName: Self.unwritable)
                )
            }
            #expect(try await client.query("SELECT count(*)::bigint AS n FROM connection_tokens", [])[0].decode(Int64.self, "n") == before)
            let token = try await tokens.createConnectionToken(
                account: account.id, location: created.id, ttl: .seconds(60), audit: Self.entry("CreateConnectionToken", account: account.id, detail: "minted")
            )
            #expect(try await tokens.connectionToken(token.secret) != nil)
            let rows = try await Self.rows(client, account: account.id)
            #expect(rows.map(\.entry.action) == ["CreateConnectionToken", "CreateLocation"])
            // The token is never in its row.
            let stored = try await client.query("SELECT count(*)::bigint AS n FROM audit_events WHERE audit_events::text LIKE '%' || $1 || '%'", [PostgresValue(token.secret)])
            #expect(try stored[0].decode(Int64.self, "n") == 0)
        }
    }

    @Test func aConsoleSignInAndSignOutAreMadeWithTheirRowsOrNotAtAll() async throws {
        try await withOwnershipDatabase { client in
            let account = try await Accounts.create(name: "audit", client: client)
            try await Self.refuseMarkedRows(client)
            let keys = ApiKeyStore(client: client)
            let sessions = ConsoleSessionStore(client: client)
            guard case .valid(let key) = try await keys.lookup(secret: account.secretKey, now: Self.t0) else {
                Issue.record("the account key does not work")
                return
            }
            func count() async throws -> Int64 {
                try await client.query("SELECT count(*)::bigint AS n FROM console_sessions", [])[0].decode(Int64.self, "n")
            }
            await #expect(throws: StoreError.self) {
                try await sessions.createConsoleSession(key: key, lifetime: .seconds(600), audit: Self.entry("ConsoleSignIn", account: account.id, keyName: Self.unwritable))
            }
            #expect(try await count() == 0)
            let signedIn = try await sessions.createConsoleSession(key: key, lifetime: .seconds(600), audit: Self.entry("ConsoleSignIn", account: account.id))
            #expect(try await count() == 1)

            await #expect(throws: StoreError.self) {
                try await sessions.deleteConsoleSession(token: signedIn.token, audit: Self.entry("ConsoleSignOut", account: account.id, keyName: Self.unwritable))
            }
            #expect(try await sessions.consoleSession(token: signedIn.token) != nil)
            #expect(try await sessions.deleteConsoleSession(token: signedIn.token, audit: Self.entry("ConsoleSignOut", account: account.id)))
            #expect(try await sessions.consoleSession(token: signedIn.token) == nil)
            // A session already gone: nothing deleted, nothing written.
            #expect(try await !sessions.deleteConsoleSession(token: signedIn.token, audit: Self.entry("ConsoleSignOut", account: account.id)))
            #expect(try await Self.rows(client, account: account.id).map(\.entry.action) == ["ConsoleSignOut", "ConsoleSignIn"])
        }
    }

    @Test func readersLocationsAndUpdatesAreChangedWithTheirRowsOrNotAtAll() async throws {
        try await withOwnershipDatabase { client in
            let account = try await Accounts.create(name: "audit", client: client)
            let location = try await LocationStore(client: client).createLocation(account: account.id, displayName: "Front", address: .init())
            try await Self.refuseMarkedRows(client)
            let readers = ReaderStore(client: client)
            let locations = LocationStore(client: client)
            let updates = SoftwareUpdateStore(client: client)
            func reader(_ serial: String) -> ReaderRecord {
                ReaderRecord(
                    id: "tmr_\(serial)", accountID: account.id, serial: serial, label: serial, deviceType: .simulatedWiseposE,
                    softwareVersion: "", locationID: location.id, lastSeen: nil
                )
            }
            func refused(_ action: String) -> AuditEntry { Self.entry(action, account: account.id, keyName: Self.unwritable) }
            func written(_ action: String, _ detail: String = "") -> AuditEntry { Self.entry(action, account: account.id, detail: detail) }

            // Each change whose row cannot be written is not made.
            await #expect(throws: StoreError.self) { try await readers.insertReader(reader("AU1"), credential: "cred", audit: refused("RegisterReader")) }
            await #expect(throws: (any Error).self) { try await readers.insertReaders([reader("AU2"), reader("AU3")], audit: refused("RegisterReadersBySerial")) }
            #expect(try await readers.readers(account: account.id, location: nil).isEmpty)
            await #expect(throws: StoreError.self) {
                try await locations.updateLocation(location.id, account: account.id, displayName: "Never", address: nil, audit: refused("UpdateLocation"))
            }
            #expect(try await locations.location(location.id, account: account.id)?.displayName == "Front")
            var update = ReaderGatewayV1.ReaderSoftwareUpdate()
            update.deviceType = .simulatedWiseposE
            update.version = "9.9.9"
            await #expect(throws: StoreError.self) { try await updates.add(update, account: account.id, audit: refused("AddSoftwareUpdate")) }
            #expect(try await updates.catalog(account: account.id, deviceType: .simulatedWiseposE).isEmpty)

            // Written: each change with its row.
            try await readers.insertReader(reader("AU1"), credential: "cred", audit: written("RegisterReader"))
            try await readers.insertReaders([reader("AU2"), reader("AU3")], audit: written("RegisterReadersBySerial"))
            #expect(try await readers.readers(account: account.id, location: nil).map(\.serial) == ["AU1", "AU2", "AU3"])
            let renamed = try await locations.updateLocation(location.id, account: account.id, displayName: "Back", address: nil, audit: written("UpdateLocation"))
            #expect(renamed?.displayName == "Back")
            #expect(try await !updates.add(update, account: account.id, audit: written("AddSoftwareUpdate", "update 9.9.9")))
            #expect(try await updates.add(update, account: account.id, audit: written("AddSoftwareUpdate", "update 9.9.9")))
            await #expect(throws: StoreError.self) { try await readers.deleteReader("tmr_AU1", account: account.id, audit: refused("DeleteReader")) }
            await #expect(throws: StoreError.self) {
                try await updates.remove(deviceType: .simulatedWiseposE, version: "9.9.9", account: account.id, audit: refused("RemoveSoftwareUpdate"))
            }
            #expect(try await readers.reader("tmr_AU1", account: account.id) != nil)
            #expect(try await updates.catalog(account: account.id, deviceType: .simulatedWiseposE).count == 1)
            #expect(try await readers.deleteReader("tmr_AU1", account: account.id, audit: written("DeleteReader")))
            #expect(try await updates.remove(deviceType: .simulatedWiseposE, version: "9.9.9", account: account.id, audit: written("RemoveSoftwareUpdate")))

            // Nothing to change: nothing written.
            #expect(try await !readers.deleteReader("tmr_AU1", account: account.id, audit: written("DeleteReader")))
            #expect(try await !updates.remove(deviceType: .simulatedWiseposE, version: "9.9.9", account: account.id, audit: written("RemoveSoftwareUpdate")))
            #expect(try await locations.updateLocation("loc_nosuchlocation", account: account.id, displayName: "X", address: nil, audit: written("UpdateLocation")) == nil)

            let rows = try await Self.rows(client, account: account.id)
            #expect(rows.map(\.entry.action) == [
                "RemoveSoftwareUpdate", "DeleteReader", "AddSoftwareUpdate", "AddSoftwareUpdate", "UpdateLocation", "RegisterReadersBySerial", "RegisterReader",
            ])
            #expect(rows.filter { $0.entry.action == "AddSoftwareUpdate" }.map(\.entry.detail) == ["replaced update 9.9.9", "added update 9.9.9"])
        }
    }
}
