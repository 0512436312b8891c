import Foundation
import GatewayClient
import GatewayTestKit
import GatewayWire
import Synchronization
import Testing

/// Tap to Pay's disconnects and auto-reconnect through the client library against a real
/// gateway: the app going to the background and coming back, the phone's connection cut under
/// it (a proxy in front of the gateway), a cancel, a window that passes, and auto-reconnect
/// off. The gateway keeps the owner while the phone reconnects and releases it when the
/// reconnect fails.
@Suite("Tap to Pay reconnect", .timeLimit(.minutes(5)))
struct TapToPayReconnectTests {
    /// The gateway's offline bound: long, so that only the test decides when a reconnect ends.
    static let offlineBound = Duration.seconds(300)

    /// Records the delegate's reconnect reasons.
    final class ReconnectDelegate: TerminalDelegate {
        let reasons = Mutex<[DisconnectReason]>([])
        func terminal(_ terminal: TerminalClient, didStartReconnect readerID: String, reason: DisconnectReason) {
            reasons.withLock { $0.append(reason) }
        }
        nonisolated var all: [DisconnectReason] { reasons.withLock { $0 } }
    }

    typealias Log = TapToPayTests.EventLog

    static func kinds(_ log: Log) -> [String] {
        log.all.compactMap { event -> String? in
            switch event {
            case .reconnectStarted: "started"
            case .reconnectSucceeded: "succeeded"
            case .reconnectFailed: "failed"
            case .disconnected: "disconnected"
            default: nil
            }
        }
    }

    static func pay(_ client: TerminalClient, _ intent: String) async throws -> ReaderGatewayV1.CollectPaymentMethodResponse {
        var params = ReaderGatewayV1.CollectPaymentMethodParams()
        params.paymentIntentID = intent
        params.amount = 300
        params.currency = "usd"
        return try await client.collectPaymentMethod(params)
    }

    static func latestEnding(_ admin: TestAdmin, _ readerID: String) async -> ReaderGatewayV1.OwnershipHistoryEntry? {
        (try? await admin.history(of: readerID))?.first { $0.reason == .mobileLinkEnded }
    }

    /// The reader's latest recorded link ending, once there is one.
    static func awaitEnding(_ admin: TestAdmin, _ readerID: String) async -> ReaderGatewayV1.OwnershipHistoryEntry? {
        var found: ReaderGatewayV1.OwnershipHistoryEntry?
        _ = await eventually {
            found = await latestEnding(admin, readerID)
            return found != nil
        }
        return found
    }

    @Test("background: reconnectStarted(appInBackground), the gateway keeps the owner and records why; foreground: reconnectSucceeded at the same generation, payments go on, no didDisconnect")
    func backgroundKeepsTheOwner() async throws {
        let harness = try await GatewayHarness.start(offlineBound: Self.offlineBound)
        let phone = try await TapToPayTests.lane(harness, port: harness.port, account: harness.account, device: "phone-1", label: "Till")
        let log = Log(phone.client)
        let delegate = ReconnectDelegate()
        phone.client.setDelegate(delegate)
        let connected = try await phone.client.connectTapToPayReader(
            device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location), reader: .init(tapAutomatically: .init())
        )
        let readerID = connected.reader.id
        let admin = try await harness.admin()
        let before = try await admin.ownership(of: readerID)

        phone.client.applicationDidEnterBackground()
        #expect(await eventually { Self.kinds(log) == ["started"] })
        // The delegate hears it on the main actor, after the event stream.
        #expect(await eventually { delegate.all == [.appInBackground] }, "\(delegate.all)")
        #expect(phone.client.tapToPayReader == nil)
        let ending = await Self.awaitEnding(admin, readerID)
        #expect(ending?.mobileDisconnectReason == .appInBackground)
        #expect(ending?.linkReconnecting == true)
        let during = try await admin.ownership(of: readerID)
        #expect(during.owner?.laneLabel == "Till")
        #expect(during.generation == before.generation)

        phone.client.applicationWillEnterForeground()
        #expect(await eventually { Self.kinds(log) == ["started", "succeeded"] })
        #expect(phone.client.tapToPayReader?.readerID == readerID)
        #expect(await eventually { (try? await admin.ownership(of: readerID))?.networkStatus == .online })
        let after = try await admin.ownership(of: readerID)
        #expect(after.owner?.laneLabel == "Till")
        #expect(after.generation == before.generation)
        #expect(try await Self.pay(phone.client, "pi_after_background").paymentMethod?.brand == "visa")
        #expect(Self.kinds(log) == ["started", "succeeded"])
        try await phone.client.closeSession()
        log.task.cancel()
        phone.connection.close()
        await harness.stop()
    }

    @Test("the app stays in the background past the reconnect timeout: reconnectFailed, then didDisconnect, and the reader is released")
    func windowPasses() async throws {
        let harness = try await GatewayHarness.start(offlineBound: Self.offlineBound)
        let phone = try await TapToPayTests.lane(harness, port: harness.port, account: harness.account, device: "phone-1", label: "Till")
        let log = Log(phone.client)
        let connected = try await phone.client.connectTapToPayReader(
            device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location, reconnectTimeout: .milliseconds(300))
        )
        let readerID = connected.reader.id
        let admin = try await harness.admin()
        phone.client.applicationDidEnterBackground()
        #expect(await eventually { Self.kinds(log) == ["started", "failed", "disconnected"] })
        let error = try #require(TapToPayTests.failure(log.all.first(where: TapToPayTests.isFailed)))
        #expect(error.reason == .readerOffline)
        #expect(error.message.contains("reconnect timeout"), "\(error.message)")
        #expect(await eventually { (try? await admin.ownership(of: readerID))?.owner == nil })
        #expect(phone.client.connectedReader == nil)
        let history = try await admin.history(of: readerID)
        #expect(history.first?.reason == .released)
        #expect(history.contains { $0.reason == .mobileLinkEnded && $0.mobileDisconnectReason == .appInBackground && $0.linkReconnecting })
        // Coming back later reconnects nothing: the app connects again.
        phone.client.applicationWillEnterForeground()
        try await phone.client.connectTapToPayReader(device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location))
        #expect(try await admin.ownership(of: readerID).owner?.laneLabel == "Till")
        #expect(Self.kinds(log) == ["started", "failed", "disconnected"])
        try await phone.client.closeSession()
        log.task.cancel()
        phone.connection.close()
        await harness.stop()
    }

    @Test("a cancel during the reconnect: reconnectFailed, then didDisconnect, the reader is released; without auto-reconnect the background releases it at once and only didDisconnect comes")
    func cancelAndManual() async throws {
        let harness = try await GatewayHarness.start(offlineBound: Self.offlineBound)
        let phone = try await TapToPayTests.lane(harness, port: harness.port, account: harness.account, device: "phone-1", label: "Till")
        let log = Log(phone.client)
        let connected = try await phone.client.connectTapToPayReader(device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location))
        let readerID = connected.reader.id
        let admin = try await harness.admin()
        phone.client.applicationDidEnterBackground()
        #expect(await eventually { Self.kinds(log) == ["started"] })
        phone.client.cancelReconnect()
        #expect(await eventually { Self.kinds(log) == ["started", "failed", "disconnected"] })
        #expect(await eventually { (try? await admin.ownership(of: readerID))?.owner == nil })

        // Manual: auto-reconnect off; the background ends the link saying so, not reconnecting:
        // the gateway releases the reader at once and its didDisconnect (reader lost) comes.
        phone.client.applicationWillEnterForeground()
        try await phone.client.connectTapToPayReader(
            device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location, autoReconnectOnUnexpectedDisconnect: false)
        )
        #expect(try await admin.ownership(of: readerID).owner?.laneLabel == "Till")
        phone.client.applicationDidEnterBackground()
        #expect(await eventually { Self.kinds(log) == ["started", "failed", "disconnected", "disconnected"] })
        let info = try #require(TapToPayTests.disconnection(log.all.last(where: TapToPayTests.isDisconnected)))
        #expect(info.reason == .readerLost)
        #expect(await eventually { (try? await admin.ownership(of: readerID))?.owner == nil })
        #expect(await eventually { await Self.latestEnding(admin, readerID)?.linkReconnecting == false })
        #expect(await Self.latestEnding(admin, readerID)?.mobileDisconnectReason == .appInBackground)
        try await phone.client.closeSession()
        log.task.cancel()
        phone.connection.close()
        await harness.stop()
    }

    @Test("the phone's connection is cut: reconnectStarted(unknown), the session resumes, the link attaches again: reconnectSucceeded, same owner and generation, payments go on")
    func connectivityLost() async throws {
        let harness = try await GatewayHarness.start(offlineBound: Self.offlineBound)
        let proxy = try CuttableProxy(upstreamPort: harness.port)
        let phone = try await TapToPayTests.lane(harness, port: proxy.port, account: harness.account, device: "phone-1", label: "Till")
        let log = Log(phone.client)
        let delegate = ReconnectDelegate()
        phone.client.setDelegate(delegate)
        let connected = try await phone.client.connectTapToPayReader(
            device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location), reader: .init(tapAutomatically: .init())
        )
        let readerID = connected.reader.id
        let admin = try await harness.admin()
        let before = try await admin.ownership(of: readerID)

        proxy.cut()
        #expect(await eventually { Self.kinds(log) == ["started", "succeeded"] })
        #expect(await eventually { delegate.all == [.unknown] }, "\(delegate.all)")
        #expect(log.count { if case .sessionResumed = $0 { true } else { false } } == 1)
        #expect(log.count { if case .connectionLost = $0 { true } else { false } } == 1)
        #expect(await eventually { (try? await admin.ownership(of: readerID))?.networkStatus == .online })
        let after = try await admin.ownership(of: readerID)
        #expect(after.owner?.laneLabel == "Till")
        #expect(after.generation == before.generation)
        #expect(try await Self.pay(phone.client, "pi_after_cut").paymentMethod?.brand == "visa")
        #expect(Self.kinds(log) == ["started", "succeeded"])
        try await phone.client.closeSession()
        log.task.cancel()
        phone.connection.close()
        proxy.stop()
        await harness.stop()
    }

    @Test("the phone's connection is cut with auto-reconnect off: no reconnect; once the session is back the reader is let go and didDisconnect comes, once")
    func connectivityLostWithoutAutoReconnect() async throws {
        let harness = try await GatewayHarness.start(offlineBound: Self.offlineBound)
        let proxy = try CuttableProxy(upstreamPort: harness.port)
        let phone = try await TapToPayTests.lane(harness, port: proxy.port, account: harness.account, device: "phone-1", label: "Till")
        let log = Log(phone.client)
        let connected = try await phone.client.connectTapToPayReader(
            device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location, autoReconnectOnUnexpectedDisconnect: false)
        )
        let readerID = connected.reader.id
        let admin = try await harness.admin()
        proxy.cut()
        #expect(await eventually { Self.kinds(log) == ["disconnected"] })
        let info = try #require(TapToPayTests.disconnection(log.all.last(where: TapToPayTests.isDisconnected)))
        #expect(info.reason == .readerLost)
        #expect(info.readerID == readerID)
        #expect(log.count { if case .sessionResumed = $0 { true } else { false } } == 1)
        #expect(await eventually { (try? await admin.ownership(of: readerID))?.owner == nil })
        #expect(phone.client.connectedReader == nil)
        #expect(try await admin.history(of: readerID).first?.reason == .released)
        // The app connects again by itself.
        try await phone.client.connectTapToPayReader(device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location))
        #expect(try await admin.ownership(of: readerID).owner?.laneLabel == "Till")
        #expect(Self.kinds(log) == ["disconnected"])
        try await phone.client.closeSession()
        log.task.cancel()
        phone.connection.close()
        proxy.stop()
        await harness.stop()
    }

    @Test("the connection is cut while the app is in the background: one reconnect, which waits for the foreground and then succeeds")
    func connectivityLostInTheBackground() async throws {
        let harness = try await GatewayHarness.start(offlineBound: Self.offlineBound)
        let proxy = try CuttableProxy(upstreamPort: harness.port)
        let phone = try await TapToPayTests.lane(harness, port: proxy.port, account: harness.account, device: "phone-1", label: "Till")
        let log = Log(phone.client)
        let connected = try await phone.client.connectTapToPayReader(
            device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location), reader: .init(tapAutomatically: .init())
        )
        let readerID = connected.reader.id
        let admin = try await harness.admin()
        phone.client.applicationDidEnterBackground()
        #expect(await eventually { Self.kinds(log) == ["started"] })
        _ = await Self.awaitEnding(admin, readerID)
        proxy.cut()
        #expect(await eventually { log.count { if case .sessionResumed = $0 { true } else { false } } == 1 })
        // Still in the background: nothing attaches, nothing fails.
        #expect(Self.kinds(log) == ["started"])
        #expect(phone.client.tapToPayReader == nil)
        phone.client.applicationWillEnterForeground()
        #expect(await eventually { Self.kinds(log) == ["started", "succeeded"] })
        #expect(try await admin.ownership(of: readerID).owner?.laneLabel == "Till")
        #expect(try await Self.pay(phone.client, "pi_after_both").paymentMethod?.brand == "visa")
        try await phone.client.closeSession()
        log.task.cancel()
        phone.connection.close()
        proxy.stop()
        await harness.stop()
    }

    @Test("the gateway's offline bound passes before the app is back: the reconnect fails with the gateway's didDisconnect, once")
    func releasedByTheGatewayMeanwhile() async throws {
        let harness = try await GatewayHarness.start(offlineBound: .milliseconds(500))
        let phone = try await TapToPayTests.lane(harness, port: harness.port, account: harness.account, device: "phone-1", label: "Till")
        let log = Log(phone.client)
        let connected = try await phone.client.connectTapToPayReader(device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location))
        let readerID = connected.reader.id
        let admin = try await harness.admin()
        phone.client.applicationDidEnterBackground()
        #expect(await eventually { Self.kinds(log) == ["started", "failed", "disconnected"] })
        let error = try #require(TapToPayTests.failure(log.all.first(where: TapToPayTests.isFailed)))
        #expect(error.message.contains("offline bound"), "\(error.message)")
        #expect(try await admin.ownership(of: readerID).owner == nil)
        phone.client.applicationWillEnterForeground()
        // Nothing more is reported for that loss.
        try await phone.client.connectTapToPayReader(device: .simulatedSupported, TapToPayConnectionConfiguration(locationID: phone.location))
        #expect(Self.kinds(log) == ["started", "failed", "disconnected"])
        try await phone.client.closeSession()
        log.task.cancel()
        phone.connection.close()
        await harness.stop()
    }
}
