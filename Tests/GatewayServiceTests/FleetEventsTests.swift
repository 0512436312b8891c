import Foundation
import GatewayService
import GatewayTestKit
import GatewayWire
import Testing

/// `FleetAdmin.ListEvents` and `GetEvent` on a running gateway: a lane's day on a reader
/// written as events by the changes themselves (and the commands' outcomes), pages that hold
/// still while events arrive, precise refusals of bad filters, and accounts kept apart.
@Suite("fleet events")
struct FleetEventsTests {
    typealias Admin = ReaderGatewayV1.FleetAdmin

    /// Every event of the admin's account, newest first, following the pages (`limit` each).
    static func allEvents(
        _ admin: TestAdmin, _ request: ReaderGatewayV1.ListEventsRequest = .init(), limit: UInt32 = 100
    ) async throws -> [ReaderGatewayV1.Event] {
        var request = request
        request.limit = limit
        var events: [ReaderGatewayV1.Event] = []
        while true {
            let page = try await admin.call(Admin.listEvents, request)
            events += page.events
            guard !page.nextPageToken.isEmpty else { return events }
            request.pageToken = page.nextPageToken
        }
    }

    static func object(_ event: ReaderGatewayV1.Event) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(event.objectJson.utf8)) as? [String: Any])
    }

    @Test("registration, link, connect, each command's outcome and a release are listed newest first, with their objects")
    func aLanesDayIsLogged() async throws {
        let harness = try await GatewayHarness.start()
        let store = try await StoreFixture.make(harness)
        let lane = try await store.lane("Lane 1")
        try await lane.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
        // A collect the lane cancels: collect fails with COMMAND_CANCELED, the cancel succeeds.
        let collecting = Task { try await lane.collect() }
        #expect(await eventually { store.reader.isHoldingCollect })
        try await lane.cancelCollect()
        await expectFailure(.commandCanceled) { try await collecting.value }
        try await lane.setDisplay()
        var confirm = ReaderGatewayV1.ConfirmPaymentIntentRequest()
        confirm.sessionToken = lane.token
        var params = ReaderGatewayV1.ConfirmPaymentIntentParams()
        params.paymentIntentID = "pi_confirmed"
        confirm.params = params
        _ = try await lane.channel.unary(ReaderGatewayV1.Sdk.confirmPaymentIntent, confirm)
        try await lane.disconnect()

        // Command outcomes are written once the lane has its answer: wait for the four.
        var actions = ReaderGatewayV1.ListEventsRequest()
        actions.types = ["reader.action.succeeded", "reader.action.failed"]
        #expect(await eventually { (try? await Self.allEvents(store.admin, actions).count) == 4 })

        let events = try await Self.allEvents(store.admin, limit: 3)
        // Newest first. (`created` is its transaction's start: a batch of action events that
        // began before a change and wrote after it is listed above it with an earlier time.)
        let changes = events.filter { !$0.type.hasPrefix("reader.action.") }
        #expect(changes.map(\.createdUnixMs) == changes.map(\.createdUnixMs).sorted(by: >))
        #expect(events.allSatisfy { $0.readerID == store.readerID && $0.locationID == store.location })
        // The changes' own events commit with them, in order. An action's event is written
        // after the lane has its answer (PROTOCOL.md section 20), so it may be listed after a
        // later change of the same reader: the confirm's success after the lane's release.
        let types = events.reversed().map(\.type).filter { !$0.hasPrefix("reader.action.") }
        #expect(types == ["reader.registered", "reader.online", "reader.ownership.connected", "reader.ownership.released"], "\(types)")
        var outcomes: [String] = []
        for event in events.reversed() where event.type.hasPrefix("reader.action.") {
            let object = try Self.object(event)
            outcomes.append("\(object["action"] as? String ?? "?") \(object["status"] as? String ?? "?") \(object["error_code"] as? String ?? "-")")
        }
        #expect(Set(outcomes) == [
            "collect_payment_method failed COMMAND_CANCELED", "cancel_collect_payment_method succeeded -",
            "set_reader_display succeeded -", "confirm_payment_intent succeeded -",
        ], "\(outcomes)")
        // Every action's object holds its own fields and no other's: the display's exactly these.
        let actionObjects = try events.filter { $0.type.hasPrefix("reader.action.") }.map { try Self.object($0) }
        let display = try #require(actionObjects.first { $0["action"] as? String == "set_reader_display" })
        #expect(Set(display.keys) == ["object", "action", "status", "session_id", "reader"], "\(display.keys)")
        #expect(actionObjects.allSatisfy { $0["object"] as? String == "reader_action" })
        let sessions = Set(actionObjects.map { $0["session_id"] as? String ?? "" })
        #expect(sessions.count == 1 && sessions.first?.isEmpty == false, "one lane's session on every action: \(sessions)")
        let canceled = try #require(actionObjects.first { $0["action"] as? String == "collect_payment_method" })
        #expect(Set(canceled.keys) == ["object", "action", "status", "session_id", "payment_intent", "error_code", "error_message", "reader"], "\(canceled.keys)")
        let confirmed = try #require(try events.first { try Self.object($0)["action"] as? String == "confirm_payment_intent" })
        #expect(try Self.object(confirmed)["payment_intent"] as? String == "pi_confirmed")
        // The connect's object: the lane that took the reader, the reader as it stood.
        let connected = try Self.object(try #require(events.first { $0.type == "reader.ownership.connected" }))
        #expect((connected["owner"] as? [String: Any])?["lane_label"] as? String == "Lane 1")
        #expect((connected["reader"] as? [String: Any])?["status"] as? String == "online")

        // GetEvent answers each listed event as listed.
        var get = ReaderGatewayV1.GetEventRequest()
        get.eventID = events[1].id
        #expect(try await store.admin.call(Admin.getEvent, get).event == events[1])
        await harness.stop()
    }

    @Test("pages hold still while events are written, and filters narrow by type, reader, location and time")
    func pagingAndFilters() async throws {
        let harness = try await GatewayHarness.start()
        let admin = try await harness.admin()
        let front = try await admin.createLocation("Front")
        let back = try await admin.createLocation("Back")
        let frontReaders = try await admin.registerSerials(["EV-F1", "EV-F2", "EV-F3"], prefix: "Front", location: front)
        _ = try await admin.registerSerials(["EV-B1", "EV-B2"], prefix: "Back", location: back)
        let before = try await Self.allEvents(admin)
        #expect(before.count == 5)

        var request = ReaderGatewayV1.ListEventsRequest()
        request.limit = 2
        let first = try await admin.call(Admin.listEvents, request)
        #expect(first.events == Array(before.prefix(2)))
        // Events written between pages land above the first page, never in a later one.
        _ = try await admin.registerSerials(["EV-F4"], prefix: "Late", location: front)
        request.pageToken = first.nextPageToken
        let second = try await admin.call(Admin.listEvents, request)
        #expect(second.events == Array(before[2..<4]))
        request.pageToken = second.nextPageToken
        let third = try await admin.call(Admin.listEvents, request)
        #expect(third.events == [before[4]])
        #expect(third.nextPageToken.isEmpty)

        var atFront = ReaderGatewayV1.ListEventsRequest()
        atFront.locationID = front
        #expect(try await Self.allEvents(admin, atFront).count == 4)
        var oneReader = ReaderGatewayV1.ListEventsRequest()
        oneReader.readerID = frontReaders[1].id
        #expect(try await Self.allEvents(admin, oneReader).map(\.readerID) == [frontReaders[1].id])
        var offline = ReaderGatewayV1.ListEventsRequest()
        offline.types = ["reader.offline"]
        #expect(try await Self.allEvents(admin, offline).isEmpty)
        var window = ReaderGatewayV1.ListEventsRequest()
        window.createdFromUnixMs = before[4].createdUnixMs
        window.createdBeforeUnixMs = before[0].createdUnixMs + 1
        #expect(Set(try await Self.allEvents(admin, window).map(\.id)).isSuperset(of: before.map(\.id)))
        window.createdFromUnixMs = before[0].createdUnixMs + 60_000
        window.createdBeforeUnixMs = 0
        #expect(try await Self.allEvents(admin, window).isEmpty)
        await harness.stop()
    }

    @Test("a key limited to one location lists and gets that location's events alone; another location's are unknown")
    func aLocationLimitedKeySeesItsLocationsEvents() async throws {
        let harness = try await GatewayHarness.start()
        let admin = try await harness.admin()
        let front = try await admin.createLocation("Front")
        let back = try await admin.createLocation("Back")
        _ = try await admin.registerSerials(["EV-F1", "EV-F2"], prefix: "Front", location: front)
        _ = try await admin.registerSerials(["EV-B1"], prefix: "Back", location: back)
        let all = try await Self.allEvents(admin)
        let atBack = try #require(all.first { $0.locationID == back })
        let secret = try await KeyPermissionTableTests.createKey(
            admin, name: "front desk", permissions: KeyPermissionTableTests.readOnly, locations: [front]
        )
        let limited = try await harness.admin(secretKey: secret)
        let seen = try await Self.allEvents(limited, limit: 1)
        #expect(seen.map(\.id) == all.filter { $0.locationID == front }.map(\.id))
        #expect(seen.count == 2)
        var atBackRequest = ReaderGatewayV1.ListEventsRequest()
        atBackRequest.locationID = back
        await expectFailure(.locationNotFound) { try await limited.call(Admin.listEvents, atBackRequest) }
        var get = ReaderGatewayV1.GetEventRequest()
        get.eventID = atBack.id
        await expectFailure(.eventNotFound) { try await limited.call(Admin.getEvent, get) }
        #expect(try await admin.call(Admin.getEvent, get).event?.id == atBack.id)
        await harness.stop()
    }

    @Test("bad filters and tokens are refused with what to fix, and another account's events are unknown")
    func refusalsAndIsolation() async throws {
        let harness = try await GatewayHarness.start()
        let admin = try await harness.admin()
        let location = try await admin.createLocation("Front")
        _ = try await admin.registerSerials(["EV-ISO"], prefix: "Front", location: location)
        let mine = try await Self.allEvents(admin)
        #expect(mine.count == 1)

        func refused(_ request: ReaderGatewayV1.ListEventsRequest, saying words: String) async {
            do {
                _ = try await admin.call(Admin.listEvents, request)
                Issue.record("ListEvents accepted a request it should refuse (\(words))")
            } catch let failure as CallFailure {
                #expect(failure.reason == .invalidRequest && failure.code == .invalidArgument, "\(failure)")
                #expect(failure.status.message.contains(words), "\(failure.status.message)")
            } catch {
                Issue.record("\(error)")
            }
        }
        var unknownType = ReaderGatewayV1.ListEventsRequest()
        unknownType.types = ["reader.exploded"]
        await refused(unknownType, saying: "\"reader.exploded\" is not an event type")
        var badToken = ReaderGatewayV1.ListEventsRequest()
        badToken.pageToken = "page-2"
        await refused(badToken, saying: "page_token is not one this gateway issued")
        var reversed = ReaderGatewayV1.ListEventsRequest()
        reversed.createdFromUnixMs = 2_000
        reversed.createdBeforeUnixMs = 1_000
        await refused(reversed, saying: "the range is empty")
        var negative = ReaderGatewayV1.ListEventsRequest()
        negative.createdFromUnixMs = -1
        await refused(negative, saying: "created_from_unix_ms is negative")

        var unknown = ReaderGatewayV1.GetEventRequest()
        unknown.eventID = "evt_00000000000000000000000000000000"
        await expectFailure(.eventNotFound) { try await admin.call(Admin.getEvent, unknown) }

        // Another account sees none of these events, not even by id.
        let other = try await DevelopmentAccount.create(name: "other", client: harness.database.client)
        let adminB = try await harness.admin(secretKey: other.secretKey)
        #expect(try await Self.allEvents(adminB).isEmpty)
        var theirs = ReaderGatewayV1.GetEventRequest()
        theirs.eventID = mine[0].id
        await expectFailure(.eventNotFound) { try await adminB.call(Admin.getEvent, theirs) }
        // A page token carries no account: used by another account it pages that account's events.
        _ = try await adminB.registerSerials(["EV-ISO-B"], prefix: "B", location: try await adminB.createLocation("B"))
        let theirEvents = try await Self.allEvents(adminB)
        #expect(theirEvents.count == 1 && theirEvents[0].id != mine[0].id)
        await harness.stop()
    }
}
