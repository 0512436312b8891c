import GatewayDomain
@testable import GatewayRegistry
import Testing

/// A stream this replica ended asking the lane to resume (fenced off, or the session moved)
/// leaves its connection unable to hear the session's events: the session's calls there
/// fail the same way until it resumes on that connection, instead of being answered (a
/// refusal for a loss whose event could no longer reach that connection).
@Suite("Reader registry: calls after a stream ended asking for a resume")
struct ReaderRegistryResumeFirstTests {
    let a = RegistryFixture.session("A")
    let tokenA = RegistryFixture.token("A")

    @Test func afterTheReplicaIsFencedTheSessionsCallsOnItsStreamsConnectionMustResumeFirst() {
        var fixture = RegistryFixture()
        fixture.attach()
        fixture.open("A", connection: 1)
        fixture.claim("A", generation: 1)
        let stream = fixture.subscribe("A", connection: 1).stream
        let fenced = fixture.registry.fenced()
        #expect(fenced.actions.contains(.endStream(stream, .replicaFenced)))
        #expect(fixture.registry.resumeRequired(tokenA, on: 1) == .replicaFenced)
        #expect(fixture.relay("A", connection: 1) == .refused(.resumeFirst(.replicaFenced)))
        // Another connection never carried that stream: it adopts the session from its row as before.
        #expect(fixture.registry.resumeRequired(tokenA, on: 2) == nil)
        #expect(fixture.relay("A", connection: 2) == .unknownSession)
    }

    @Test func aResumeOnTheConnectionLiftsIt() {
        var fixture = RegistryFixture()
        fixture.open("A", connection: 1)
        _ = fixture.subscribe("A", connection: 1)
        _ = fixture.registry.fenced()
        fixture.registry.sessionResuming(tokenA, on: 1)
        #expect(fixture.registry.resumeRequired(tokenA, on: 1) == nil)
        fixture.adopt("A", epoch: 2, connection: 1)
        #expect(fixture.relay("A", connection: 1) == .refused(.notConnected))
    }

    @Test func theConnectionClosingForgetsIt() {
        var fixture = RegistryFixture()
        fixture.open("A", connection: 1)
        _ = fixture.subscribe("A", connection: 1)
        _ = fixture.registry.fenced()
        fixture.registry.connectionClosed(1, now: fixture.start)
        #expect(fixture.registry.resumeRequired(tokenA, on: 1) == nil)
    }

    @Test func aSessionMovedElsewhereMustResumeOnTheConnectionItsStreamEndedOn() {
        var fixture = RegistryFixture()
        fixture.open("A", connection: 1)
        let stream = fixture.subscribe("A", connection: 1).stream
        let moved = fixture.registry.sessionMoved(a, epoch: 2)
        #expect(moved?.actions == [.endStream(stream, .sessionMoved)])
        #expect(fixture.registry.resumeRequired(tokenA, on: 1) == .sessionMoved)
        #expect(fixture.relay("A", connection: 1) == .refused(.resumeFirst(.sessionMoved)))
    }

    @Test func anAdoptionOnAnotherConnectionMarksOnlyTheConnectionTheLaneLeft() {
        var fixture = RegistryFixture()
        fixture.open("A", connection: 1)
        _ = fixture.subscribe("A", connection: 1)
        fixture.adopt("A", epoch: 2, connection: 2)
        #expect(fixture.registry.resumeRequired(tokenA, on: 1) == .sessionMoved)
        #expect(fixture.registry.resumeRequired(tokenA, on: 2) == nil)
        #expect(fixture.relay("A", connection: 2) == .refused(.notConnected))
    }

    @Test func aSessionThatEndedLeavesNothingToResume() {
        var fixture = RegistryFixture()
        fixture.open("A", connection: 1)
        let stream = fixture.subscribe("A", connection: 1).stream
        #expect(fixture.registry.sessionEnded(tokenA)?.actions == [.endStream(stream, .sessionEnded)])
        #expect(fixture.registry.resumeRequired(tokenA, on: 1) == nil)
        #expect(fixture.relay("A", connection: 1) == .unknownSession)
    }
}
