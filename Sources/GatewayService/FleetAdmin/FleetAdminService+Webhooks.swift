import Foundation
import GatewayDomain
import GatewayRepositories
import GatewayWire

/// `CreateWebhookEndpoint`, `ListWebhookEndpoints`, `UpdateWebhookEndpoint`,
/// `DeleteWebhookEndpoint`, `ResendEvent`, `ResendEvents` (PROTOCOL.md section 23). Each change
/// writes its audit row in its own statement.
extension FleetAdminService {
    /// The most events one `ResendEvents` queues.
    static let maximumResend = 10_000

    var createWebhookEndpoint: FleetAdminRoute.CreateWebhookEndpoint {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.createWebhookEndpoint, context) { access, note throws(ServiceError) in
                let store = try webhookStore()
                let url = try Self.checkedURL(request.url)
                let events = try Self.checkedEventTypes(request.enabledEvents) ?? [WebhookEndpoint.allEvents]
                note.detail = "created a webhook endpoint for \(url) (\(events.joined(separator: ", ")))"
                let created: (endpoint: WebhookEndpoint, secret: String)
                do {
                    created = try await store.create(
                        account: access.account, url: url, description: request.description, enabledEvents: events,
                        audit: auditEntry(.createWebhookEndpoint, access, context, note: note)
                    )
                } catch { throw ServiceError.store(error) }
                note.written = true
                logger.info("webhook endpoint created", ["account": access.account, "endpoint": created.endpoint.id, "by": access.key.id])
                var response = ReaderGatewayV1.CreateWebhookEndpointResponse()
                response.endpoint = Self.endpointMessage(created.endpoint)
                response.secret = created.secret
                return response
            }
        }
    }

    var listWebhookEndpoints: FleetAdminRoute.ListWebhookEndpoints {
        .task { [self] _, context throws(ServiceError) in
            let access = try await authorize(context, .listWebhookEndpoints)
            let store = try webhookStore()
            let endpoints: [WebhookEndpoint]
            do { endpoints = try await store.endpoints(account: access.account) } catch { throw ServiceError.store(error) }
            var response = ReaderGatewayV1.ListWebhookEndpointsResponse()
            response.endpoints = endpoints.map(Self.endpointMessage)
            return response
        }
    }

    var updateWebhookEndpoint: FleetAdminRoute.UpdateWebhookEndpoint {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.updateWebhookEndpoint, context) { access, note throws(ServiceError) in
                let store = try webhookStore()
                let id = try Self.checkedEndpointID(request.endpointID)
                note.targetID = id
                var change = WebhookEndpointChange()
                if !request.url.isEmpty { change.url = try Self.checkedURL(request.url) }
                switch (request.description.isEmpty, request.clearDescription) {
                case (true, false): break
                case (true, true): change.description = ""
                case (false, false): change.description = request.description
                case (false, true): throw ServiceError.invalid("description and clear_description were both given; set the description or clear it")
                }
                change.enabledEvents = try Self.checkedEventTypes(request.enabledEvents)
                switch request.enabledChange {
                case .enable: change.enabled = true
                case .disable: change.enabled = false
                case .unchanged: break
                default: throw ServiceError.invalid("enabled_change \(request.enabledChange.rawValue) is not a value this gateway knows; use ENABLE, DISABLE or UNCHANGED")
                }
                note.detail = Self.changeDetail(change)
                let updated: WebhookEndpoint?
                do {
                    updated = try await store.update(id, account: access.account, change: change, audit: auditEntry(.updateWebhookEndpoint, access, context, note: note))
                } catch { throw ServiceError.store(error) }
                guard let updated else { throw Self.endpointNotFound }
                note.written = true
                var response = ReaderGatewayV1.UpdateWebhookEndpointResponse()
                response.endpoint = Self.endpointMessage(updated)
                return response
            }
        }
    }

    var deleteWebhookEndpoint: FleetAdminRoute.DeleteWebhookEndpoint {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.deleteWebhookEndpoint, context) { access, note throws(ServiceError) in
                let store = try webhookStore()
                let id = try Self.checkedEndpointID(request.endpointID)
                note.targetID = id
                note.detail = "deleted the webhook endpoint and its pending deliveries"
                let deleted: WebhookEndpoint?
                do {
                    deleted = try await store.delete(id, account: access.account, audit: auditEntry(.deleteWebhookEndpoint, access, context, note: note))
                } catch { throw ServiceError.store(error) }
                guard let deleted else { throw Self.endpointNotFound }
                note.written = true
                var response = ReaderGatewayV1.DeleteWebhookEndpointResponse()
                response.endpoint = Self.endpointMessage(deleted)
                return response
            }
        }
    }

    var resendEvent: FleetAdminRoute.ResendEvent {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.resendEvent, context) { access, note throws(ServiceError) in
                let store = try webhookStore()
                let id = try Self.checkedEndpointID(request.endpointID)
                guard !request.eventID.isEmpty else { throw ServiceError.invalid("event_id is empty; name an event (evt_...)") }
                note.targetID = id
                note.detail = "queued event \(request.eventID) again"
                let queued: Bool
                do {
                    queued = try await store.resend(event: request.eventID, endpoint: id, account: access.account, audit: auditEntry(.resendEvent, access, context, note: note))
                } catch { throw ServiceError.store(error) }
                guard !queued else {
                    note.written = true
                    return ReaderGatewayV1.ResendEventResponse()
                }
                // Nothing was written: say which of the two is unknown.
                let endpoint: WebhookEndpoint?
                do { endpoint = try await store.endpoint(id, account: access.account) } catch { throw ServiceError.store(error) }
                guard endpoint != nil else { throw Self.endpointNotFound }
                throw ServiceError(.eventNotFound, "no event with this id in this account; list events to find its id")
            }
        }
    }

    var resendEvents: FleetAdminRoute.ResendEvents {
        .task { [self] request, context throws(ServiceError) in
            try await audited(.resendEvents, context) { access, note throws(ServiceError) in
                let store = try webhookStore()
                let id = try Self.checkedEndpointID(request.endpointID)
                let before = request.createdBeforeUnixMs == 0 ? Int64(configuration.clock.date.timeIntervalSince1970 * 1000) + 1 : request.createdBeforeUnixMs
                guard request.createdFromUnixMs >= 0, before > request.createdFromUnixMs else {
                    throw ServiceError.invalid(
                        "created_before_unix_ms (\(before)) is not after created_from_unix_ms (\(request.createdFromUnixMs)): the range is empty"
                    )
                }
                note.targetID = id
                note.detail = "queued again the events created from \(request.createdFromUnixMs) to \(before) (unix ms)"
                let queued: Int?
                do {
                    queued = try await store.resend(
                        createdFromUnixMs: request.createdFromUnixMs, beforeUnixMs: before, endpoint: id, account: access.account,
                        limit: Self.maximumResend, audit: auditEntry(.resendEvents, access, context, note: note)
                    )
                } catch { throw ServiceError.store(error) }
                guard let queued else { throw Self.endpointNotFound }
                note.written = true
                var response = ReaderGatewayV1.ResendEventsResponse()
                response.queued = UInt32(queued)
                return response
            }
        }
    }

    static let endpointNotFound = ServiceError(
        .webhookEndpointNotFound, "no webhook endpoint with this id in this account; list webhook endpoints to find its id"
    )

    func webhookStore() throws(ServiceError) -> any WebhookEndpointRepository {
        guard let webhooks else { throw ServiceError(.internal, "webhooks are not available on this gateway surface") }
        return webhooks
    }

    static func checkedEndpointID(_ id: String) throws(ServiceError) -> String {
        guard !id.isEmpty else { throw ServiceError.invalid("endpoint_id is empty; name a webhook endpoint (we_...)") }
        return id
    }

    static func checkedURL(_ text: String) throws(ServiceError) -> String {
        do { _ = try WebhookURL(text) } catch { throw ServiceError.invalid("url: \(error)") }
        return text
    }

    /// Known types or `*`, deduplicated; nil for none given.
    static func checkedEventTypes(_ types: [String]) throws(ServiceError) -> [String]? {
        guard !types.isEmpty else { return nil }
        if types.contains(WebhookEndpoint.allEvents) { return [WebhookEndpoint.allEvents] }
        for type in types where !EventType.all.contains(type) {
            throw ServiceError.invalid("enabled_events: \"\(type)\" is not an event type; give * or some of \(EventType.all.joined(separator: ", "))")
        }
        var seen: Set<String> = []
        return types.filter { seen.insert($0).inserted }
    }

    static func changeDetail(_ change: WebhookEndpointChange) -> String {
        var parts: [String] = []
        if let url = change.url { parts.append("url \(url)") }
        if change.description != nil { parts.append("description") }
        if let events = change.enabledEvents { parts.append("events \(events.joined(separator: ", "))") }
        if let enabled = change.enabled { parts.append(enabled ? "enabled" : "disabled") }
        return parts.isEmpty ? "changed nothing" : "changed " + parts.joined(separator: "; ")
    }

    static func endpointMessage(_ endpoint: WebhookEndpoint) -> ReaderGatewayV1.WebhookEndpoint {
        var message = ReaderGatewayV1.WebhookEndpoint()
        message.id = endpoint.id
        message.url = endpoint.url
        message.description = endpoint.description
        message.enabledEvents = endpoint.enabledEvents
        message.enabled = endpoint.isEnabled
        message.disabledReason = endpoint.disabledReason?.rawValue ?? ""
        message.createdUnixMs = endpoint.createdUnixMs
        message.failingSinceUnixMs = endpoint.failingSinceUnixMs ?? 0
        return message
    }
}
