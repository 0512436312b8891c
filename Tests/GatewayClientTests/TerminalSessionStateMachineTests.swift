import GatewayClient
@testable import GatewayClientCore
import GatewayWire
import Testing

/// The session half of a TerminalClient, without I/O: events in, what the client must do out.
@Suite("Terminal session machine")
struct TerminalSessionStateMachineTests {
    static let credentials = TerminalSessionStateMachine.Credentials(connectionToken: "pst_1", posDeviceID: "pos-a", laneLabel: "Lane A")

    static func session(_ token: String, reader: ReaderGatewayV1.Reader? = nil, resumed: Bool = false) -> TerminalSession {
        TerminalSession(sessionID: "ses_1", resumeToken: token, lease: .seconds(30), resumed: resumed, connectedReader: reader)
    }

    static func reader(_ id: String) -> ReaderGatewayV1.Reader {
        var reader = ReaderGatewayV1.Reader()
        reader.id = id
        return reader
    }

    static func disconnect(_ readerID: String, generation: UInt64 = 1) -> DisconnectInfo {
        DisconnectInfo(readerID: readerID, reason: .replaced, generation: generation, message: "taken over")
    }

    @Test("the first open starts the background work; a later one (a resume by the app) does not; closing hands it back with the token")
    func openAndClose() {
        var machine = TerminalSessionStateMachine()
        let starts = machine.opened(Self.session("st_1"), credentials: Self.credentials)
        #expect(starts)
        let pump = Task<Void, Never> {}
        machine.backgroundStarted([pump])
        let startsAgain = machine.opened(Self.session("st_1"), credentials: Self.credentials)
        #expect(!startsAgain)
        #expect(machine.liveSession?.resumeToken == "st_1")
        #expect(machine.resumeContext?.credentials == Self.credentials)
        let close = machine.closing()
        #expect(close.token == "st_1")
        #expect(close.tasks.count == 1)
        #expect(machine.closed)
        #expect(machine.liveSession == nil)
        #expect(machine.session == nil)
        #expect(machine.closing().token == nil)
        // Opened again after a close: the background work starts anew.
        let startsAnew = machine.opened(Self.session("st_2"), credentials: Self.credentials)
        #expect(startsAnew)
        #expect(!machine.closed)
    }

    @Test("connecting, then connected until the reader is released")
    func connectionStatus() {
        var machine = TerminalSessionStateMachine()
        _ = machine.opened(Self.session("st_1"), credentials: Self.credentials)
        #expect(machine.connectionStatus == .notConnected)
        machine.connectStarted()
        #expect(machine.connectionStatus == .connecting)
        machine.readerConnected(Self.reader("tmr_1"), generation: 4)
        machine.connectEnded()
        #expect(machine.connectionStatus == .connected)
        #expect(machine.connectedGeneration == 4)
        #expect(machine.readerReleased().isEmpty)
        #expect(machine.connectionStatus == .notConnected)
    }

    @Test("a resume without the reader returns the loss to await, with the generation that ended; with it, nothing")
    func resumeWithoutReader() {
        var machine = TerminalSessionStateMachine()
        _ = machine.opened(Self.session("st_1"), credentials: Self.credentials)
        #expect(machine.resumed(Self.session("st_1", resumed: true)) == nil)
        machine.readerConnected(Self.reader("tmr_1"), generation: 7)
        #expect(machine.resumed(Self.session("st_1", reader: Self.reader("tmr_1"), resumed: true)) == nil)
        #expect(machine.connectedReader?.id == "tmr_1")
        let lost = machine.resumed(Self.session("st_1", resumed: true))
        #expect(lost?.reader.id == "tmr_1")
        #expect(lost?.generation == 7)
        // The reader stays until its loss is heard (from the gateway or the client itself).
        #expect(machine.connectedReader?.id == "tmr_1")
    }

    @Test("the client reports an awaited loss after the grace unless the gateway's event came first or the session was closed")
    func lossAfterGrace() {
        var machine = TerminalSessionStateMachine()
        _ = machine.opened(Self.session("st_1"), credentials: Self.credentials)
        machine.lossAwaited(Self.reader("tmr_1"), generation: 3)
        let reported = machine.lossGraceEnded(readerID: "tmr_1")
        #expect(reported?.reader.id == "tmr_1")
        #expect(reported?.generation == 3)
        #expect(machine.lossGraceEnded(readerID: "tmr_1") == nil)

        machine.lossAwaited(Self.reader("tmr_1"), generation: 3)
        machine.disconnectArrived(Self.disconnect("tmr_1", generation: 3), counts: true)
        #expect(machine.lossGraceEnded(readerID: "tmr_1") == nil)

        machine.lossAwaited(Self.reader("tmr_2"), generation: 5)
        _ = machine.closing()
        #expect(machine.lossGraceEnded(readerID: "tmr_2") == nil)
    }

    @Test("the gateway's disconnect clears the session's reader (or an unnamed one), not another reader; one a Tap to Pay reconnect overtook changes nothing")
    func disconnectArrives() {
        var machine = TerminalSessionStateMachine()
        _ = machine.opened(Self.session("st_1"), credentials: Self.credentials)
        machine.readerConnected(Self.reader("tmr_1"), generation: 1)
        machine.disconnectArrived(Self.disconnect("tmr_9"), counts: true)
        #expect(machine.connectedReader?.id == "tmr_1")
        #expect(machine.disconnectDelivered().isEmpty)
        machine.disconnectArrived(Self.disconnect("tmr_1"), counts: false)
        #expect(machine.connectedReader?.id == "tmr_1")
        #expect(machine.awaitsDisconnectEvent)
        _ = machine.disconnectDelivered()
        machine.disconnectArrived(Self.disconnect(""), counts: true)
        #expect(machine.connectedReader == nil)
        // Delivering: a command that failed for the loss still waits for the event.
        #expect(machine.awaitsDisconnectEvent)
        _ = machine.disconnectDelivered()
        #expect(!machine.awaitsDisconnectEvent)
    }

    @Test("a takeover is kept for the next command's error until the session connects a reader again; other losses are no takeover")
    func latestTakeover() {
        var machine = TerminalSessionStateMachine()
        _ = machine.opened(Self.session("st_1"), credentials: Self.credentials)
        machine.readerConnected(Self.reader("tmr_1"), generation: 1)
        machine.disconnectArrived(DisconnectInfo(readerID: "tmr_1", reason: .readerLost, generation: 1, message: "gone"), counts: true)
        #expect(machine.latestTakeover == nil)
        machine.readerConnected(Self.reader("tmr_1"), generation: 2)
        machine.disconnectArrived(Self.disconnect("tmr_1", generation: 2), counts: true)
        #expect(machine.latestTakeover?.generation == 2)
        #expect(machine.latestTakeover?.reason == .replaced)
        // Released meanwhile (the commands it failed still name the takeover).
        _ = machine.readerReleased()
        #expect(machine.latestTakeover?.generation == 2)
        machine.readerConnected(Self.reader("tmr_2"), generation: 1)
        #expect(machine.latestTakeover == nil)
    }

    @Test("a command waits for the loss's event only while there is one to come, and is let go once it is delivered")
    func disconnectWaiters() async {
        var machine = TerminalSessionStateMachine()
        _ = machine.opened(Self.session("st_1"), credentials: Self.credentials)
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            // No reader, no event on its way: resume at once.
            let waits = machine.disconnectWaiterArrived(waiter)
            #expect(!waits)
            waiter.resume()
        }
        machine.readerConnected(Self.reader("tmr_1"), generation: 1)
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let waits = machine.disconnectWaiterArrived(waiter)
            #expect(waits)
            machine.disconnectArrived(Self.disconnect("tmr_1"), counts: true)
            let waiters = machine.disconnectDelivered()
            #expect(waiters.count == 1)
            for waiter in waiters { waiter.resume() }
        }
        #expect(machine.takeDisconnectWaiters().isEmpty)
    }

    @Test("status and update events change the session's reader only")
    func readerEvents() {
        var machine = TerminalSessionStateMachine()
        _ = machine.opened(Self.session("st_1"), credentials: Self.credentials)
        machine.readerConnected(Self.reader("tmr_1"), generation: 1)
        var other = Self.reader("tmr_2")
        other.label = "other"
        machine.readerStatusChanged(other)
        #expect(machine.connectedReader?.label == "")
        var same = Self.reader("tmr_1")
        same.label = "front"
        machine.readerStatusChanged(same)
        #expect(machine.connectedReader?.label == "front")
        var update = ReaderGatewayV1.ReaderSoftwareUpdate()
        update.version = "2.0"
        machine.updateAvailable(readerID: "tmr_2", update)
        #expect(machine.connectedReader?.availableUpdate == nil)
        machine.updateAvailable(readerID: "tmr_1", update)
        #expect(machine.connectedReader?.availableUpdate?.version == "2.0")
    }

    @Test("the gateway ending the session clears it and its reader and hands back its loops to stop; the next session starts its own")
    func sessionEnded() {
        var machine = TerminalSessionStateMachine()
        _ = machine.opened(Self.session("st_1"), credentials: Self.credentials)
        let pump = Task<Void, Never> {}
        machine.backgroundStarted([pump])
        machine.readerConnected(Self.reader("tmr_1"), generation: 1)
        let stopped = machine.sessionEnded()
        #expect(stopped == [pump])
        #expect(machine.session == nil)
        #expect(machine.connectedReader == nil)
        #expect(machine.resumeContext == nil)
        #expect(machine.backgroundTasks.isEmpty)
        // A new session (the app's, or the token provider's) starts the loops again.
        let startsAgain = machine.opened(Self.session("st_2"), credentials: Self.credentials)
        #expect(startsAgain)
    }
}
