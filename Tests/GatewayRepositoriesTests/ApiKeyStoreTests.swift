import Foundation
import GatewayPostgres
import GatewayRepositories
import Testing

/// Secret keys in PostgreSQL (migration 0022), at times the test chooses: a roll's overlap
/// and the reason after it, revocation and expiry, the account key kept in step with
/// `accounts.secret_key_sha256` (what a 0.1.0 binary checks), and an account a 0.1.0 binary
/// created adopted on its key's first use.
@Suite("Secret key store")
struct ApiKeyStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_900_000_000)

    @Test func aRolledSecretWorksThroughItsOverlapAndIsThenRefusedAsRolled() async throws {
        try await withOwnershipDatabase { client in
            let account = try await Accounts.create(name: "roll", client: client)
            let store = ApiKeyStore(client: client)
            guard case .valid(let key) = try await store.lookup(secret: account.secretKey, now: Self.t0) else {
                Issue.record("a new account's key does not work")
                return
            }
            #expect(key.isAccountKey && key.permissions == .all && key.locations == nil)
            let rolled = try #require(try await store.rollKey(key.id, account: account.id, overlapUntil: Self.t0 + 3600, now: Self.t0))
            #expect(rolled.key.previousSecretValidUntil == Self.t0 + 3600)
            #expect(rolled.key.secretLast4 == String(rolled.secret.suffix(4)))

            if case .valid = try await store.lookup(secret: account.secretKey, now: Self.t0 + 3599) {} else { Issue.record("the old secret stopped before its overlap ended") }
            if case .valid = try await store.lookup(secret: rolled.secret, now: Self.t0 + 3599) {} else { Issue.record("the new secret does not work") }
            #expect(try await store.lookup(secret: account.secretKey, now: Self.t0 + 3600) == .retired(
                try #require(try await store.key(key.id, account: account.id, now: Self.t0 + 3600)), .rolled(rolledAt: Self.t0, overlapEnded: Self.t0 + 3600)
            ))
            // A 0.1.0 binary, which reads only accounts.secret_key_sha256, follows the roll.
            let checked = try await client.query(
                "SELECT id FROM accounts WHERE secret_key_sha256 = sha256(convert_to($1::text, 'UTF8'))", [PostgresValue(rolled.secret)]
            )
            #expect(checked.count == 1)
        }
    }

    @Test func aRevokedKeyIsRefusedEverywhereAndAnExpiredOneAfterItsExpiry() async throws {
        try await withOwnershipDatabase { client in
            let account = try await Accounts.create(name: "revoke", client: client)
            let store = ApiKeyStore(client: client)
            let created = try await store.createKey(
                account: account.id, name: "dashboard", permissions: KeyPermissions([.readers: .read]), locations: nil, expiresAt: Self.t0 + 60, now: Self.t0
            )
            if case .valid(let key) = try await store.lookup(secret: created.secret, now: Self.t0 + 59) {
                #expect(key.permissions[.readers] == .read && key.permissions[.readers] < .write && key.permissions[.tokens] == .none)
            } else { Issue.record("a new key does not work") }
            guard case .retired(_, .expired(at: Self.t0 + 60)) = try await store.lookup(secret: created.secret, now: Self.t0 + 60) else {
                Issue.record("an expired key was not refused as expired")
                return
            }

            // The account key is adopted at its first use.
            #expect(try await store.keys(account: account.id, now: Self.t0).map(\.name) == ["dashboard"])
            guard case .valid(let accountKey) = try await store.lookup(secret: account.secretKey, now: Self.t0) else {
                Issue.record("the account key does not work")
                return
            }
            #expect(accountKey.isAccountKey && accountKey.secretLast4 == String(account.secretKey.suffix(4)))
            let revoked = try #require(try await store.revokeKey(accountKey.id, account: account.id, now: Self.t0))
            #expect(revoked.revokedAt == Self.t0)
            guard case .retired(_, .revoked(at: Self.t0)) = try await store.lookup(secret: account.secretKey, now: Self.t0 + 1) else {
                Issue.record("a revoked key was not refused as revoked")
                return
            }
            #expect(try await client.query(
                "SELECT id FROM accounts WHERE secret_key_sha256 = sha256(convert_to($1::text, 'UTF8'))", [PostgresValue(account.secretKey)]
            ).isEmpty, "a 0.1.0 binary still accepts the revoked account key")
            #expect(try await store.rollKey(accountKey.id, account: account.id, overlapUntil: Self.t0 + 60, now: Self.t0) == nil, "a revoked key was rolled")
        }
    }

    @Test func anAccountA010BinaryCreatedHasItsKeyAdoptedOnFirstUse() async throws {
        try await withOwnershipDatabase { client in
            try await OwnershipSchemaFixtures.insertAccount(client, id: "acct_old", location: "tml_old")
            let store = ApiKeyStore(client: client)
            #expect(try await store.keys(account: "acct_old", now: Self.t0).isEmpty)
            guard case .valid(let key) = try await store.lookup(secret: "acct_old", now: Self.t0) else {
                Issue.record("the key of an account a 0.1.0 binary created does not work")
                return
            }
            #expect(key.isAccountKey && key.permissions == .all)
            #expect(try await store.keys(account: "acct_old", now: Self.t0).map(\.id) == [key.id])
            #expect(try await store.lookup(secret: "sk_nobody", now: Self.t0) == .unknown)
        }
    }

    @Test func locationsAndPermissionsReadBackAsWritten() async throws {
        try await withOwnershipDatabase { client in
            try await OwnershipSchemaFixtures.insertAccount(client, id: "acct_l", location: "tml_a")
            let store = ApiKeyStore(client: client)
            let permissions = KeyPermissions([.readers: .read, .tokens: .write, .events: .read])
            let created = try await store.createKey(account: "acct_l", name: "store", permissions: permissions, locations: ["tml_a", "tml_b"], expiresAt: nil, now: Self.t0)
            let read = try #require(try await store.key(created.key.id, account: "acct_l", now: Self.t0))
            #expect(read.permissions == permissions)
            #expect(read.permissions.text == "readers=read,tokens=write,events=read")
            #expect(read.locations == ["tml_a", "tml_b"])
            #expect(try await store.key(created.key.id, account: "acct_other", now: Self.t0) == nil)
        }
    }
}
