import GatewayCore
import GatewayPostgres
import GatewayRepositories
import GatewayTestSupport
import Testing

/// The compatibility window on a real PostgreSQL: a binary starts on a schema a newer release
/// migrated when its release is at or above the floor that release recorded, and refuses
/// with both releases named otherwise.
@Suite("Schema compatibility window")
struct SchemaCompatibilityTests {
    let logger = Logger(component: "migrations")
    static let next = GatewayVersion(GatewayVersion.current.major, GatewayVersion.current.minor + 1, 0)

    /// A migration only a later release knows, with `floor`.
    static func later(floor: GatewayVersion) -> Migration {
        Migration(
            version: Migrations.latestVersion + 1, name: "a later release's expand step", compatibleFrom: floor,
            statements: ["ALTER TABLE gateway_nodes ADD COLUMN later_release_column text"]
        )
    }

    @Test func anOlderBinaryRunsOnASchemaWhoseFloorAdmitsIt() async throws {
        try await TestPostgres.withDatabase { database in
            let newer = try await Migrator(client: database.client, migrations: Migrations.all + [Self.later(floor: .current)], release: Self.next, logger: logger).migrate()
            #expect(newer.applied == [Migrations.latestVersion + 1])
            let older = try await Migrator(client: database.client, logger: logger).migrate()
            #expect(older.applied.isEmpty)
            #expect(older.currentVersion == Migrations.latestVersion + 1)
            #expect(older.knownVersion == Migrations.latestVersion)
            let rows = try await database.client.query("SELECT compatible_from, applied_by FROM schema_migrations WHERE version = $1", [.init(Migrations.latestVersion + 1)])
            #expect(try rows.first?.decode(String?.self, "compatible_from") == GatewayVersion.current.description)
            #expect(try rows.first?.decode(String?.self, "applied_by") == Self.next.description)
        }
    }

    @Test func aBinaryBelowTheFloorRefusesNamingBothReleases() async throws {
        try await TestPostgres.withDatabase { database in
            try await Migrator(client: database.client, migrations: Migrations.all + [Self.later(floor: Self.next)], release: Self.next, logger: logger).migrate()
            do throws(StoreError) {
                try await Migrator(client: database.client, logger: logger).migrate()
                Issue.record("a binary below the floor started")
            } catch {
                #expect(error.code == .databaseTooNew)
                #expect(error.message.contains("reader-gateway \(Self.next)"), "\(error.message)")
                #expect(error.message.contains("this reader-gateway is \(GatewayVersion.current)"), "\(error.message)")
                #expect(error.message.contains("compatible from \(Self.next)"), "\(error.message)")
            }
        }
    }

    @Test func everyAppliedMigrationRecordsItsFloorAndRelease() async throws {
        try await TestPostgres.withDatabase { database in
            let rows = try await database.client.query("SELECT version, compatible_from, applied_by FROM schema_migrations ORDER BY version")
            let floors = Dictionary(uniqueKeysWithValues: Migrations.all.map { ($0.version, $0.compatibleFrom.description) })
            #expect(rows.count == Migrations.all.count)
            for row in rows {
                let version = try row.decode(Int.self, "version")
                #expect(try row.decode(String?.self, "compatible_from") == floors[version])
                #expect(try row.decode(String?.self, "applied_by") == GatewayVersion.current.description)
            }
        }
    }
}

/// The expand/contract rules over the gateway's migrations, and each rule failing on a list
/// that breaks it.
@Suite("Migration rules")
struct MigrationRulesTests {
    static let floor = GatewayVersion(0, 1, 0)

    @Test func theGatewaysMigrationsKeepTheRules() {
        #expect(MigrationRules.problems(in: Migrations.all, binary: .current) == [])
    }

    @Test func aDropWithoutAContractStepFails() {
        let drop = Migration(version: 1000, name: "drop", compatibleFrom: .current, statements: ["ALTER TABLE gateway_nodes DROP COLUMN version"])
        let problems = MigrationRules.problems(in: Migrations.all + [drop], binary: .current)
        #expect(problems.count == 1)
        #expect(problems.first?.contains("without being a contract step") == true, "\(problems)")
    }

    @Test func aRenameWhoseFloorAdmitsAReaderFails() {
        let rename = Migration(
            version: 1000, name: "rename", compatibleFrom: .current, lastReader: .current,
            statements: ["ALTER TABLE gateway_nodes RENAME COLUMN version TO release"]
        )
        let problems = MigrationRules.problems(in: Migrations.all + [rename], binary: .current)
        #expect(problems.count == 1)
        #expect(problems.first?.contains("still reads it") == true, "\(problems)")
    }

    @Test func aContractStepAboveItsLastReaderPasses() {
        let later = GatewayVersion(GatewayVersion.current.major, GatewayVersion.current.minor + 1, 0)
        let contract = Migration(
            version: 1000, name: "contract", compatibleFrom: later, lastReader: .current,
            statements: ["ALTER TABLE gateway_nodes ALTER COLUMN version SET NOT NULL"]
        )
        #expect(MigrationRules.problems(in: Migrations.all + [contract], binary: later) == [])
    }

    @Test func floorsThatGoDownOrAheadOfTheBinaryFail() {
        let high = Migration(version: 1000, name: "high", compatibleFrom: GatewayVersion(9, 0, 0), statements: ["CREATE TABLE t (a int)"])
        let low = Migration(version: 1001, name: "low", compatibleFrom: Self.floor, statements: ["CREATE TABLE u (a int)"])
        let problems = MigrationRules.problems(in: [high, low], binary: .current)
        #expect(problems.contains { $0.contains("above this release") })
        #expect(problems.contains { $0.contains("floors never go down") })
    }

    @Test func additiveStatementsAreNotDestructive() {
        #expect(!MigrationRules.isDestructive("ALTER TABLE sdk_sessions ADD COLUMN epoch bigint NOT NULL DEFAULT 1"))
        #expect(!MigrationRules.isDestructive("CREATE INDEX a ON b (c)"))
        #expect(MigrationRules.isDestructive("drop table gateway_nodes"))
        #expect(MigrationRules.isDestructive("ALTER TABLE readers ALTER COLUMN label TYPE varchar(20)"))
    }
}

@Suite("Release version")
struct GatewayVersionTests {
    @Test func parsesAndOrders() {
        #expect(GatewayVersion("1.2.3") == GatewayVersion(1, 2, 3))
        #expect(GatewayVersion("v0.10.0") == GatewayVersion(0, 10, 0))
        #expect(GatewayVersion("1.2") == nil)
        #expect(GatewayVersion("1.02.0") == nil)
        #expect(GatewayVersion("1.2.x") == nil)
        #expect(GatewayVersion(0, 9, 9) < GatewayVersion(0, 10, 0))
        #expect(GatewayVersion(1, 0, 0) > GatewayVersion(0, 99, 99))
    }
}
