import Foundation
import GatewayClient
import GatewayCommandLine
import GatewayWire
import GatewayWireClients

/// Runs one admin command against the gateway and prints its result.
struct AdminCommands {
    let admin: AdminClient
    let output: CtlOutput

    static var nowUnixMs: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    func run(_ command: CtlCommand) async throws {
        switch command {
        case .createLocation(let name):
            let location = try await admin.createLocation(displayName: name)
            output.show(text: AdminRendering.created(location), json: AdminRendering.json(location))
        case .listLocations:
            let locations = try await admin.listLocations()
            output.show(table: AdminRendering.table(locations), json: .array(locations.map(AdminRendering.json)))
        case .renameLocation(let id, let name):
            let location = try await admin.updateLocation(id, displayName: name)
            output.show(table: AdminRendering.table([location]), json: AdminRendering.json(location))
        case .setInstallWindow(let id, let window):
            let location = try await admin.setInstallWindow(id, window)
            output.show(table: AdminRendering.table([location]), json: AdminRendering.json(location))
        case .registerByCode(let code, let label, let location):
            let reader = try await admin.registerReader(code: code, label: label, locationID: location)
            output.show(table: AdminRendering.table([reader]), json: AdminRendering.json(reader))
        case .registerBySerials(let serials, let prefix, let location, let deviceType):
            let readers = try await admin.registerReaders(serials: serials, labelPrefix: prefix, locationID: location, deviceType: deviceType)
            output.show(table: AdminRendering.table(readers), json: .array(readers.map { AdminRendering.json($0) }))
        case .listReaders(let location, let status):
            let readers = try await admin.listReaders(locationID: location, networkStatus: status)
            // The holder of each reader, from the ownership view of the same readers.
            let ownerships = try await admin.listOwnership(locationID: location)
            var holders: [String: ReaderGatewayV1.ReaderOwner] = [:]
            for ownership in ownerships { holders[ownership.readerID] = ownership.owner ?? ReaderGatewayV1.ReaderOwner() }
            output.show(
                table: AdminRendering.table(readers, holders: holders),
                json: .array(readers.map { AdminRendering.json($0, holder: holders[$0.id] ?? ReaderGatewayV1.ReaderOwner()) })
            )
        case .getReader(let id):
            let response = try await admin.getReader(id)
            let reader = response.reader ?? ReaderGatewayV1.Reader()
            var text = AdminRendering.table([reader]).description
            var document: [String: JSONValue] = ["reader": AdminRendering.json(reader), "ownership": .null]
            if let ownership = response.ownership {
                text += "\n\n" + AdminRendering.table([ownership]).description
                document["ownership"] = AdminRendering.json(ownership)
            }
            output.show(text: text, json: .object(document))
        case .deleteReader(let id):
            try await admin.deleteReader(id)
            output.show(text: "deleted \(id)", json: .object(["deleted": .string(id)]))
        case .owners(let location, let ownedOnly):
            let ownerships = try await admin.listOwnership(locationID: location, ownedOnly: ownedOnly)
            output.show(table: AdminRendering.table(ownerships), json: .array(ownerships.map(AdminRendering.json)))
        case .history(let id, let limit):
            let entries = try await admin.ownershipHistory(readerID: id, limit: limit)
            output.show(table: AdminRendering.table(entries), json: .array(entries.map(AdminRendering.json)))
        case .sessions(let location):
            let sessions = try await admin.listSessions(locationID: location)
            output.show(table: AdminRendering.table(sessions), json: .array(sessions.map(AdminRendering.json)))
        case .release(let id, let generation):
            let response = try await admin.forceRelease(readerID: id, expectedGeneration: generation)
            let previous = response.releasedOwner
            let text = previous.map { $0.sessionID.isEmpty ? "\(id) had no owner" : "released \(id) from \($0.laneLabel.isEmpty ? $0.sessionID : $0.laneLabel) (session \($0.sessionID))" }
                ?? "\(id) had no owner"
            var document: [String: JSONValue] = ["released_owner": AdminRendering.json(previous)]
            if let ownership = response.ownership { document["ownership"] = AdminRendering.json(ownership) }
            output.show(text: text, json: .object(document))
        case .createToken(let location, let ttl, let table):
            let token = try await admin.createConnectionToken(locationID: location, ttl: ttl)
            if table {
                output.show(table: AdminRendering.table(token), json: AdminRendering.json(token))
            } else {
                output.show(text: AdminRendering.created(token), json: AdminRendering.json(token))
            }
        case .listEvents(let request):
            let response = try await admin.listEvents(request)
            output.show(text: AdminRendering.page(response), json: AdminRendering.json(response))
        case .listAudit(let request):
            let response = try await admin.listAuditEvents(request)
            output.show(text: AdminRendering.page(response), json: AdminRendering.json(response))
        case .getEvent(let id):
            let event = try await admin.getEvent(id)
            output.show(text: AdminRendering.detail(event), json: AdminRendering.json(event))
        case .listUpdates(let deviceType):
            let updates = try await admin.listSoftwareUpdates(deviceType: deviceType)
            output.show(table: AdminRendering.table(updates), json: .array(updates.map { AdminRendering.json($0) }))
        case .addUpdate(let update):
            let response = try await admin.addSoftwareUpdate(update)
            let stored = response.update ?? update
            output.show(
                text: (response.replaced ? "replaced " : "added ") + "\(stored.deviceType.commandLineName) \(stored.version)\n\n" + AdminRendering.table([stored]).description,
                json: .object(["update": AdminRendering.json(stored), "replaced": .bool(response.replaced)])
            )
        case .removeUpdate(let deviceType, let version):
            try await admin.removeSoftwareUpdate(deviceType: deviceType, version: version)
            output.show(
                text: "removed \(deviceType.commandLineName) \(version)",
                json: .object(["removed": .object(["device_type": .string(deviceType.commandLineName), "version": .string(version)])])
            )
        case .listKeys:
            let keys = try await admin.listApiKeys()
            output.show(table: AdminRendering.table(keys, nowUnixMs: Self.nowUnixMs), json: .array(keys.map { AdminRendering.json($0) }))
        case .createKey(let name, let permissions, let locations, let expires):
            let created = try await admin.createApiKey(name: name, permissions: permissions, locationIDs: locations, expiresUnixMs: expires)
            output.show(
                text: "\(created.secret)\n\nshown once: keep it now.\n\n" + AdminRendering.table(created.key.map { [$0] } ?? [], nowUnixMs: Self.nowUnixMs).description,
                json: AdminRendering.json(created.key, secret: created.secret)
            )
        case .rollKey(let id, let overlap):
            let rolled = try await admin.rollApiKey(id, overlap: overlap)
            output.show(
                text: "\(rolled.secret)\n\nshown once: keep it now. The old secret works until \(AdminRendering.time(rolled.key?.previousSecretExpiresUnixMs ?? 0)).\n\n"
                    + AdminRendering.table(rolled.key.map { [$0] } ?? [], nowUnixMs: Self.nowUnixMs).description,
                json: AdminRendering.json(rolled.key, secret: rolled.secret)
            )
        case .revokeKey(let id):
            let key = try await admin.revokeApiKey(id)
            output.show(text: "revoked \(id)\n\n" + AdminRendering.table([key], nowUnixMs: Self.nowUnixMs).description, json: AdminRendering.json(key))
        case .createWebhook(let request):
            let created = try await admin.createWebhookEndpoint(request)
            var document = created.endpoint.map(AdminRendering.json) ?? .null
            if case .object(var fields) = document {
                fields["secret"] = .string(created.secret)
                document = .object(fields)
            }
            output.show(text: AdminRendering.created(created), json: document)
        case .listWebhooks:
            let endpoints = try await admin.listWebhookEndpoints()
            output.show(table: AdminRendering.table(endpoints), json: .array(endpoints.map(AdminRendering.json)))
        case .updateWebhook(let request):
            let endpoint = try await admin.updateWebhookEndpoint(request)
            output.show(table: AdminRendering.table([endpoint]), json: AdminRendering.json(endpoint))
        case .deleteWebhook(let id):
            let endpoint = try await admin.deleteWebhookEndpoint(id)
            output.show(text: "deleted \(endpoint.id) (\(endpoint.url))", json: .object(["deleted": .string(endpoint.id)]))
        case .resendEvent(let event, let endpoint):
            try await admin.resendEvent(event, endpointID: endpoint)
            output.show(text: "queued \(event) for \(endpoint)", json: .object(["queued": .integer(1)]))
        case .resendEvents(let request):
            let queued = try await admin.resendEvents(request)
            output.show(text: "queued \(queued) event\(queued == 1 ? "" : "s") for \(request.endpointID)", json: .object(["queued": .integer(Int64(queued))]))
        case .watch(let location):
            for try await event in try await admin.watchFleet(locationID: location) {
                for line in FleetWatchRendering.lines(event, json: output.json) { output.write(line) }
            }
        case .createAccount, .nodes:
            preconditionFailure("accounts create and nodes run against PostgreSQL, not the gateway")
        }
    }
}
