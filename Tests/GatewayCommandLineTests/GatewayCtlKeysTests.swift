import GatewayCommandLine
import GatewayCore
import GatewayWire
import Testing

@Suite("gatewayctl keys: command lines and the keys table")
struct GatewayCtlKeysTests {
    @Test func keysCommandsParse() throws {
        #expect(try parseCtl(["keys"]) == .listKeys)
        #expect(try parseCtl(["keys", "list"]) == .listKeys)
        var permissions = ReaderGatewayV1.ApiKeyPermissions()
        permissions.readers = .read
        permissions.tokens = .write
        #expect(try parseCtl(["keys", "create", "back", "office", "--permissions", "readers=read, tokens=write", "--locations", "tml_a,tml_b"])
            == .createKey(name: "back office", permissions: permissions, locationIDs: ["tml_a", "tml_b"], expiresUnixMs: 0))
        let readOnly = try parseCtl(["keys", "create", "wall", "--read-only", "--expires", "2030-01-01T00:00:00Z"])
        guard case .createKey(_, let all, [], 1_893_456_000_000) = readOnly else {
            Issue.record("\(readOnly)")
            return
        }
        #expect(AdminRendering.permissions(all) == "locations=read,readers=read,ownership=read,tokens=read,updates=read,webhooks=read,events=read,keys=read")
        #expect(try parseCtl(["keys", "roll", "key_1", "--overlap", "7d"]) == .rollKey(keyID: "key_1", overlap: .seconds(7 * 86_400)))
        #expect(try parseCtl(["keys", "roll", "key_1"]) == .rollKey(keyID: "key_1", overlap: nil))
        #expect(try parseCtl(["keys", "revoke", "key_1"]) == .revokeKey(keyID: "key_1"))
    }

    @Test func keysUsageErrorsSayWhatIsMissing() {
        let cases: [([String], String)] = [
            (["keys", "create", "--read-only"], "NAME"),
            (["keys", "create", "x"], "--permissions"),
            (["keys", "create", "x", "--permissions", "readers=admin"], "resource=none|read|write"),
            (["keys", "create", "x", "--permissions", "printers=read"], "resource=none|read|write"),
            (["keys", "create", "x", "--read-only", "--permissions", "all=read"], "not both"),
            (["keys", "roll"], "KEY id"),
            (["keys", "roll", "key_1", "--overlap", "soon"], "7 days"),
            (["keys", "rotate", "key_1"], "keys list, keys create, keys roll, keys revoke"),
        ]
        expectRefused(cases)
    }

    @Test func theKeysTableShowsScopeAndState() {
        var key = ReaderGatewayV1.ApiKey()
        key.id = "key_1"
        key.name = "store"
        var permissions = ReaderGatewayV1.ApiKeyPermissions()
        permissions.readers = .read
        key.permissions = permissions
        key.locationIDs = ["tml_a"]
        key.secretLast4 = "wxyz"
        key.previousSecretExpiresUnixMs = 2_000
        let rolled = AdminRendering.table([key], nowUnixMs: 1_000).description
        #expect(rolled.contains("sk_...wxyz") && rolled.contains("readers=read") && rolled.contains("tml_a") && rolled.contains("rolled; old secret until"), "\(rolled)")
        key.revokedUnixMs = 1_500
        #expect(AdminRendering.table([key], nowUnixMs: 1_000).description.contains("revoked"))
    }
}

@Suite("gatewayctl webhooks and events resend: command lines")
struct GatewayCtlWebhooksTests {
    @Test func webhookCommandsParse() throws {
        var create = ReaderGatewayV1.CreateWebhookEndpointRequest()
        create.url = "https://hooks.example.com/rg"
        create.enabledEvents = ["reader.online", "reader.offline"]
        create.description = "backend"
        #expect(try parseCtl(["webhooks", "create", "--url", "https://hooks.example.com/rg", "--events", "reader.online, reader.offline", "--description", "backend"]) == .createWebhook(create))
        #expect(try parseCtl(["webhooks"]) == .listWebhooks)
        var update = ReaderGatewayV1.UpdateWebhookEndpointRequest()
        update.endpointID = "we_1"
        update.enabledChange = .disable
        #expect(try parseCtl(["webhooks", "update", "we_1", "--disable"]) == .updateWebhook(update))
        var described = ReaderGatewayV1.UpdateWebhookEndpointRequest()
        described.endpointID = "we_1"
        described.description = "till alerts"
        #expect(try parseCtl(["webhooks", "update", "we_1", "--description", "till alerts"]) == .updateWebhook(described))
        var cleared = ReaderGatewayV1.UpdateWebhookEndpointRequest()
        cleared.endpointID = "we_1"
        cleared.clearDescription = true
        #expect(try parseCtl(["webhooks", "update", "we_1", "--description", ""]) == .updateWebhook(cleared))
        #expect(try parseCtl(["webhooks", "delete", "we_1"]) == .deleteWebhook(endpointID: "we_1"))
        #expect(try parseCtl(["events", "resend", "evt_1", "--endpoint", "we_1"]) == .resendEvent(eventID: "evt_1", endpointID: "we_1"))
        var range = ReaderGatewayV1.ResendEventsRequest()
        range.endpointID = "we_1"
        range.createdFromUnixMs = 1_893_456_000_000
        #expect(try parseCtl(["events", "resend", "--since", "2030-01-01T00:00:00Z", "--endpoint", "we_1"]) == .resendEvents(range))
    }

    @Test func webhookUsageErrorsSayWhatIsMissing() {
        expectRefused([
            (["webhooks", "create"], "--url"),
            (["webhooks", "update"], "ENDPOINT id"),
            (["webhooks", "update", "we_1", "--enable", "--disable"], "not both"),
            (["webhooks", "remove", "we_1"], "webhooks create, webhooks list, webhooks update, webhooks delete"),
            (["events", "resend", "evt_1"], "--endpoint"),
            (["events", "resend", "--endpoint", "we_1"], "--since"),
            (["events", "resend", "evt_1", "--endpoint", "we_1", "--since", "2030-01-01T00:00:00Z"], "leave out --since"),
        ])
    }
}
