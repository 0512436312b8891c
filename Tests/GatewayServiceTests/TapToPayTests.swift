import Foundation
import GatewayCore
import GatewayClient
import GatewayOperations
import GatewayService
import GatewayTestKit
import GatewayTransport
import GatewayWire
import GatewayWireClients
import Synchronization
import Testing

/// Tap to Pay through the client library against real gateways: the supported-device check,
/// connect with a location, merchant name, terms, and the 3-accounts-per-24-hours rule raced
/// across two replicas sharing one PostgreSQL.
@Suite("Tap to Pay")
struct TapToPayTests {
    /// One account's lane on the phone `device`, through `port`.
    struct PhoneLane {
        let client: TerminalClient
        let connection: GatewayConnection
        let location: String
        let sessionToken: String

        /// Only the gateway's step of the connect (admission, terms, registration), raw.
        func admit() async throws -> ReaderGatewayV1.ConnectTapToPayReaderResponse {
            var request = ReaderGatewayV1.ConnectTapToPayReaderRequest()
            request.sessionToken = sessionToken
            var device = ReaderGatewayV1.TapToPayDevice()
            device.model = TapToPayDevice.simulatedSupported.model
            device.osVersion = TapToPayDevice.simulatedSupported.osVersion
            request.device = device
            request.locationID = location
            request.tosAcceptancePermitted = true
            return try await connection.unary(ReaderGatewayV1.Sdk.connectTapToPayReader, request)
        }
    }

    static func lane(_ harness: GatewayHarness, port: Int, account: DevelopmentAccount, device: String, label: String) async throws -> PhoneLane {
        let admin = try await harness.admin(secretKey: account.secretKey)
        let location = try await admin.createLocation("Shop of \(label)")
        let token = try await admin.connectionToken()
        let configuration = ClientChannelConfiguration(host: "127.0.0.1", port: port, serverName: "localhost", trustedCAPath: harness.caPath)
        let connection = GatewayConnection(configuration)
        let client = TerminalClient(connection: connection)
        let session = try await client.openSession(connectionToken: token, posDeviceID: device, laneLabel: label)
        return PhoneLane(client: client, connection: connection, location: location, sessionToken: session.resumeToken)
    }

    /// A second replica: another service host on the harness's PostgreSQL.
    static func secondReplica(_ harness: GatewayHarness) async throws -> (RunningPart, Int) {
        let server = try harness.authority.issue(
            CertificateRequest(commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], usage: .server),
            writingTo: harness.directory, name: "server-replica-2"
        )
        let host = GatewayServiceHost(
            listener: GatewayListenerConfiguration(host: "127.0.0.1", port: 0, certificate: server, readerCAPath: harness.caPath, loopCount: 1),
            service: ServiceConfiguration(), client: harness.database.client,
            metrics: GatewayMetrics(callMethods: GatewayServiceHost.methodNames, includeProcessMetrics: false), closeGracePeriod: .milliseconds(500)
        )
        let running = try await RunningPart.start(host)
        return (running, try #require(host.localAddress).port)
    }

    @Test("discovery tells a supported phone from an old model or an old OS")
    func discoveryChecksTheDevice() async throws {
        let harness = try await GatewayHarness.start()
        let phone = try await Self.lane(harness, port: harness.port, account: harness.account, device: "phone-1", label: "Till")
        let reader = try await phone.client.discoverTapToPayReader(device: .simulatedSupported)
        #expect(reader.serialNumber == "TTP-PHONE-1")
        #expect(reader.deviceType == .tapToPay)
        for device in [TapToPayDevice(model: "iPhone10,6", osVersion: "17.4"), TapToPayDevice(model: "iPhone15,2", osVersion: "16.3")] {
            do {
                _ = try await phone.client.discoverTapToPayReader(device: device)
                Issue.record("\(device) was discovered as supported")
            } catch let error as TerminalError {
                #expect(error.code == .tapToPayUnsupportedDevice)
                #expect(error.underlying.reason == .tapToPayUnsupportedDevice)
                #expect(error.message.contains(device.model == "iPhone10,6" ? "model" : "16.4"), "\(error.message)")
            }
        }
        phone.connection.close()
        await harness.stop()
    }

    @Test("connect registers the reader to the location, shows the location's name unless given one, and accepts the terms once per account")
    func connectWithLocation() async throws {
        let harness = try await GatewayHarness.start()
        let phone = try await Self.lane(harness, port: harness.port, account: harness.account, device: "phone-1", label: "Till")
        do {
            try await phone.client.connectTapToPayReader(device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: ""))
            Issue.record("a connect without a location succeeded")
        } catch let error as TerminalError {
            #expect(error.code == .locationRequired)
        }
        do {
            try await phone.client.connectTapToPayReader(
                device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location, tosAcceptancePermitted: false)
            )
            Issue.record("a connect without accepted terms succeeded")
        } catch let error as TerminalError {
            #expect(error.code == .tapToPayReaderTOSAcceptanceCanceled)
            #expect(error.underlying.reason == .tapToPayReaderTosAcceptanceCanceled)
        }
        let first = try await phone.client.connectTapToPayReader(device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location))
        #expect(first.termsAcceptedNow)
        #expect(first.merchantDisplayName == "Shop of Till")
        #expect(first.accountsInWindow == 1)
        let reader = first.reader
        #expect(reader.locationID == phone.location)
        #expect(reader.deviceType == .tapToPay)
        #expect(reader.id.hasPrefix("tmr_"))

        // The same account on another phone: the terms are not presented again (not even
        // permitted), and the given merchant name is shown.
        let other = try await Self.lane(harness, port: harness.port, account: harness.account, device: "phone-2", label: "Till 2")
        let second = try await other.client.connectTapToPayReader(
            device: .simulatedSupported,
            TapToPayConnectionConfiguration(locationID: other.location, merchantDisplayName: "Corner Café", tosAcceptancePermitted: false)
        )
        #expect(!second.termsAcceptedNow)
        #expect(second.merchantDisplayName == "Corner Café")

        // The fleet sees both phones as readers at their locations.
        let admin = AdminClient(connection: GatewayConnection(harness.clientConfiguration), secretKey: harness.account.secretKey)
        let readers = try await admin.listReaders()
        #expect(Set(readers.filter { $0.deviceType == .tapToPay }.map(\.serialNumber)) == ["TTP-PHONE-1", "TTP-PHONE-2"])
        phone.connection.close()
        other.connection.close()
        await harness.stop()
    }

    @Test("six accounts race to connect on one phone through two replicas: exactly 3 connect, the rest are MERCHANT_BLOCKED")
    func threeAccountsAcrossReplicas() async throws {
        let harness = try await GatewayHarness.start()
        let (replica, replicaPort) = try await Self.secondReplica(harness)
        var lanes: [PhoneLane] = []
        for index in 0..<6 {
            let account = try await DevelopmentAccount.create(name: "merchant \(index)", client: harness.database.client)
            let port = index % 2 == 0 ? harness.port : replicaPort
            lanes.append(try await Self.lane(harness, port: port, account: account, device: "shared-phone", label: "Merchant \(index)"))
        }
        let outcomes = await withTaskGroup(of: ReaderGatewayV1.ErrorReason?.self) { group in
            for lane in lanes {
                group.addTask {
                    do {
                        _ = try await lane.admit()
                        return nil
                    } catch let error as RPCError {
                        return error.reason
                    } catch {
                        return .unspecified
                    }
                }
            }
            var outcomes: [ReaderGatewayV1.ErrorReason?] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        #expect(outcomes.filter { $0 == nil }.count == 3, "\(outcomes)")
        #expect(outcomes.filter { $0 == .tapToPayReaderMerchantBlocked }.count == 3, "\(outcomes)")
        // An admitted account comes back (on either replica) without counting again.
        let admittedAgain = await withTaskGroup(of: Bool.self) { group in
            for lane in lanes {
                group.addTask { (try? await lane.admit()) != nil }
            }
            var count = 0
            for await admitted in group where admitted { count += 1 }
            return count
        }
        #expect(admittedAgain == 3)
        for lane in lanes { lane.connection.close() }
        try await replica.stop()
        await harness.stop()
    }

    @Test("payments on the phone's own reader: a collect waits for the tap, cancel ends it, a tap collects, confirm succeeds; other lanes do not discover the phone")
    func paymentsOnThePhone() async throws {
        let harness = try await GatewayHarness.start()
        let phone = try await Self.lane(harness, port: harness.port, account: harness.account, device: "phone-1", label: "Till")
        try await phone.client.connectTapToPayReader(device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location))
        let reader = try #require(phone.client.tapToPayReader)
        var params = ReaderGatewayV1.CollectPaymentMethodParams()
        params.paymentIntentID = "pi_ttp_1"
        params.amount = 1250
        params.currency = "eur"

        let cancelled = Task { try await phone.client.collectPaymentMethod(params) }
        #expect(await eventually { reader.isWaitingForTap })
        try await phone.client.cancelCollectPaymentMethod()
        do {
            _ = try await cancelled.value
            Issue.record("a cancelled collect succeeded")
        } catch let error as RPCError {
            #expect(error.reason == .commandCanceled)
        }

        let collect = Task { try await phone.client.collectPaymentMethod(params) }
        #expect(await eventually { reader.isWaitingForTap })
        reader.presentCard(TapToPayReader.Card(brand: "mastercard", last4: "4444"))
        let collected = try await collect.value
        #expect(collected.paymentMethod?.brand == "mastercard")
        #expect(collected.paymentMethod?.readMethod == "contactless_emv")
        var confirm = ReaderGatewayV1.ConfirmPaymentIntentParams()
        confirm.paymentIntentID = "pi_ttp_1"
        let confirmed = try await phone.client.confirmPaymentIntent(confirm)
        #expect(confirmed.status == "succeeded")
        #expect(confirmed.amountReceived == 1250)

        // Another lane at the location sees no Tap to Pay reader: it is that phone's alone.
        let admin = try await harness.admin()
        let token = try await admin.connectionToken()
        let configuration = harness.clientConfiguration
        let otherConnection = GatewayConnection(configuration)
        let other = TerminalClient(connection: otherConnection)
        _ = try await other.openSession(connectionToken: token, posDeviceID: "pos-2", laneLabel: "Lane 2")
        let seen = try await other.discoverReaders(locationID: phone.location)
        #expect(!seen.contains { $0.reader.deviceType == .tapToPay })
        // The fleet sees the phone's reader held by its session.
        let ownership = try await admin.ownership(of: reader.readerID)
        #expect(ownership.owner?.laneLabel == "Till")
        try await phone.client.closeSession()
        phone.connection.close()
        otherConnection.close()
        await harness.stop()
    }

    /// Collects a client's events as they come.
    final class EventLog: Sendable {
        final class Storage: Sendable {
            let events = Mutex<[TerminalEvent]>([])
        }
        let storage = Storage()
        let task: Task<Void, Never>

        init(_ client: TerminalClient) {
            let storage = storage
            task = Task { for await event in client.events { storage.events.withLock { $0.append(event) } } }
        }

        var all: [TerminalEvent] { storage.events.withLock { $0 } }
        func count(where match: (TerminalEvent) -> Bool) -> Int { all.filter(match).count }
    }

    static func isDisconnected(_ event: TerminalEvent) -> Bool { if case .disconnected = event { true } else { false } }
    static func isStarted(_ event: TerminalEvent) -> Bool { if case .reconnectStarted = event { true } else { false } }
    static func isSucceeded(_ event: TerminalEvent) -> Bool { if case .reconnectSucceeded = event { true } else { false } }
    static func isFailed(_ event: TerminalEvent) -> Bool { if case .reconnectFailed = event { true } else { false } }
    /// The gateway's error under the one a `reconnectFailed` event carries; nil for no event or another kind.
    static func failure(_ event: TerminalEvent?) -> RPCError? { if case .reconnectFailed(_, let error)? = event { error.underlying } else { nil } }
    /// What a `disconnected` event tells; nil for no event or another kind.
    static func disconnection(_ event: TerminalEvent?) -> DisconnectInfo? { if case .disconnected(let info)? = event { info } else { nil } }
    // The background and connectivity reconnects are in TapToPayReconnectTests.
}
