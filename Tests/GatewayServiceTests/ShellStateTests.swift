import GatewayDomain
import GatewayRepositories
@testable import GatewayService
import GatewayTransport
import GatewayWire
import Testing

/// The small shells' state values without I/O: each is what its class keeps behind its one
/// lock, fed one event at a time.
@Suite("shell states")
struct ShellStateTests {
    static let start = ContinuousClock.now

    @Test func nodeHealthHoldsSinceTheFirstBeatAfterALoss() {
        var health = NodeHealth.State(healthySince: Self.start)
        func feed(_ event: NodeHealth.State.Event) -> Bool { health.handle(event) }
        #expect(feed(.asked(for: .seconds(10), now: Self.start + .seconds(10))))
        #expect(!feed(.asked(for: .seconds(10), now: Self.start + .seconds(9))))
        #expect(!feed(.lost))
        #expect(!feed(.asked(for: nil, now: Self.start + .seconds(11))))
        #expect(!feed(.asked(for: .zero, now: Self.start + .seconds(11))))
        // Healthy again from the first beat after the loss; a later beat does not restart the count.
        #expect(feed(.held(now: Self.start + .seconds(12))))
        #expect(feed(.held(now: Self.start + .seconds(20))))
        #expect(health.healthySince == Self.start + .seconds(12))
        #expect(feed(.asked(for: .seconds(10), now: Self.start + .seconds(22))))
    }

    @Test func replicaChannelsOpenOneConnectPerAddressAndForgetOnlyTheFailedOne() {
        var channels = ReplicaChannels.State<Int>()
        guard case .refuse(let early) = channels.handle(.wanted("10.0.0.2:7001")) else { Issue.record("a channel before the certificates"); return }
        #expect(early.message.contains("not ready yet"))
        let pair = CertificateKeyPair(certificateChainPath: "client.pem", privateKeyPath: "client.key")
        _ = channels.handle(.configured(InternalCertificates(caPath: "ca.pem", server: pair, client: pair)))
        guard case .refuse(let bad) = channels.handle(.wanted("10.0.0.2:port")) else { Issue.record("a channel to an address whose port is not a number"); return }
        #expect(bad.message.contains("not host:port"))
        guard case .open(let address, let configuration) = channels.handle(.wanted("10.0.0.2:7001")) else { Issue.record("no connect"); return }
        #expect(address == "10.0.0.2:7001" && configuration.host == "10.0.0.2" && configuration.port == 7001)
        #expect(configuration.trustedCAPath == "ca.pem" && configuration.clientCertificate == pair)
        guard case .use(1) = channels.handle(.opening(address, 1)) else { Issue.record("the filed connect is not used"); return }
        guard case .use(1) = channels.handle(.wanted(address)) else { Issue.record("a second connect to the same address"); return }
        // A stale failure (an older connect) leaves the current one; the current one's failure forgets it.
        _ = channels.handle(.failed(address, 0))
        guard case .use(1) = channels.handle(.wanted(address)) else { Issue.record("an older connect's failure dropped the current one"); return }
        _ = channels.handle(.failed(address, 1))
        guard case .open = channels.handle(.wanted(address)) else { Issue.record("a failed connect is still used"); return }
        _ = channels.handle(.opening(address, 2))
        _ = channels.handle(.opening("10.0.0.3:7001", 3))
        guard case .close(let closed) = channels.handle(.closedAll) else { Issue.record("nothing closed"); return }
        #expect(closed.sorted() == [2, 3])
        guard case .close(let again) = channels.handle(.closedAll) else { Issue.record("nothing closed"); return }
        #expect(again.isEmpty)
    }

    @Test func theCatalogCacheServesWithinItsLifetimeAndForgetsOnChange() throws {
        var state = SoftwareUpdateCatalog.State()
        let lifetime = Duration.seconds(5)
        guard case .catalog(nil) = state.handle(.catalogAsked(account: "a", now: Self.start, lifetime: lifetime)) else { Issue.record("a catalog never read"); return }
        var update = ReaderGatewayV1.ReaderSoftwareUpdate()
        update.version = "2.1.0"
        _ = state.handle(.catalogRead(account: "a", [update], at: Self.start))
        guard case .catalog(let cached?) = state.handle(.catalogAsked(account: "a", now: Self.start + .seconds(4), lifetime: lifetime)) else {
            Issue.record("the cached catalog was not used"); return
        }
        #expect(cached.map(\.version) == ["2.1.0"])
        guard case .catalog(nil) = state.handle(.catalogAsked(account: "a", now: Self.start + .seconds(5), lifetime: lifetime)) else {
            Issue.record("a catalog past its lifetime was used"); return
        }
        _ = state.handle(.catalogChanged(account: "a"))
        guard case .catalog(nil) = state.handle(.catalogAsked(account: "a", now: Self.start + .seconds(1), lifetime: lifetime)) else {
            Issue.record("a changed catalog was used"); return
        }
        // A location without a window is cached as none; a change forgets it.
        _ = state.handle(.windowRead(location: "tml_a", nil, at: Self.start))
        guard case .window(.some(nil)) = state.handle(.windowAsked(location: "tml_a", now: Self.start, lifetime: lifetime)) else {
            Issue.record("no window was not cached"); return
        }
        let window = try InstallWindow(startMinute: 60, endMinute: 120, utcOffsetMinutes: 0)
        _ = state.handle(.windowRead(location: "tml_b", window, at: Self.start))
        guard case .window(.some(window?)) = state.handle(.windowAsked(location: "tml_b", now: Self.start, lifetime: lifetime)) else {
            Issue.record("the window was not cached"); return
        }
        _ = state.handle(.windowChanged(location: "tml_b"))
        guard case .window(nil) = state.handle(.windowAsked(location: "tml_b", now: Self.start, lifetime: lifetime)) else {
            Issue.record("a changed window was used"); return
        }
    }

    @Test func aLinksFirstVersionIsRememberedAndAChangeIsNew() {
        var state = SoftwareUpdateCatalog.State()
        let reader = ReaderID("tmr_1")
        guard case .report(true, false) = state.handle(.linkReported(reader, level: 0.5, version: "1.0", nowMs: 0, recorded: false)) else {
            Issue.record("the first level is written, the first version only remembered"); return
        }
        guard case .report(false, false) = state.handle(.linkReported(reader, level: 0.5, version: "1.0", nowMs: 1, recorded: false)) else {
            Issue.record("the same report again is worth nothing"); return
        }
        guard case .report(false, true) = state.handle(.linkReported(reader, level: 0.5, version: "1.1", nowMs: 2, recorded: false)) else {
            Issue.record("a new version was not noticed"); return
        }
        _ = state.handle(.batteryWritten(reader))
        _ = state.handle(.linkEnded(reader))
        guard case .report(true, false) = state.handle(.linkReported(reader, level: 0.5, version: "1.2", nowMs: 3, recorded: false)) else {
            Issue.record("the next link starts afresh"); return
        }
    }

    @Test func aLevelTheAttachRecordedIsNotWrittenAgainAndLaterLevelsAreMeasuredFromIt() {
        var state = SoftwareUpdateCatalog.State()
        let reader = ReaderID("tmr_2")
        guard case .report(false, false) = state.handle(.linkReported(reader, level: 0.5, version: "1.0", nowMs: 0, recorded: true)) else {
            Issue.record("a level the attach wrote was to be written again"); return
        }
        guard case .report(false, false) = state.handle(.linkReported(reader, level: 0.5, version: "1.0", nowMs: 1, recorded: false)) else {
            Issue.record("the heartbeat's unchanged level was written (the attach's counts as the last write)"); return
        }
        guard case .report(false, false) = state.handle(.linkReported(reader, level: 0.49, version: "1.0", nowMs: 2, recorded: false)) else {
            Issue.record("a small change right after the attach's write was written"); return
        }
        guard case .report(true, false) = state.handle(.linkReported(reader, level: 0.3, version: "1.0", nowMs: 3, recorded: false)) else {
            Issue.record("a large change from the attach's level was not written"); return
        }
        // An attach's write beside an earlier link's write still on its way: the attach's level
        // is written again once that one is done (the older level cannot commit last).
        let moving = ReaderID("tmr_3")
        guard case .report(true, false) = state.handle(.linkReported(moving, level: 0.7, version: "", nowMs: 0, recorded: false)) else {
            Issue.record("the first link's level was not written"); return
        }
        _ = state.handle(.linkEnded(moving))
        guard case .report(false, false) = state.handle(.linkReported(moving, level: 0.6, version: "", nowMs: 1, recorded: true)) else {
            Issue.record("a level the attach wrote was to be written again at once"); return
        }
        guard case .writeBattery(0.6?) = state.handle(.batteryWritten(moving)) else {
            Issue.record("the attach's level was not written again after the earlier write"); return
        }
    }

    @Test func aReadersBatteryLevelsAreWrittenOneAtATimeTheLatestNext() {
        var state = SoftwareUpdateCatalog.State()
        let reader = ReaderID("tmr_1")
        let other = ReaderID("tmr_2")
        // The hello's level (none) goes at once.
        guard case .report(true, false) = state.handle(.linkReported(reader, level: nil, version: "", nowMs: 0, recorded: false)) else {
            Issue.record("the first level was not written"); return
        }
        // Levels worth a write while it is on its way wait for it; the latest of them is written next.
        guard case .report(false, false) = state.handle(.linkReported(reader, level: 0.8, version: "", nowMs: 1, recorded: false)) else {
            Issue.record("a second write was sent while the first was on its way"); return
        }
        guard case .report(false, false) = state.handle(.linkReported(reader, level: 0.5, version: "", nowMs: 2, recorded: false)) else {
            Issue.record("a third write was sent while the first was on its way"); return
        }
        // Another reader's write does not wait.
        guard case .report(true, false) = state.handle(.linkReported(other, level: 0.8, version: "", nowMs: 2, recorded: false)) else {
            Issue.record("another reader's level waited"); return
        }
        guard case .writeBattery(0.5?) = state.handle(.batteryWritten(reader)) else {
            Issue.record("the latest level was not written next"); return
        }
        // A new link's first level waits for the old link's write too.
        _ = state.handle(.linkEnded(reader))
        guard case .report(false, false) = state.handle(.linkReported(reader, level: nil, version: "", nowMs: 3, recorded: false)) else {
            Issue.record("a new link's first level was sent beside the old link's write"); return
        }
        guard case .writeBattery(nil) = state.handle(.batteryWritten(reader)) else {
            Issue.record("the new link's level (no battery) was not written next"); return
        }
        guard case .none = state.handle(.batteryWritten(reader)) else {
            Issue.record("a write was asked for with nothing waiting"); return
        }
        // Nothing on its way: the next level worth a write goes at once.
        guard case .report(true, false) = state.handle(.linkReported(reader, level: 0.9, version: "", nowMs: 4, recorded: false)) else {
            Issue.record("a level after the writes finished waited"); return
        }
    }

    static func event(_ sequence: UInt64) -> ReaderGatewayV1.SessionEvent {
        var event = ReaderGatewayV1.SessionEvent()
        event.sequence = sequence
        return event
    }

    @Test func aSessionStreamSendsInOrderAndReleasesAnswersAfterTheirEvents() {
        var order = SessionEventStream.Order(next: 5)
        func feed(_ event: SessionEventStream.Order.Event) -> SessionEventStream.Order.Action { order.handle(event) }
        #expect(feed(.event(Self.event(4))).send.isEmpty)  // before the stream's first: the replaced stream's
        #expect(feed(.event(Self.event(6))).send.isEmpty)  // early: held back
        let waiting = feed(.answerWaiting(through: 6, finished: false, answer: {}))
        #expect(waiting.run.isEmpty)
        let at = feed(.answerWaiting(through: 4, finished: false, answer: {}))
        #expect(at.run.count == 1)  // its events already went out
        let sent = feed(.event(Self.event(5)))
        #expect(sent.send.map(\.sequence) == [5, 6])
        #expect(sent.run.count == 1)
        #expect(order.next == 7)
        #expect(feed(.answerWaiting(through: 9, finished: true, answer: {})).run.count == 1)  // the call is over
        #expect(feed(.answerWaiting(through: 9, finished: false, answer: {})).run.isEmpty)
        #expect(feed(.released).run.count == 1)
        #expect(feed(.answerWaiting(through: 20, finished: false, answer: {})).run.count == 1)  // released: at once
    }

    static let record = ReaderRecord(
        id: "tmr_1", accountID: "acct", serial: "WPE-1", label: "Front", deviceType: .bbposWiseposE, softwareVersion: "2.0.0",
        locationID: nil, lastSeen: nil, online: true
    )

    @Test func aRegistrationIsTakenOnceAndItsAdminAnsweredOnce() {
        var mailbox = RegistrationMailbox.State<String>.waiting
        func feed(_ event: RegistrationMailbox.State<String>.Event) -> RegistrationMailbox.State<String>.Action { mailbox.handle(event) }
        guard case .none = feed(.taken) else { Issue.record("taken before any delivery"); return }
        guard case .wake = feed(.delivered(Self.record, credential: "secret", "admin-1")) else { Issue.record("the link was not woken"); return }
        guard case .refuse("admin-2") = feed(.delivered(Self.record, credential: "other", "admin-2")) else {
            Issue.record("a second delivery was not refused"); return
        }
        guard case .take(let record, "secret") = feed(.taken) else { Issue.record("the delivery was not taken"); return }
        #expect(record == Self.record)
        guard case .none = feed(.taken) else { Issue.record("taken twice"); return }
        guard case .answer("admin-1") = feed(.finished) else { Issue.record("the admin was not answered"); return }
        guard case .none = feed(.finished) else { Issue.record("the admin was answered twice"); return }
        guard case .refuse("admin-3") = feed(.delivered(Self.record, credential: "late", "admin-3")) else {
            Issue.record("a delivery after the end was not refused"); return
        }
    }

    @Test func aLinkThatEndsBeforeTakingItsRegistrationAnswersTheAdmin() {
        var mailbox = RegistrationMailbox.State<String>.waiting
        func feed(_ event: RegistrationMailbox.State<String>.Event) -> RegistrationMailbox.State<String>.Action { mailbox.handle(event) }
        _ = feed(.delivered(Self.record, credential: "secret", "admin-1"))
        guard case .answer("admin-1") = feed(.finished) else { Issue.record("the admin was left waiting"); return }
        guard case .none = feed(.taken) else { Issue.record("taken after the link ended"); return }
    }
}
