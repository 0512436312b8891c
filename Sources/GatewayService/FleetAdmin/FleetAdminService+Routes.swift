import Foundation
import GatewayDomain
import GatewayOperations
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire

extension FleetAdminService {
    var createLocation: FleetAdminRoute.CreateLocation {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.createLocation, context) { access, note throws(ServiceError) in
                let account = access.account
                let name = request.displayName.trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else { throw ServiceError.invalid("display_name is empty; name the location") }
                note.detail = "created location \"\(name)\""
                let location: LocationRecord
                do {
                    // The audit row is written by the location's insert (its location the new id).
                    location = try await locations.createLocation(
                        account: account, displayName: name, address: request.address ?? .init(), audit: auditEntry(.createLocation, access, context, note: note)
                    )
                } catch { throw ServiceError.store(error) }
                note.locationID = location.id
                note.written = true
                var response = ReaderGatewayV1.CreateLocationResponse()
                response.location = Gateway.locationMessage(location)
                return response
            }
        }
    }

    var listLocations: FleetAdminRoute.ListLocations {
        .task { [self] request, context throws(ServiceError) in
            let access = try await authorize(context, .listLocations)
            let account = access.account
            let limit = request.limit == 0 ? 100 : Int(min(request.limit, 1000))
            let after = request.pageToken.isEmpty ? nil : request.pageToken
            let locations: [LocationRecord]
            do {
                if let limited = access.key.locations {
                    locations = try await limitedLocations(limited, account: account).filter { after == nil || $0.id > after! }.prefix(limit + 1).map { $0 }
                } else {
                    locations = try await self.locations.locations(account: account, after: after, limit: limit + 1)
                }
            } catch { throw ServiceError.store(error) }
            var response = ReaderGatewayV1.ListLocationsResponse()
            response.locations = try await withInstallWindows(locations.prefix(limit).map(Gateway.locationMessage), account: account)
            if locations.count > limit { response.nextPageToken = locations[limit - 1].id }
            return response
        }
    }

    var updateLocation: FleetAdminRoute.UpdateLocation {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.updateLocation, context) { access, note throws(ServiceError) in
                let account = access.account
                note.locationID = request.locationID.isEmpty ? nil : request.locationID
                let window = try Self.requestedInstallWindow(request)
                guard access.sees(request.locationID) else { throw ServiceError.locationNotFound }
                // The window first (an unknown location fails here, changing nothing); the audit
                // row is written by the location's update, which says what both changed.
                try await applyInstallWindow(window, location: request.locationID, account: account)
                note.detail = Self.locationChange(request, window: window)
                let updated: LocationRecord?
                do {
                    updated = try await locations.updateLocation(
                        request.locationID, account: account, displayName: request.displayName, address: request.address,
                        audit: auditEntry(.updateLocation, access, context, note: note)
                    )
                } catch { throw ServiceError.store(error) }
                guard let updated else { throw ServiceError.locationNotFound }
                note.written = true
                var response = ReaderGatewayV1.UpdateLocationResponse()
                response.location = try await withInstallWindows([Gateway.locationMessage(updated)], account: account).first
                return response
            }
        }
    }

    var registerReader: FleetAdminRoute.RegisterReader {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.registerReader, context) { access, note throws(ServiceError) in
                note.locationID = request.locationID.isEmpty ? nil : request.locationID
                var response = ReaderGatewayV1.RegisterReaderResponse()
                // The audit row is written by the reader's insert (and another by its undoing).
                response.reader = try await registerByCode(request, access: access) { reader in
                    note.readerID = reader.id
                    note.detail = "registered reader \(reader.serial) by its registration code"
                    return auditEntry(.registerReader, access, context, note: note)
                }
                note.written = true
                fleet.changed(response.reader.map { [$0.id] } ?? [])
                return response
            }
        }
    }

    var registerReadersBySerial: FleetAdminRoute.RegisterReadersBySerial {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.registerReadersBySerial, context) { access, note throws(ServiceError) in
                note.locationID = request.locationID.isEmpty ? nil : request.locationID
                var response = ReaderGatewayV1.RegisterReadersBySerialResponse()
                // The audit row is written in the inserts' transaction.
                response.readers = try await registerBySerial(request, access: access) { readers in
                    note.detail = "registered \(readers.count) reader(s) by serial: " + readers.map(\.id).joined(separator: ", ")
                    return auditEntry(.registerReadersBySerial, access, context, note: note)
                }
                note.written = true
                fleet.changed(response.readers.map(\.id))
                return response
            }
        }
    }

    var deleteReader: FleetAdminRoute.DeleteReader {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.deleteReader, context) { access, note throws(ServiceError) in
                let account = access.account
                note.readerID = request.readerID.isEmpty ? nil : request.readerID
                let record = try await ownedReader(request.readerID, access: access)
                note.locationID = record.locationID
                note.detail = "deleted reader \(record.serial) (\(record.label))"
                try await adminRelease(ReaderID(request.readerID), reason: .readerUnregistered)
                registry.endLink(of: ReaderID(request.readerID), ServiceError(.readerCredentialInvalid, "the reader was unregistered").status)
                // The audit row is written by the reader's delete (none when another call deleted it first).
                do {
                    note.written = try await registrations.deleteReader(request.readerID, account: account, audit: auditEntry(.deleteReader, access, context, note: note))
                } catch { throw ServiceError.store(error) }
                if !note.written { note.detail += " (deleted already by another call)" }
                fleet.changed([request.readerID])
                return ReaderGatewayV1.DeleteReaderResponse()
            }
        }
    }

    var listReaders: FleetAdminRoute.ListReaders {
        .task { [self] request, context throws(ServiceError) in
            let access = try await authorize(context, .listReaders)
            let account = access.account
            let location = try await checkedLocation(request.locationID, access: access)
            let records: [ReaderRecord]
            do { records = try await readerRecords.readers(account: account, location: location).filter { access.sees($0.locationID) } } catch {
                throw ServiceError.store(error)
            }
            let links = registry.linkStatuses(of: records.map { ReaderID($0.id) })
            let readers = zip(records, links).map { Gateway.readerMessage(at: configuration.clock, $0, link: $1) }
            var response = ReaderGatewayV1.ListReadersResponse()
            response.readers = await fleetView(
                readers.filter { request.networkStatus == .unspecified || $0.networkStatus == request.networkStatus }, account: account
            )
            return response
        }
    }

    var getReader: FleetAdminRoute.GetReader {
        .task { [self] request, context throws(ServiceError) in
            let access = try await authorize(context, .getReader)
            let account = access.account
            let record = try await ownedReader(request.readerID, access: access)
            var response = ReaderGatewayV1.GetReaderResponse()
            response.reader = await fleetView([Gateway.readerMessage(at: registry.clock, record, link: registry.linkStatus(of: ReaderID(record.id)))], account: account).first
            if access.key.permissions[.ownership] >= .read { response.ownership = try await ownershipMessages([record]).first }
            return response
        }
    }

    var listReaderOwnership: FleetAdminRoute.ListReaderOwnership {
        .task { [self] request, context throws(ServiceError) in
            let access = try await authorize(context, .listReaderOwnership)
            let account = access.account
            let location = try await checkedLocation(request.locationID, access: access)
            let records: [ReaderRecord]
            do { records = try await readerRecords.readers(account: account, location: location).filter { access.sees($0.locationID) } } catch {
                throw ServiceError.store(error)
            }
            var response = ReaderGatewayV1.ListReaderOwnershipResponse()
            response.ownerships = try await ownershipMessages(records).filter { !request.ownedOnly || $0.owner != nil }
            return response
        }
    }

    var listOwnershipHistory: FleetAdminRoute.ListOwnershipHistory {
        .task { [self] request, context throws(ServiceError) in
            let access = try await authorize(context, .listOwnershipHistory)
            _ = try await ownedReader(request.readerID, access: access)
            var response = ReaderGatewayV1.ListOwnershipHistoryResponse()
            response.entries = try await historyWithLinkEndings(ReaderID(request.readerID), limit: request.limit == 0 ? 50 : Int(min(request.limit, 1000)))
            return response
        }
    }

    var forceReleaseReader: FleetAdminRoute.ForceReleaseReader {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.forceReleaseReader, context) { access, note throws(ServiceError) in
                note.readerID = request.readerID.isEmpty ? nil : request.readerID
                let record = try await ownedReader(request.readerID, access: access)
                note.locationID = record.locationID
                if let expected = request.expectedGeneration {
                    let current: ReaderOwnershipRecord?
                    do { current = try await ownership.ownership(of: ReaderID(record.id)) } catch { throw ServiceError.store(error) }
                    if UInt64(current?.generation.rawValue ?? 0) != expected {
                        throw ServiceError(.ownershipChanged, "the reader's ownership generation is no longer \(expected); read it again")
                    }
                }
                var response = ReaderGatewayV1.ForceReleaseReaderResponse()
                var entry = auditEntry(.forceReleaseReader, access, context, note: note)
                entry.detail = "the reader had no owner"
                response.releasedOwner = try await adminRelease(ReaderID(record.id), reason: .adminReleased, audit: entry)
                note.written = true
                fleet.changed([record.id])
                response.ownership = try await ownershipMessages([record]).first
                return response
            }
        }
    }

    var createConnectionToken: FleetAdminRoute.CreateConnectionToken {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.createConnectionToken, context) { access, note throws(ServiceError) in
                let account = access.account
                let location = try await scopedLocation(request.locationID, access: access)
                note.locationID = location
                guard request.ttlMs >= 0 else { throw ServiceError.invalid("ttl_ms is negative") }
                let ttl = request.ttlMs == 0 ? configuration.defaultConnectionTokenTTL : min(.milliseconds(request.ttlMs), configuration.maximumConnectionTokenTTL)
                note.detail = "minted a connection token for \(location.map { "location \($0)" } ?? "every location"), valid \(Int(ttl.seconds)) s"
                let token: (secret: String, expires: Date)
                do {
                    // The audit row is written by the token's insert (never the token itself).
                    token = try await tokens.createConnectionToken(
                        account: account, location: location, ttl: ttl, audit: auditEntry(.createConnectionToken, access, context, note: note)
                    )
                } catch { throw ServiceError.store(error) }
                note.written = true
                var response = ReaderGatewayV1.CreateConnectionTokenResponse()
                response.secret = token.secret
                response.expiresUnixMs = Int64(token.expires.timeIntervalSince1970 * 1000)
                response.locationID = location ?? ""
                return response
            }
        }
    }

    var listSessions: FleetAdminRoute.ListSessions {
        .task { [self] request, context throws(ServiceError) in
            let access = try await authorize(context, .listSessions)
            let account = access.account
            let location = try await checkedLocation(request.locationID, access: access)
            let lease = Int64(configuration.sessionLease.seconds * 1000)
            let sessions = registry.sessions(of: account, location: location).filter { access.sees($0.locationScope) }
                    .map { session in
                        var info = ReaderGatewayV1.SessionInfo()
                        info.sessionID = session.id.rawValue
                        info.posDeviceID = session.posDeviceID
                        info.laneLabel = session.lane.rawValue
                        info.connectedReaderID = session.reader?.rawValue ?? ""
                        info.openedUnixMs = session.openedAtUnixMs
                        info.lastSeenUnixMs = session.lastSeenUnixMs
                        info.leaseExpiresUnixMs = session.lastSeenUnixMs + lease
                        info.connected = !session.connections.isEmpty
                        return info
                    }
            var response = ReaderGatewayV1.ListSessionsResponse()
            response.sessions = sessions
            return response
        }
    }

    /// The key the call carries (`authorization: Bearer <key>`), or, without one, the key the
    /// fleet console session whose cookie came with the WebSocket upgrade signed in with (see
    /// ``consoleAccess(_:)``), checked for the permission `method` needs (``FleetAdminMethod/requirement``):
    /// PERMISSION_DENIED names the permission it lacks.
    func authorize(_ context: CallContext, _ method: FleetAdminMethod) async throws(ServiceError) -> AdminAccess {
        let access = try await authenticatedKey(context)
        let needed = method.requirement
        var refusal: ServiceError?
        if access.key.permissions[needed.resource] < needed.level {
            refusal = KeyRefusal.missing(needed, method: method, key: access.key)
        } else if needed.accountWide, access.key.locations != nil {
            refusal = KeyRefusal.limited(method: method, key: access.key)
        }
        if let refusal {
            // Every refusal for a missing permission is audited, whatever the method.
            await record(auditEntry(method, access, context, outcome: Self.outcome(refusal), note: AuditNote(detail: refusal.message)))
            throw refusal
        }
        return access
    }

    /// The key the call authenticates with, limited per source address and account
    /// (PROTOCOL.md section 22): a source this replica knows to be locked out is refused before
    /// its key is looked up; a refused secret (or unknown console session) is counted, and the
    /// failure that empties a bucket is answered AUTHENTICATION_RATE_LIMITED. A call without a
    /// key guesses nothing and is not counted; a successful one costs no round trip here.
    private func authenticatedKey(_ context: CallContext) async throws(ServiceError) -> AdminAccess {
        let source = AuthenticationLimiter.sourceKey(peer: context.peer)
        let fromConsole = context.metadataValue("authorization") == nil && context.consoleSessionToken != nil
        let surface: AuthSurface = fromConsole ? .consoleSession : .fleetAdmin
        if let lockout = limiter.lockout(of: source, surface: surface) { throw lockout.error }
        if fromConsole {
            do { return try await consoleAccess(context) } catch where error.reason == .secretKeyInvalid {
                if let lockout = await limiter.failed(source: source, account: nil, surface: surface) { throw lockout.error }
                throw error
            }
        }
        guard let header = context.metadataValue("authorization"), header.hasPrefix("Bearer ") else { throw ServiceError.secretKeyInvalid }
        let secret = String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
        guard !secret.isEmpty else { throw ServiceError.secretKeyInvalid }
        let found: ApiKeyLookup
        do { found = try await accounts.lookup(secret: secret, now: configuration.clock.date) } catch { throw ServiceError.store(error) }
        let refusal: ServiceError
        let account: String?
        switch found {
        case .valid(let key): return AdminAccess(key: key)
        case .retired(let key, let retirement): (refusal, account) = (KeyRefusal.retired(key, retirement), key.accountID)
        case .unknown: (refusal, account) = (ServiceError.secretKeyInvalid, nil)
        }
        if let lockout = await limiter.failed(source: source, account: account, surface: surface) { throw lockout.error }
        throw refusal
    }

    /// `id` when it names a location of the account the key sees (nil for empty);
    /// LOCATION_NOT_FOUND otherwise, also for a location the key is not limited to.
    func checkedLocation(_ id: String, access: AdminAccess) async throws(ServiceError) -> String? {
        guard !id.isEmpty else { return nil }
        guard access.sees(id) else { throw ServiceError.locationNotFound }
        let found: LocationRecord?
        do { found = try await locations.location(id, account: access.account) } catch { throw ServiceError.store(error) }
        guard found != nil else { throw ServiceError.locationNotFound }
        return id
    }

    /// The location a call that acts on one location uses: `id` (checked), or, when empty,
    /// the one location a key limited to one is limited to. A key limited to several must
    /// name one; a key without a limit gets nil (the whole account).
    func scopedLocation(_ id: String, access: AdminAccess, field: String = "location_id") async throws(ServiceError) -> String? {
        if let location = try await checkedLocation(id, access: access) { return location }
        guard let limited = access.key.locations else { return nil }
        guard limited.count == 1 else {
            throw ServiceError.invalid("\(field) is empty and \(KeyRefusal.label(access.key)) is limited to \(limited.count) locations (\(limited.joined(separator: ", "))); name one of them")
        }
        return try await checkedLocation(limited[0], access: access)
    }

    /// The reader when it belongs to the account and a location the key sees; READER_NOT_FOUND
    /// otherwise (also for other accounts' readers and the readers of other locations).
    func ownedReader(_ id: String, access: AdminAccess) async throws(ServiceError) -> ReaderRecord {
        guard !id.isEmpty else { throw ServiceError.invalid("reader_id is empty") }
        let found: ReaderRecord?
        do { found = try await readerRecords.reader(id, account: access.account) } catch { throw ServiceError.store(error) }
        guard let found, access.sees(found.locationID) else { throw ServiceError.readerNotFound }
        return found
    }

    /// The locations a limited key is limited to that still exist, in id order.
    func limitedLocations(_ ids: [String], account: String) async throws(StoreError) -> [LocationRecord] {
        var found: [LocationRecord] = []
        for id in ids.sorted() {
            if let location = try await locations.location(id, account: account) { found.append(location) }
        }
        return found
    }

    /// Releases a reader from its owner, who is told why. With `audit`, the release writes that
    /// audit row (and names its key in the history) in its own statement.
    @discardableResult
    func adminRelease(_ reader: ReaderID, reason: ReaderGatewayV1.DisconnectReason, audit: AuditEntry? = nil) async throws(ServiceError) -> ReaderGatewayV1.ReaderOwner? {
        let result: ReleaseResult
        do {
            if let audit { result = try await ownership.adminRelease(reader: reader, audit: audit) } else { result = try await ownership.adminRelease(reader: reader) }
        } catch { throw ServiceError.store(error) }
        guard case .released(let owner, let generation, let actions) = result else { return nil }
        let session = registry.session(id: owner.session)
        let nowUnixMs = configuration.clock.nowUnixMs
        registry.readerReleased(reader, generation: generation, actions: actions, reason: reason, nowUnixMs: nowUnixMs)
        var released = ReaderGatewayV1.ReaderOwner()
        released.sessionID = owner.session.rawValue
        released.laneLabel = owner.lane.rawValue
        released.posDeviceID = session?.posDeviceID ?? ""
        return released
    }
}
