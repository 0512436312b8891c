import GatewayCore
import GatewayDomain
import GatewayPostgres
@testable import GatewayRepositories
import GatewayTestSupport
import Testing

/// A history row records the POS devices of the sessions it names when it is written
/// (migration 16): every statement that writes one, the rows written before the migration,
/// and the displacement a session on another replica is told of, none of them depending on
/// the sessions' rows afterwards.
@Suite("Ownership store: the history keeps the POS devices")
struct OwnershipHistoryPosDeviceTests {
    static let a = ReaderOwner(session: SessionID("sess_a"), lane: LaneLabel("Till 1"))
    static let b = ReaderOwner(session: SessionID("sess_b"), lane: LaneLabel("Till 2"))

    /// A history row as the admin surface reads it: the reason and the two sessions' POS devices.
    struct Row: Hashable, CustomStringConvertible {
        var reason: OwnershipHistoryReason
        var from: String?
        var to: String?

        init(_ reason: OwnershipHistoryReason, from: String? = nil, to: String? = nil) {
            self.reason = reason
            self.from = from
            self.to = to
        }

        init(_ record: OwnershipHistoryRecord) {
            self.init(record.reason, from: record.fromPosDevice, to: record.toPosDevice)
        }

        var description: String { "\(reason.rawValue) from \(from ?? "-") to \(to ?? "-")" }
    }

    @Test("every statement that writes a history row records the POS devices, and they outlive the sessions' rows")
    func everyWriterRecordsThePOSDevices() async throws {
        try await withOwnershipDatabase { client in
            let fixtures = OwnershipFixtures(client: client)
            let (store, _) = try await fixtures.seedCluster(nodes: ["node-a"])
            let (a, b) = (Self.a, Self.b)
            try await fixtures.openSession(a.session, lane: a.lane)
            try await fixtures.openSession(b.session, lane: b.lane)
            let readers = (1...5).map { ReaderID("tmr_h\($0)") }
            for reader in readers {
                try await fixtures.registerReader(reader)
                _ = try await store.readerAttached(reader, node: "node-a")
            }
            struct Refused: Error { var result: ConnectResult }
            func granted(_ result: ConnectResult) throws -> OwnershipGeneration {
                guard case .granted(_, let generation, _) = result else { throw Refused(result: result) }
                return generation
            }

            // The claim (ownership_claim): connected; refused while a collect runs; replaced.
            // Then the owner disconnects.
            let first = try granted(try await store.claim(readers[0], ConnectRequest(session: a.session, lane: a.lane)))
            #expect(try await store.commandStarted(.collectPaymentMethod, reader: readers[0], session: a.session, generation: first) == .proceed)
            _ = try await store.claim(readers[0], ConnectRequest(session: b.session, lane: b.lane, failIfInUse: true))
            let second = try granted(try await store.claim(readers[0], ConnectRequest(session: b.session, lane: b.lane)))
            _ = try await store.disconnect(reader: readers[0], session: b.session, generation: second)
            // A batch (ownership_claim_set): connected, then replaced; then an admin's release.
            for owner in [a, b] {
                let rows = try await client.query(
                    OwnershipStatements.claimBatch,
                    [
                        PostgresValue(text: OwnershipClaimBatcher.arrayLiteral([readers[1].rawValue])),
                        PostgresValue(text: OwnershipClaimBatcher.arrayLiteral([owner.session.rawValue])),
                        PostgresValue(text: OwnershipClaimBatcher.arrayLiteral([owner.lane.rawValue])),
                        PostgresValue(text: "{false}"), PostgresValue(text: "{0}"), PostgresValue(text: "{0}"),
                        PostgresValue(text: OwnershipClaimBatcher.arrayLiteral([OwnershipFixtures.account])),
                    ]
                )
                #expect(try rows.map { try $0.decode(String.self, "outcome") } == [owner == a ? "connected" : "replaced"])
            }
            _ = try await store.adminRelease(reader: readers[1])
            // The reader lost with its link.
            _ = try await store.claim(readers[2], ConnectRequest(session: a.session, lane: a.lane))
            _ = try await store.readerLost(readers[2], epoch: LinkEpoch(1))
            // The owner's lease ran out.
            _ = try await store.claim(readers[3], ConnectRequest(session: b.session, lane: b.lane))
            try await fixtures.expireLease(b.session)
            #expect(try await store.expireSessions().map(\.reader) == [readers[3]])
            // The link detached past the offline bound.
            _ = try await store.claim(readers[4], ConnectRequest(session: a.session, lane: a.lane))
            #expect(try await store.readerDetached(readers[4], epoch: LinkEpoch(1)))
            #expect(try await store.releaseDetachedReaders(offlineBound: .zero).map(\.reader) == [readers[4]])

            // The sessions' rows go (as a purge of closed sessions would remove them).
            #expect(try await client.execute("DELETE FROM sdk_sessions") == 2)

            let (posA, posB) = ("pos-sess_a", "pos-sess_b")
            let expected: [[Row]] = [
                [Row(.released, from: posB), Row(.replaced, from: posA, to: posB), Row(.refusedBusy, from: posA, to: posB), Row(.connected, to: posA)],
                [Row(.adminReleased, from: posB), Row(.replaced, from: posA, to: posB), Row(.connected, to: posA)],
                [Row(.readerLost, from: posA), Row(.connected, to: posA)],
                [Row(.sessionExpired, from: posB), Row(.connected, to: posB)],
                [Row(.readerLost, from: posA), Row(.connected, to: posA)],
            ]
            for (reader, rows) in zip(readers, expected) {
                #expect(try await store.history(of: reader).map(Row.init) == rows, "\(reader)")
            }
            // A displaced session on another replica hears who took its reader from the row.
            let displacement = try await SessionStore(client: client).displacement(of: a.session.rawValue, from: readers[0].rawValue, after: first.rawValue)
            #expect(displacement?.takenByLane == b.lane.rawValue)
            #expect(displacement?.takenByPosDeviceID == posB)
        }
    }

    @Test("rows written before migration 16 are filled from the sessions' rows that remain; the history stays append-only")
    func rowsBeforeTheMigrationAreFilled() async throws {
        let before = Migrations.all.filter { $0.version < 16 }
        let database = try await TestPostgres.database(migrations: before)
        do {
            let client = database.client
            let fixtures = OwnershipFixtures(client: client)
            try await fixtures.seedAccount()
            let store = OwnershipStore(client: client)
            let (a, b) = (Self.a, Self.b)
            try await fixtures.openSession(a.session, lane: a.lane)
            try await fixtures.openSession(b.session, lane: b.lane)
            let reader = ReaderID("tmr_old")
            try await fixtures.registerReader(reader)
            _ = try await store.readerAttached(reader)
            // Written by migration 14's statements: no POS devices in the rows.
            try await client.execute("SELECT * FROM ownership_claim('tmr_old', 'sess_a', 'Till 1', false, 0, 0)")
            try await client.execute("SELECT * FROM ownership_claim('tmr_old', 'sess_b', 'Till 2', false, 0, 0)")
            // A session whose row is gone by the migration cannot be filled in.
            #expect(try await client.execute("DELETE FROM sdk_sessions WHERE id = 'sess_a'") == 1)

            let report = try await Migrator(client: client, migrations: Migrations.all, logger: Logger(component: "migrations")).migrate()
            #expect(report.applied == Migrations.all.map(\.version).filter { $0 >= 16 })
            #expect(try await store.history(of: reader).map(Row.init) == [
                Row(.replaced, from: nil, to: "pos-sess_b"), Row(.connected, to: nil),
            ])
            await #expect(throws: (any Error).self) {
                try await client.execute("UPDATE ownership_history SET to_pos_device_id = 'changed'")
            }
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}
