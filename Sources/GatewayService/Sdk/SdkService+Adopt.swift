import GatewayDomain
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire

extension SdkService {
    /// A resume token this replica does not hold in memory: the session may
    /// have lived on a replica that drained (its lease then runs in
    /// PostgreSQL). When the token names an open session whose lease has not
    /// run out, this replica takes it over: the row is recorded with this
    /// node, the reader it owns (per `reader_ownership`) stays its own, and
    /// its latest answered discovery (kept with the row) stays its latest, so
    /// the readers it discovered elsewhere can be connected here.
    /// Returns nil when there is no such session.
    func adoptSession(_ token: String, _ context: CallContext) async throws(ServiceError) -> RegistrySession? {
        let found: PostgresRows
        do {
            found = try await database.client.query(
                """
                UPDATE sdk_sessions SET node_id = $2, lease_expires_at = now() + make_interval(secs => $3::double precision)
                WHERE resume_token_sha256 = \(Secrets.hashSQL(1)) AND closed_at IS NULL AND lease_expires_at > now()
                RETURNING id, account_id, pos_device_id, lane_label, location_scope,
                          discovery_answered, to_json(discovered_readers)::text AS discovered_readers
                """,
                [PostgresValue(token), PostgresValue(node.id), PostgresValue(configuration.sessionLease.seconds)]
            )
        } catch { throw ServiceError.store(error) }
        guard let row = found.first else { return nil }
        let owned: PostgresRows
        let id: String
        let account: String
        let posDeviceID: String
        let lane: String
        let scope: String?
        let discovery: SessionDiscoveryRecord?
        do {
            scope = try row.decode(String?.self, "location_scope")
            discovery = try GatewayDatabase.sessionDiscovery(in: row)
            id = try row.decode(String.self, "id")
            account = try row.decode(String.self, "account_id")
            posDeviceID = try row.decode(String.self, "pos_device_id")
            lane = try row.decode(String?.self, "lane_label") ?? posDeviceID
            owned = try await database.client.query(
                "SELECT reader_id, generation FROM reader_ownership WHERE session_id = $1 LIMIT 1", [PostgresValue(id)]
            )
        } catch { throw ServiceError.store(error) }
        var reader: ReaderID?
        var generation = OwnershipGeneration.initial
        if let ownership = owned.first {
            do {
                reader = ReaderID(try ownership.decode(String.self, "reader_id"))
                generation = OwnershipGeneration(try ownership.decode(Int64.self, "generation"))
            } catch { throw ServiceError.store(error) }
        }
        let session = RegistrySession(
            id: SessionID(id), token: token, accountID: account, locationScope: scope,
            posDeviceID: posDeviceID, lane: LaneLabel(lane),
            // The discovery it answered last, wherever that was, stays its latest here.
            discovery: DiscoveryStateMachine(
                resumingAfter: discovery.map { DiscoveryStateMachine.DiscoveryID($0.answered) },
                burst: configuration.discoveryBurst, perSecond: configuration.discoveriesPerSecond
            ),
            discovered: Set(discovery?.readers ?? []),
            connection: context.connectionID, nowUnixMs: Gateway.nowUnixMs(), reader: reader, generation: generation
        )
        let (adopted, isNew) = registry.update { $0.sessionAdopted(session) }
        if isNew { metrics.sessions.unlabeled.increment() }
        logger.notice("session resumed from another replica", ["session": id, "reader": session.reader?.rawValue ?? ""])
        return adopted
    }
}
