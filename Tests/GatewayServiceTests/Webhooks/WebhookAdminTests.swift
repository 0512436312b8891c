import Foundation
import GatewayService
import GatewayTestKit
import GatewayTestSupport
import GatewayTransport
import GatewayWire
import Testing

/// Webhook endpoints managed as an operator does, with `gatewayctl` against a running gateway:
/// create (the secret shown once), a lane's connect heard as a signed POST, list, disable,
/// resend one event and a range, enable, delete; each change in the audit log; bad input and
/// unknown ids refused saying so.
@Suite("Webhook administration")
struct WebhookAdminTests {
    @Test("gatewayctl webhooks create|list|update|delete and events resend, heard at a real receiver, each change audited")
    func operatorFlow() async throws {
        let receiver = try await WebhookReceiver.start()
        var webhooks = WebhookDeliveryConfiguration()
        webhooks.allowPrivateAddresses = true
        webhooks.trustedCAPath = receiver.caPath
        webhooks.pollInterval = .milliseconds(20)
        webhooks.retryBase = .milliseconds(20)
        let harness = try await GatewayHarness.start(webhooks: webhooks)
        do {
            let store = try await StoreFixture.make(harness)
            func ctl(_ arguments: [String]) async throws -> (status: Int32?, output: String) {
                try await LoggedProcess.run(
                    PackageExecutables.path("gatewayctl"),
                    ["--gateway", "127.0.0.1:\(harness.port)", "--ca", harness.caPath, "--server-name", "localhost", "--secret-key", store.admin.secretKey] + arguments,
                    logPath: harness.directory + "/gatewayctl-\(UUID().uuidString).log"
                )
            }
            func json(_ output: String) throws -> [String: Any] {
                let start = try #require(output.firstIndex(of: "{"))
                return try #require(try JSONSerialization.jsonObject(with: Data(output[start...].utf8)) as? [String: Any], "\(output)")
            }

            let refused = try await ctl(["webhooks", "create", "--url", "http://hooks.example.com/"])
            #expect(refused.status == 65 && refused.output.contains("not an https:// URL"), "\(refused.output)")
            let created = try await ctl(["webhooks", "create", "--url", receiver.url("/fleet"), "--events", "reader.ownership.connected", "--description", "backend", "--json"])
            #expect(created.status == 0, "\(created.output)")
            let endpoint = try json(created.output)
            let id = try #require(endpoint["id"] as? String)
            let secret = try #require(endpoint["secret"] as? String)
            #expect(secret.hasPrefix("whsec_") && endpoint["enabled_events"] as? [String] == ["reader.ownership.connected"])

            // A lane takes the reader: the signed POST arrives.
            let lane = try await store.lane("Lane 1")
            _ = try await lane.discoverAndConnect(store.readerID, location: store.location, failIfInUse: true)
            #expect(await eventually { !receiver.requests("/fleet").isEmpty })
            let first = try #require(receiver.requests("/fleet").first)
            let event = try #require(first.eventID)
            let fields = WebhookDeliveryTests.fields(first.signature)
            let timestamp = try #require(fields["t"])
            #expect(fields["v1"] == HMACSHA256.hex(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + first.body))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(first.body)) as? [String: Any])
            #expect(object["type"] as? String == "reader.ownership.connected" && object["reader"] as? String == store.readerID)

            let listed = try await ctl(["webhooks", "list"])
            #expect(listed.status == 0 && listed.output.contains(id) && listed.output.contains("enabled") && !listed.output.contains(secret), "\(listed.output)")
            let disabled = try await ctl(["webhooks", "update", id, "--disable"])
            #expect(disabled.status == 0 && disabled.output.contains("disabled (requested)"), "\(disabled.output)")
            // A description set, then emptied with `--description ""`; both at once is refused on the wire.
            let described = try await ctl(["webhooks", "update", id, "--description", "till alerts", "--json"])
            #expect(described.status == 0, "\(described.output)")
            #expect(try json(described.output)["description"] as? String == "till alerts", "\(described.output)")
            let cleared = try await ctl(["webhooks", "update", id, "--description", "", "--json"])
            #expect(cleared.status == 0, "\(cleared.output)")
            #expect(try json(cleared.output)["description"] as? String == "", "\(cleared.output)")
            var both = ReaderGatewayV1.UpdateWebhookEndpointRequest()
            both.endpointID = id
            both.description = "x"
            both.clearDescription = true
            do {
                _ = try await store.admin.call(ReaderGatewayV1.FleetAdmin.updateWebhookEndpoint, both)
                Issue.record("a description given and cleared at once was accepted")
            } catch {
                #expect("\(error)".contains("INVALID_REQUEST") && "\(error)".contains("clear_description"), "\(error)")
            }

            // Resends while disabled wait; enabling sends them: the same event id again.
            let resent = try await ctl(["events", "resend", event, "--endpoint", id])
            #expect(resent.status == 0 && resent.output.contains("queued \(event) for \(id)"), "\(resent.output)")
            let range = try await ctl(["events", "resend", "--since", "2020-01-01T00:00:00Z", "--endpoint", id, "--json"])
            #expect(range.status == 0, "\(range.output)")
            let queued = try json(range.output)["queued"] as? Int
            #expect(queued == 1, "\(range.output)")
            #expect(receiver.requests("/fleet").count == 1)
            let enabled = try await ctl(["webhooks", "update", id, "--enable", "--events", "*"])
            #expect(enabled.status == 0 && enabled.output.contains("enabled") && enabled.output.contains("*"), "\(enabled.output)")
            #expect(await eventually { receiver.requests("/fleet").filter { $0.eventID == event }.count == 3 })

            let unknown = try await ctl(["events", "resend", event, "--endpoint", "we_unknown"])
            #expect(unknown.status == 65 && unknown.output.contains("no webhook endpoint with this id"), "\(unknown.output)")
            let unknownEvent = try await ctl(["events", "resend", "evt_unknown", "--endpoint", id])
            #expect(unknownEvent.status == 65 && unknownEvent.output.contains("no event with this id"), "\(unknownEvent.output)")
            let deleted = try await ctl(["webhooks", "delete", id])
            #expect(deleted.status == 0 && deleted.output.contains("deleted \(id)"), "\(deleted.output)")
            let again = try await ctl(["webhooks", "delete", id])
            #expect(again.status == 65, "\(again.output)")

            let audit = try await ctl([
                "audit", "--action", "CreateWebhookEndpoint,UpdateWebhookEndpoint,DeleteWebhookEndpoint,ResendEvent,ResendEvents", "--json",
            ])
            #expect(audit.status == 0, "\(audit.output)")
            let rows = try #require(try json(audit.output)["events"] as? [[String: Any]])
            let actions = rows.compactMap { $0["action"] as? String }.reversed()
            #expect(Array(actions) == [
                // The refused update (a description given and cleared at once) is audited too.
                "CreateWebhookEndpoint", "CreateWebhookEndpoint", "UpdateWebhookEndpoint", "UpdateWebhookEndpoint", "UpdateWebhookEndpoint", "UpdateWebhookEndpoint",
                "ResendEvent", "ResendEvents", "UpdateWebhookEndpoint",
                "ResendEvent", "ResendEvent", "DeleteWebhookEndpoint", "DeleteWebhookEndpoint",
            ], "\(actions)")
        } catch {
            await harness.stop()
            await receiver.stop()
            throw error
        }
        await harness.stop()
        await receiver.stop()
    }
}
