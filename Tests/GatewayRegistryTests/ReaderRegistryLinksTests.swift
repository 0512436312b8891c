import GatewayDomain
@testable import GatewayRegistry
import GatewayWire
import Testing

/// Reader links: attach, a second attach, heartbeats and the offline bound, command
/// answers and deadlines.
@Suite("Reader registry: links")
struct ReaderRegistryLinksTests {
    let a = RegistryFixture.session("A")
    let bound = Duration.seconds(8)

    @Test func aSecondAttachReplacesTheLinkKeepsItsEpochAndFailsItsCommands() {
        var fixture = RegistryFixture()
        let first = fixture.attach(epoch: 3)
        fixture.open("A")
        fixture.claim("A", generation: 1)
        guard case .local(let key, _) = fixture.relay("A") else { Issue.record("not relayed"); return }
        _ = fixture.registry.heartbeat(fixture.reader, link: first, activity: .collecting, batteryLevel: 0.5, ipAddress: "", now: fixture.start, nowUnixMs: 1)
        let second = fixture.registry.linkStarted()

        let reattached = fixture.registry.linkReattached(
            fixture.reader, link: second, described: ReaderGatewayV1.Reader(), status: LinkStatus(ipAddress: "10.0.0.10", softwareVersion: "2.2"),
            now: fixture.start + .seconds(1)
        )

        #expect(reattached == ReaderRegistry.Reattached(replaced: first, epoch: LinkEpoch(3), failed: [key]))
        let link = fixture.registry.links[fixture.reader]
        #expect(link?.id == second)
        #expect(link?.pending.isEmpty == true)
        #expect(link?.status == LinkStatus(activity: .collecting, ipAddress: "10.0.0.10", batteryLevel: 0.5, softwareVersion: "2.2"))
        // The owner keeps the reader; the old link's end records nothing.
        #expect(fixture.registry.owner(of: fixture.reader)?.id == a)
        #expect(fixture.registry.linkEnded(fixture.reader, link: first) == nil)
        // Command ids go on counting across the links, so no answer is mistaken for another.
        guard case .local(let next, _) = fixture.relay("A") else { Issue.record("not relayed"); return }
        #expect(next == CommandKey(link: second, command: key.command + 1))
    }

    @Test func aRebootAskedOfAReplacedLinkIsOverItsSuccessorsLossIsNoReboot() {
        var fixture = RegistryFixture()
        let first = fixture.attach()
        fixture.open("A")
        fixture.claim("A", generation: 1)
        guard case .local = fixture.relay("A", reboot: true) else { Issue.record("not relayed"); return }
        #expect(fixture.registry.links[fixture.reader]?.rebootRequested == true)
        // The rebooted reader's new link arrives before the old one's end is noticed.
        let second = fixture.registry.linkStarted()
        _ = fixture.registry.linkReattached(fixture.reader, link: second, described: .init(), status: .init(), now: fixture.start + .seconds(1))
        #expect(fixture.registry.linkEnded(fixture.reader, link: first) == nil)
        #expect(fixture.registry.links[fixture.reader]?.rebootRequested == false)
        // Later the new link is lost: a loss, not the reboot of the link before.
        let ended = fixture.registry.linkEnded(fixture.reader, link: second)
        #expect(ended?.rebootRequested == false)
        #expect(fixture.registry.rebootingReaders.isEmpty)
        // A reboot asked of the new link is its own.
        let third = fixture.attach()
        guard case .local = fixture.relay("A", reboot: true) else { Issue.record("not relayed"); return }
        #expect(fixture.registry.linkEnded(fixture.reader, link: third)?.rebootRequested == true)
    }

    @Test func aFirstAttachHasNothingToReplace() {
        var fixture = RegistryFixture()
        let link = fixture.registry.linkStarted()
        #expect(fixture.registry.linkReattached(fixture.reader, link: link, described: .init(), status: .init(), now: fixture.start) == nil)
    }

    @Test func anAttachRecordedWhileAnotherLinkCameUpReplacesThatLink() {
        var fixture = RegistryFixture()
        let first = fixture.attach()
        fixture.open("A")
        fixture.claim("A", generation: 1)
        guard case .local(let key, _) = fixture.relay("A") else { Issue.record("not relayed"); return }
        let second = fixture.registry.linkStarted()
        let actions = fixture.registry.linkAttached(fixture.reader, link: second, epoch: LinkEpoch(2), described: .init(), status: .init(), now: fixture.start)
        #expect(actions == [.failCommand(key, .readerReattached), .closeLink(first, .replaced)])
        #expect(fixture.registry.links[fixture.reader]?.epoch == LinkEpoch(2))
    }

    @Test func anAttachRecordedBeforeTheLiveLinksDoesNotReplaceIt() {
        var fixture = RegistryFixture()
        // Two links of the reader waited for the store; the later one's answer (epoch 3) came first.
        let later = fixture.attach(epoch: 3)
        fixture.open("A")
        fixture.claim("A", generation: 1)
        guard case .local(let key, _) = fixture.relay("A") else { Issue.record("not relayed"); return }
        let earlier = fixture.registry.linkStarted()
        let actions = fixture.registry.linkAttached(fixture.reader, link: earlier, epoch: LinkEpoch(2), described: .init(), status: .init(), now: fixture.start)
        #expect(actions == [.closeLink(earlier, .replaced)])
        #expect(fixture.registry.links[fixture.reader]?.id == later && fixture.registry.links[fixture.reader]?.epoch == LinkEpoch(3))
        // The live link's command is still its own, and the stale link's end changes nothing.
        #expect(fixture.registry.commandAnswered(fixture.reader, link: later, commandID: key.command, now: fixture.start) == key)
        #expect(fixture.registry.linkEnded(fixture.reader, link: earlier) == nil)
        #expect(fixture.registry.links[fixture.reader]?.id == later)
    }

    @Test func aLinkSilentPastTheBoundIsClosedAndAHeartbeatRestartsTheBound() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        #expect(fixture.registry.tick(now: fixture.start + bound, heartbeatBound: bound).silentLinks.isEmpty)
        #expect(fixture.registry.tick(now: fixture.start + bound + .milliseconds(1), heartbeatBound: bound).silentLinks == [link])
        _ = fixture.registry.heartbeat(fixture.reader, link: link, activity: .idle, batteryLevel: nil, ipAddress: "", now: fixture.start + .seconds(5), nowUnixMs: 1)
        #expect(fixture.registry.tick(now: fixture.start + bound + .milliseconds(1), heartbeatBound: bound).silentLinks.isEmpty)
        #expect(fixture.registry.tick(now: fixture.start + .seconds(5) + bound + .milliseconds(1), heartbeatBound: bound).silentLinks == [link])
        // A pause of this process is forgiven: every bound restarts.
        fixture.registry.silenceForgiven(now: fixture.start + .seconds(60))
        #expect(fixture.registry.tick(now: fixture.start + .seconds(61), heartbeatBound: bound).silentLinks.isEmpty)
    }

    @Test func anUnchangedHeartbeatRestartsTheBoundAndOneOnAReplacedLinkDoesNot() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        _ = fixture.subscribe("A")
        fixture.claim("A", generation: 1)
        // The status the link came up with (idle, no battery, its address): nobody is told,
        // and the link's silence starts again.
        let same = fixture.registry.heartbeat(
            fixture.reader, link: link, activity: .idle, batteryLevel: nil, ipAddress: "10.0.0.9", now: fixture.start + .seconds(5), nowUnixMs: 1
        )
        #expect(same == .none)
        #expect(fixture.registry.tick(now: fixture.start + bound + .milliseconds(1), heartbeatBound: bound).silentLinks.isEmpty)
        // A heartbeat that arrives on a link the reader no longer uses keeps nothing alive.
        #expect(fixture.registry.heartbeat(
            fixture.reader, link: LinkID(99), activity: .idle, batteryLevel: nil, ipAddress: "10.0.0.9", now: fixture.start + .seconds(12), nowUnixMs: 2
        ) == .none)
        #expect(fixture.registry.tick(now: fixture.start + .seconds(5) + bound + .milliseconds(1), heartbeatBound: bound).silentLinks == [link])
    }

    @Test func aHeartbeatWithoutActivityOrAddressKeepsThoseAndRecordsItsBattery() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        _ = fixture.registry.heartbeat(fixture.reader, link: link, activity: .collecting, batteryLevel: 0.5, ipAddress: "", now: fixture.start, nowUnixMs: 1)
        let status = fixture.registry.links[fixture.reader]?.status
        #expect(status?.activity == .collecting)
        #expect(status?.ipAddress == "10.0.0.9")
        #expect(status?.batteryLevel == 0.5)
        #expect(status?.softwareVersion == "2.1")
        _ = fixture.registry.heartbeat(fixture.reader, link: link, activity: .unspecified, batteryLevel: nil, ipAddress: "10.0.0.12", now: fixture.start, nowUnixMs: 2)
        let next = fixture.registry.links[fixture.reader]?.status
        #expect(next?.activity == .collecting)
        #expect(next?.ipAddress == "10.0.0.12")
        #expect(next?.batteryLevel == nil)
        // The rest of the link is as it was.
        #expect(fixture.registry.links[fixture.reader]?.described.label == "Front desk")
        #expect(fixture.registry.links[fixture.reader]?.id == link)
    }

    @Test func anAnswerOnTheCurrentLinkRestartsItsBound() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        fixture.claim("A", generation: 1)
        guard case .local(let key, _) = fixture.relay("A") else { Issue.record("not relayed"); return }
        #expect(fixture.registry.commandAnswered(fixture.reader, link: link, commandID: key.command, now: fixture.start + .seconds(6)) == key)
        #expect(fixture.registry.commandAnswered(fixture.reader, link: link, commandID: key.command, now: fixture.start + .seconds(6)) == nil)
        #expect(fixture.registry.tick(now: fixture.start + .seconds(6) + bound, heartbeatBound: bound).silentLinks.isEmpty)
    }

    @Test func anAnswerOnAReplacedLinkDoesNotEndTheNewLinksCommandOfTheSameID() {
        var fixture = RegistryFixture()
        let first = fixture.attach()
        fixture.open("A")
        fixture.claim("A", generation: 1)
        guard case .local(let old, _) = fixture.relay("A") else { Issue.record("not relayed on the first link"); return }
        // The reader attaches again here: the new link replaces the first and numbers its
        // commands from 1 again.
        let second = fixture.registry.linkStarted()
        let replaced = fixture.registry.linkAttached(
            fixture.reader, link: second, epoch: LinkEpoch(2), described: ReaderGatewayV1.Reader(),
            status: LinkStatus(ipAddress: "10.0.0.9", softwareVersion: "2.1"), now: fixture.start
        )
        #expect(replaced.contains(.failCommand(old, .readerReattached)))
        guard case .local(let new, _) = fixture.relay("A") else { Issue.record("not relayed on the second link"); return }
        #expect(new.link == second && new.command == old.command)
        // A late answer on the first link is its own command's (already failed), not the new one's.
        #expect(fixture.registry.commandAnswered(fixture.reader, link: first, commandID: old.command, now: fixture.start) == nil)
        #expect(fixture.registry.commandAnswered(fixture.reader, link: second, commandID: new.command, now: fixture.start) == new)
    }

    @Test func aCommandPastItsDeadlineIsFailedOnceByTheSweep() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        fixture.claim("A", generation: 1)
        guard case .local(let key, _) = fixture.relay("A") else { Issue.record("not relayed"); return }
        #expect(fixture.registry.tick(now: fixture.start + .seconds(9), heartbeatBound: .seconds(60)).expiredCommands.isEmpty)
        #expect(fixture.registry.tick(now: fixture.start + .seconds(10), heartbeatBound: .seconds(60)).expiredCommands == [key])
        #expect(fixture.registry.tick(now: fixture.start + .seconds(11), heartbeatBound: .seconds(60)).expiredCommands.isEmpty)
        #expect(fixture.registry.commandAnswered(fixture.reader, link: link, commandID: key.command, now: fixture.start) == nil)
    }

    @Test func aLinkThatEndsFailsItsCommandsAndIsForgotten() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        fixture.claim("A", generation: 1)
        guard case .local(let key, _) = fixture.relay("A") else { Issue.record("not relayed"); return }
        #expect(fixture.registry.linkEnded(fixture.reader, link: link) == ReaderRegistry.EndedLink(epoch: LinkEpoch(1), rebootRequested: false, failed: [key]))
        #expect(fixture.registry.rebootingReaders.isEmpty)
        #expect(fixture.registry.links.isEmpty)
        #expect(fixture.registry.linkEnded(fixture.reader, link: link) == nil)
    }

    @Test func aChangedStatusGoesToTheOwnerAndARepeatedOneToNobody() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        fixture.open("A")
        let stream = fixture.subscribe("A").stream
        fixture.claim("A", generation: 1)
        let changed = fixture.registry.heartbeat(fixture.reader, link: link, activity: .collecting, batteryLevel: 0.8, ipAddress: "10.0.0.9", now: fixture.start, nowUnixMs: 7)
        guard case .tellOwner(.sendEvent(let event, let to)?) = changed, case .readerStatusChanged(let status)? = event.message.event else {
            Issue.record("the owner is not told: \(changed)")
            return
        }
        #expect(to == stream)
        #expect(status.reader?.networkStatus == .online)
        #expect(status.reader?.activity == .collecting)
        #expect(status.reader?.batteryLevel == 0.8)
        #expect(status.reader?.label == "Front desk")
        #expect(status.reader?.lastSeenUnixMs == 7)
        #expect(fixture.registry.heartbeat(fixture.reader, link: link, activity: .collecting, batteryLevel: 0.8, ipAddress: "10.0.0.9", now: fixture.start, nowUnixMs: 8) == .none)
        // A heartbeat on a link that is no longer the reader's changes nothing.
        #expect(fixture.registry.heartbeat(fixture.reader, link: LinkID(99), activity: .idle, batteryLevel: nil, ipAddress: "", now: fixture.start, nowUnixMs: 9) == .none)
        // Without an address, or without an activity, the rest unchanged: the link keeps what it
        // has, so the owner is not told again on every such heartbeat.
        #expect(fixture.registry.heartbeat(fixture.reader, link: link, activity: .collecting, batteryLevel: 0.8, ipAddress: "", now: fixture.start, nowUnixMs: 10) == .none)
        #expect(fixture.registry.heartbeat(fixture.reader, link: link, activity: .unspecified, batteryLevel: 0.8, ipAddress: "10.0.0.9", now: fixture.start, nowUnixMs: 11) == .none)
        #expect(fixture.registry.heartbeat(fixture.reader, link: link, activity: .unspecified, batteryLevel: 0.8, ipAddress: "", now: fixture.start, nowUnixMs: 12) == .none)
    }

    @Test func aStatusIsAnnouncedWhenTheOwnerIsOnAnotherReplica() {
        var fixture = RegistryFixture()
        let link = fixture.attach()
        // Never owned: nobody to tell.
        #expect(fixture.registry.heartbeat(fixture.reader, link: link, activity: .updating, batteryLevel: nil, ipAddress: "", now: fixture.start, nowUnixMs: 1) == .none)
        // Owned elsewhere at generation 2 (the link has seen it).
        _ = fixture.registry.ownershipDecided(fixture.reader, generation: OwnershipGeneration(2), actions: [], reason: .replaced, nowUnixMs: 1)
        #expect(
            fixture.registry.heartbeat(fixture.reader, link: link, activity: .idle, batteryLevel: 0.3, ipAddress: "", now: fixture.start, nowUnixMs: 2)
                == .announce(LinkStatus(activity: .idle, ipAddress: "10.0.0.9", batteryLevel: 0.3, softwareVersion: "2.1"))
        )
        #expect(fixture.registry.remoteStatusRecipient(fixture.reader) == nil) // the link here tells its own
    }

    @Test func updateProgressAndAnnouncedStatusReachTheOwnerHere() {
        var fixture = RegistryFixture()
        fixture.attach()
        fixture.open("A")
        let stream = fixture.subscribe("A").stream
        fixture.claim("A", generation: 1)
        guard case .sendEvent(let event, stream)? = fixture.registry.updateProgress(fixture.reader, progress: 0.25, nowUnixMs: 3),
              case .updateProgress(let progress)? = event.message.event
        else { Issue.record("no progress event"); return }
        #expect(progress.progress == 0.25)
        #expect(progress.readerID == fixture.reader.rawValue)
        // The reader's link elsewhere: its home announces its status.
        let other = ReaderID("tmr_remote")
        #expect(fixture.registry.remoteStatusReceived(.init(), reader: other, session: a, nowUnixMs: 4) == nil)
        #expect(fixture.registry.remoteStatusRecipient(other) == nil)
    }
}
