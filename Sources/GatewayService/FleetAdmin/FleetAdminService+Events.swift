import GatewayPostgres
import GatewayRepositories
import GatewayWire

extension FleetAdminService {
    var listEvents: FleetAdminRoute.ListEvents {
        .task { [self] request, context throws(ServiceError) in
            let access = try await authorize(context, .listEvents)
            var filter = try Self.eventFilter(request)
            if let locations = access.key.locations {
                // A location-limited key sees its locations' events alone; another location reads as unknown.
                if let wanted = filter.locationID, !access.sees(wanted) { throw ServiceError.locationNotFound }
                filter.limitedTo = locations
            }
            let page = try await Self.logPage(.events, token: request.pageToken, limit: request.limit, seq: \EventRecord.seq) { beforeSeq, limit throws(StoreError) in
                try await events.events(account: access.account, filter: filter, beforeSeq: beforeSeq, limit: limit)
            }
            var response = ReaderGatewayV1.ListEventsResponse()
            response.events = page.records.map(Self.eventMessage)
            response.nextPageToken = page.nextPageToken
            return response
        }
    }

    var getEvent: FleetAdminRoute.GetEvent {
        .task { [self] request, context throws(ServiceError) in
            let access = try await authorize(context, .getEvent)
            guard !request.eventID.isEmpty else { throw ServiceError.invalid("event_id is empty; name an event (evt_...)") }
            let record: EventRecord?
            do { record = try await events.event(request.eventID, account: access.account) } catch { throw ServiceError.store(error) }
            guard let record, access.sees(record.locationID) else {
                throw ServiceError(.eventNotFound, "no event with this id in this account; list events to find its id")
            }
            var response = ReaderGatewayV1.GetEventResponse()
            response.event = Self.eventMessage(record)
            return response
        }
    }

    /// The request's filters, checked: known types, a range that is not empty.
    static func eventFilter(_ request: ReaderGatewayV1.ListEventsRequest) throws(ServiceError) -> EventFilter {
        for type in request.types where !EventType.all.contains(type) {
            throw ServiceError.invalid("types: \"\(type)\" is not an event type; the types are \(EventType.all.joined(separator: ", "))")
        }
        if request.createdFromUnixMs < 0 { throw ServiceError.invalid("created_from_unix_ms is negative; give milliseconds since 1970, or 0 for no bound") }
        if request.createdBeforeUnixMs < 0 { throw ServiceError.invalid("created_before_unix_ms is negative; give milliseconds since 1970, or 0 for no bound") }
        if request.createdFromUnixMs > 0, request.createdBeforeUnixMs > 0, request.createdBeforeUnixMs <= request.createdFromUnixMs {
            throw ServiceError.invalid(
                "created_before_unix_ms (\(request.createdBeforeUnixMs)) is not after created_from_unix_ms (\(request.createdFromUnixMs)): the range is empty"
            )
        }
        return EventFilter(
            types: Array(Set(request.types)).sorted(),
            readerID: request.readerID.isEmpty ? nil : request.readerID,
            locationID: request.locationID.isEmpty ? nil : request.locationID,
            createdFromUnixMs: request.createdFromUnixMs == 0 ? nil : request.createdFromUnixMs,
            createdBeforeUnixMs: request.createdBeforeUnixMs == 0 ? nil : request.createdBeforeUnixMs
        )
    }

    static func eventMessage(_ record: EventRecord) -> ReaderGatewayV1.Event {
        var message = ReaderGatewayV1.Event()
        message.id = record.id
        message.type = record.type
        message.createdUnixMs = record.createdUnixMs
        message.readerID = record.readerID ?? ""
        message.locationID = record.locationID ?? ""
        message.objectJson = record.objectJSON
        return message
    }
}
