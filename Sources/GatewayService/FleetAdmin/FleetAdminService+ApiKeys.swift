import Foundation
import GatewayRepositories
import GatewayWire

/// `CreateApiKey`, `ListApiKeys`, `RollApiKey`, `RevokeApiKey`: the account's secret keys.
///
/// A key manages only keys within its own reach: it grants no permission it lacks and no
/// location outside its own, and lists, rolls or revokes only keys whose scope it covers
/// (rolling a broader key would hand its new secret to a narrower one).
extension FleetAdminService {
    /// A roll keeps the old secret this long unless the call says otherwise.
    static let defaultRollOverlap: Duration = .seconds(24 * 3600)
    /// The longest overlap a roll may ask for.
    static let maximumRollOverlap: Duration = .seconds(7 * 24 * 3600)

    var createApiKey: FleetAdminRoute.CreateApiKey {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.createApiKey, context) { access, note throws(ServiceError) in
                let name = request.name.trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else { throw ServiceError.invalid("name is empty; name the key after who or what uses it") }
                let permissions = Self.permissions(request.permissions ?? .init())
                guard access.key.permissions.covers(permissions) else {
                    let over = KeyResource.allCases.filter { permissions[$0] > access.key.permissions[$0] }.map { "\($0.rawValue):\(permissions[$0].name)" }
                    throw ServiceError(
                        .permissionDenied,
                        "a key may grant only what \(KeyRefusal.label(access.key)) holds, and it lacks \(over.joined(separator: ", ")); create the key with a key that has them"
                    )
                }
                var locations: [String]? = nil
                if !request.locationIDs.isEmpty {
                    var checked: [String] = []
                    for id in Set(request.locationIDs).sorted() {
                        guard let location = try await checkedLocation(id, access: access) else { throw ServiceError.invalid("location_ids has an empty id") }
                        checked.append(location)
                    }
                    locations = checked
                } else {
                    locations = access.key.locations
                }
                let now = configuration.clock.date
                var expires: Date? = nil
                if request.expiresUnixMs != 0 {
                    let at = Date(timeIntervalSince1970: Double(request.expiresUnixMs) / 1000)
                    guard at > now else { throw ServiceError.invalid("expires_unix_ms is in the past; give a time to come, or 0 for a key that does not expire") }
                    expires = at
                }
                note.detail = "created key \"\(name)\" (\(permissions.text.isEmpty ? "no permissions" : permissions.text))"
                    + (locations.map { "; limited to \($0.joined(separator: ", "))" } ?? "")
                let created: (key: ApiKeyRecord, secret: String)
                do {
                    // The audit row is written by the key's insert (its target the new key's id).
                    created = try await accounts.createKey(
                        account: access.account, name: name, permissions: permissions, locations: locations, expiresAt: expires, now: now,
                        audit: auditEntry(.createApiKey, access, context, note: note)
                    )
                } catch { throw ServiceError.store(error) }
                note.targetID = created.key.id
                note.written = true
                logger.info("secret key created", ["account": access.account, "key": created.key.id, "by": access.key.id])
                var response = ReaderGatewayV1.CreateApiKeyResponse()
                response.key = Self.keyMessage(created.key)
                response.secret = created.secret
                return response
            }
        }
    }

    var listApiKeys: FleetAdminRoute.ListApiKeys {
        .task { [self] _, context throws(ServiceError) in
            let access = try await authorize(context, .listApiKeys)
            let keys: [ApiKeyRecord]
            do { keys = try await accounts.keys(account: access.account, now: configuration.clock.date) } catch { throw ServiceError.store(error) }
            var response = ReaderGatewayV1.ListApiKeysResponse()
            response.keys = keys.filter { Self.reaches(access.key, $0.locations) }.map(Self.keyMessage)
            return response
        }
    }

    var rollApiKey: FleetAdminRoute.RollApiKey {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.rollApiKey, context) { access, note throws(ServiceError) in
                note.targetID = request.keyID.isEmpty ? nil : request.keyID
                guard request.overlapMs >= 0 else { throw ServiceError.invalid("overlap_ms is negative; give 0 for 24 hours") }
                let overlap = request.overlapMs == 0 ? Self.defaultRollOverlap : Duration.milliseconds(request.overlapMs)
                guard overlap <= Self.maximumRollOverlap else {
                    throw ServiceError.invalid("overlap_ms is \(request.overlapMs), above 7 days (604800000); keep the old secret at most 7 days")
                }
                let key = try await managedKey(request.keyID, access: access)
                let now = configuration.clock.date
                note.detail = "rolled key \"\(key.name)\"; its old secret works until \(KeyRefusal.iso(now.addingTimeInterval(overlap.seconds)))"
                let rolled: (key: ApiKeyRecord, secret: String)?
                do {
                    // The audit row is written by the roll's statement, when it rolls.
                    rolled = try await accounts.rollKey(
                        request.keyID, account: access.account, overlapUntil: now.addingTimeInterval(overlap.seconds), now: now,
                        audit: auditEntry(.rollApiKey, access, context, note: note)
                    )
                } catch { throw ServiceError.store(error) }
                guard let rolled else { throw Self.keyNotFound }
                note.written = true
                logger.info("secret key rolled", ["account": access.account, "key": rolled.key.id, "by": access.key.id, "overlap_s": "\(Int(overlap.seconds))"])
                var response = ReaderGatewayV1.RollApiKeyResponse()
                response.key = Self.keyMessage(rolled.key)
                response.secret = rolled.secret
                return response
            }
        }
    }

    var revokeApiKey: FleetAdminRoute.RevokeApiKey {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.revokeApiKey, context) { access, note throws(ServiceError) in
                note.targetID = request.keyID.isEmpty ? nil : request.keyID
                let key = try await managedKey(request.keyID, access: access)
                note.detail = "revoked key \"\(key.name)\""
                let result: (key: ApiKeyRecord, audited: Bool)?
                do {
                    // The audit row is written by the revocation's statement, when it revokes
                    // (a key revoked before is answered as it is, and audited after).
                    result = try await accounts.revokeKey(
                        request.keyID, account: access.account, now: configuration.clock.date, audit: auditEntry(.revokeApiKey, access, context, note: note)
                    )
                } catch { throw ServiceError.store(error) }
                guard let (revoked, audited) = result else { throw Self.keyNotFound }
                note.written = audited
                if !audited { note.detail = "key \"\(key.name)\" was revoked before" }
                logger.info("secret key revoked", ["account": access.account, "key": revoked.id, "by": access.key.id])
                var response = ReaderGatewayV1.RevokeApiKeyResponse()
                response.key = Self.keyMessage(revoked)
                return response
            }
        }
    }

    static let keyNotFound = ServiceError(.apiKeyNotFound, "no secret key with this id in this account; list keys to find its id")

    /// The key `id` when the calling key reaches it (its locations) and holds every permission
    /// it has; API_KEY_NOT_FOUND for a key out of reach, PERMISSION_DENIED for a broader one.
    private func managedKey(_ id: String, access: AdminAccess) async throws(ServiceError) -> ApiKeyRecord {
        guard !id.isEmpty else { throw ServiceError.invalid("key_id is empty") }
        let found: ApiKeyRecord?
        do { found = try await accounts.key(id, account: access.account, now: configuration.clock.date) } catch { throw ServiceError.store(error) }
        guard let found, Self.reaches(access.key, found.locations) else { throw Self.keyNotFound }
        guard access.key.permissions.covers(found.permissions) else {
            throw ServiceError(
                .permissionDenied,
                "key \(found.id) holds permissions \(KeyRefusal.label(access.key)) lacks (\(found.permissions.text)); manage it with a key that has them all"
            )
        }
        return found
    }

    /// Whether `key` reaches a key limited to `locations` (nil: every location).
    static func reaches(_ key: ApiKeyRecord, _ locations: [String]?) -> Bool {
        guard let mine = key.locations else { return true }
        guard let locations else { return false }
        return Set(locations).isSubset(of: Set(mine))
    }

    static func permissions(_ message: ReaderGatewayV1.ApiKeyPermissions) -> KeyPermissions {
        func level(_ access: ReaderGatewayV1.KeyAccess) -> KeyAccessLevel {
            switch access {
            case .read: .read
            case .write: .write
            default: .none
            }
        }
        var permissions = KeyPermissions()
        permissions[.locations] = level(message.locations)
        permissions[.readers] = level(message.readers)
        permissions[.ownership] = level(message.ownership)
        permissions[.tokens] = level(message.tokens)
        permissions[.updates] = level(message.updates)
        permissions[.webhooks] = level(message.webhooks)
        permissions[.events] = level(message.events)
        permissions[.keys] = level(message.keys)
        return permissions
    }

    static func permissionsMessage(_ permissions: KeyPermissions) -> ReaderGatewayV1.ApiKeyPermissions {
        func access(_ resource: KeyResource) -> ReaderGatewayV1.KeyAccess {
            switch permissions[resource] {
            case .none: .none
            case .read: .read
            case .write: .write
            }
        }
        var message = ReaderGatewayV1.ApiKeyPermissions()
        message.locations = access(.locations)
        message.readers = access(.readers)
        message.ownership = access(.ownership)
        message.tokens = access(.tokens)
        message.updates = access(.updates)
        message.webhooks = access(.webhooks)
        message.events = access(.events)
        message.keys = access(.keys)
        return message
    }

    static func keyMessage(_ key: ApiKeyRecord) -> ReaderGatewayV1.ApiKey {
        func ms(_ date: Date?) -> Int64 { date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? 0 }
        var message = ReaderGatewayV1.ApiKey()
        message.id = key.id
        message.name = key.name
        message.permissions = permissionsMessage(key.permissions)
        message.locationIDs = key.locations ?? []
        message.expiresUnixMs = ms(key.expiresAt)
        message.createdUnixMs = ms(key.createdAt)
        message.lastUsedUnixMs = ms(key.lastUsedAt)
        message.rolledUnixMs = ms(key.rolledAt)
        message.previousSecretExpiresUnixMs = ms(key.previousSecretValidUntil)
        message.revokedUnixMs = ms(key.revokedAt)
        message.secretLast4 = key.secretLast4
        return message
    }
}
