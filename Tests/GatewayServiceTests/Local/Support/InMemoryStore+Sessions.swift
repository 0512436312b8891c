import GatewayPostgres
import GatewayRepositories
@testable import GatewayService

/// Session rows and connection tokens, as `sdk_sessions` and `connection_tokens` behave.
extension InMemoryStore: SessionRepository {
    func connectionToken(_ secret: String) async throws(StoreError) -> ConnectionTokenRecord? {
        let now = clock.nowUnixMs
        return try run { tables in
            tables.tokens[secret].map { ConnectionTokenRecord(accountID: $0.accountID, locationID: $0.locationID, expired: $0.expiresUnixMs <= now) }
        }
    }

    func insertSession(
        id: String, account: String, posDeviceID: String, lane: String, locationScope: String?, nodeID: String, lease: Duration, token: String
    ) async throws(StoreError) {
        let expires = clock.nowUnixMs + Self.milliseconds(lease)
        try run { tables in
            tables.sessions[token] = SessionRow(
                id: id, token: token, accountID: account, posDeviceID: posDeviceID, lane: lane, locationScope: locationScope,
                node: nodeID, leaseExpiresUnixMs: expires
            )
        }
    }

    func adoptSession(token: String, node: String, lease: Duration) async throws(StoreError) -> AdoptedSessionRecord? {
        let now = clock.nowUnixMs
        return try run { tables -> AdoptedSessionRecord? in
            guard var row = tables.sessions[token], !row.closed, row.leaseExpiresUnixMs > now else { return nil }
            row.epoch += 1
            row.node = node
            row.leaseExpiresUnixMs = now + Self.milliseconds(lease)
            tables.sessions[token] = row
            let owned = tables.ownership.values.filter { $0.owner?.session.rawValue == row.id }.max { $0.generation.rawValue < $1.generation.rawValue }
            return AdoptedSessionRecord(
                id: row.id, epoch: row.epoch, accountID: row.accountID, posDeviceID: row.posDeviceID, laneLabel: row.lane,
                locationScope: row.locationScope, discovery: row.discovery, reader: owned?.reader.rawValue, generation: owned?.generation.rawValue ?? 0
            )
        }
    }

    func closeSession(_ id: String, node: String) async throws(StoreError) {
        let now = clock.nowUnixMs
        try run { tables in
            guard let token = tables.sessions.first(where: { $0.value.id == id && $0.value.node == node })?.key else { return }
            tables.sessions[token]!.closed = true
            tables.sessions[token]!.leaseExpiresUnixMs = min(tables.sessions[token]!.leaseExpiresUnixMs, now)
        }
    }

    func renewLeases(_ sessions: [SessionEpochRecord], node: String, lease: Duration) async throws(StoreError) -> Set<String> {
        let expires = clock.nowUnixMs + Self.milliseconds(lease)
        return try run { tables in
            var renewed: Set<String> = []
            for held in sessions {
                guard let token = tables.sessions.first(where: { $0.value.id == held.id })?.key else { continue }
                let row = tables.sessions[token]!
                guard row.epoch == held.epoch, row.node == node, !row.closed else { continue }
                tables.sessions[token]!.leaseExpiresUnixMs = expires
                renewed.insert(held.id)
            }
            return renewed
        }
    }

    func recordDiscovery(_ discovery: SessionDiscoveryRecord, session: String, epoch: Int64) async throws(StoreError) -> Bool {
        try run { tables in
            guard let token = tables.sessions.first(where: { $0.value.id == session })?.key else { return false }
            let row = tables.sessions[token]!
            guard !row.closed, row.epoch == epoch else { return false }
            if (row.discovery?.answered ?? 0) <= discovery.answered { tables.sessions[token]!.discovery = discovery }
            return true
        }
    }
}
