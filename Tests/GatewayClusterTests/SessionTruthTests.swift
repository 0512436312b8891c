import GatewayClient
import GatewayWire
import Testing

/// One truth for a session across replicas: a replica's session is a cache of its row, and
/// whatever replica a lane comes back to answers from the row. The lanes here are
/// ``SessionProbe``s, one connection to one named replica each, with no recovery: what they
/// are told is what every client is told.
extension ClusterTests {
    /// The session's owned reader and latest answered discovery as PostgreSQL has them.
    private func rowTruth(_ cluster: ClusterFixture, session: String) async throws -> (reader: String?, discovery: Int64?) {
        let owned = try await cluster.database.ownership().values.first { $0.session == session }?.reader
        let discovery = try await cluster.database.withClient { client in
            try await client.query("SELECT discovery_answered FROM sdk_sessions WHERE id = $1", [.init(session)]).first?
                .decode(Int64?.self, "discovery_answered")
        }
        return (owned, discovery)
    }

    /// Resumes the session on a new connection to `replica` and checks the answer against the row.
    private func resume(
        _ token: String, on replica: Replica, _ cluster: ClusterFixture, expecting reader: String?, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> SessionProbe {
        let probe = try await SessionProbe.connect(to: replica, cluster: cluster)
        let answer = try await probe.resume(token)
        let truth = try await rowTruth(cluster, session: answer.sessionID)
        cluster.expect(answer.resumed, "\(replica.name) did not answer resumed=true", sourceLocation: sourceLocation)
        cluster.expect(truth.reader == reader, "PostgreSQL says the session owns \(truth.reader ?? "nothing"), the test expected \(reader ?? "nothing")", sourceLocation: sourceLocation)
        let told = answer.connectedReader?.id
        cluster.expect(
            told == truth.reader,
            "the resume on \(replica.name) said the session holds \(told ?? "nothing"); PostgreSQL says \(truth.reader ?? "nothing")",
            sourceLocation: sourceLocation
        )
        return probe
    }

    /// Open on r1, then r2 changes the reader and discovers; back on r1 (which kept its copy,
    /// now older than the row) the resume and the next connect answer from the row: the reader
    /// taken on r2, and r2's discovery valid.
    @Test func aReplicaHoldingAnOlderCopyOfTheSessionAnswersFromTheRow() async throws {
        try await ClusterFixture.run { cluster in
            let (r1, r2, r3) = (cluster.replicas[0], cluster.replicas[1], cluster.replicas[2])
            let readers = try await cluster.attachReaders(2, ports: [r3.port], prefix: "STA")
            let (x, y) = (try #require(readers[0].readerID), try #require(readers[1].readerID))

            let first = try await SessionProbe.connect(to: r1, cluster: cluster)
            let opened = try await first.open(token: cluster.token, lane: "Lane 1")
            let token = opened.sessionToken
            let discovery1 = try await first.discover(token, location: cluster.location)
            try await first.connect(token, reader: x, discovery: discovery1.discoveryID)
            first.close()

            let second = try await resume(token, on: r2, cluster, expecting: x)
            let discovery2 = try await second.discover(token, location: cluster.location)
            try await second.disconnect(token)
            let taken = try await second.connect(token, reader: y, discovery: discovery2.discoveryID)
            second.close()

            let back = try await resume(token, on: r1, cluster, expecting: y)
            // The discovery answered on r2 is the session's latest on r1 too.
            let again = try await back.connect(token, reader: y, discovery: discovery2.discoveryID)
            cluster.expect(again.generation == taken.generation, "reconnecting the reader it holds changed its generation: \(taken.generation) -> \(again.generation)")
            do {
                try await back.connect(token, reader: x, discovery: discovery1.discoveryID)
                cluster.expect(false, "a reader from the superseded \(discovery1.discoveryID) connected")
            } catch let error as RPCError {
                // Still holding y: a precise refusal (or, had it let go, STALE_DISCOVERY for the old discovery).
                cluster.expect(error.reason == .alreadyConnectedToReader || error.reason == .staleDiscovery, "expected ALREADY_CONNECTED_TO_READER, got \(error)")
            }
            let next = try await back.discover(token, location: cluster.location)
            cluster.expect(next.discoveryID > discovery2.discoveryID && next.discoveryID.count >= discovery2.discoveryID.count,
                           "the next discovery on r1 is \(next.discoveryID), not after \(discovery2.discoveryID)")
            try await back.display(token)
            back.close()
        }
    }

    /// r1 → r2 → r3, r1 killed and restarted, back to r1, then to r2 again (whose copy is two
    /// adoptions old): every resume says what the row says, and discoveries made anywhere stay
    /// valid everywhere.
    @Test func aSessionMovesAcrossEveryReplicaAndBackAfterOneRestarts() async throws {
        try await ClusterFixture.run { cluster in
            let (r1, r2, r3) = (cluster.replicas[0], cluster.replicas[1], cluster.replicas[2])
            let readers = try await cluster.attachReaders(2, ports: [r3.port], prefix: "MOV")
            let (x, y) = (try #require(readers[0].readerID), try #require(readers[1].readerID))

            let first = try await SessionProbe.connect(to: r1, cluster: cluster)
            let token = try await first.open(token: cluster.token, lane: "Lane 1").sessionToken
            let discovery1 = try await first.discover(token, location: cluster.location)
            try await first.connect(token, reader: x, discovery: discovery1.discoveryID)
            first.close()

            let onR2 = try await resume(token, on: r2, cluster, expecting: x)
            try await onR2.display(token)
            onR2.close()

            let onR3 = try await resume(token, on: r3, cluster, expecting: x)
            let discovery3 = try await onR3.discover(token, location: cluster.location)
            try await onR3.disconnect(token)
            try await onR3.connect(token, reader: y, discovery: discovery3.discoveryID)
            onR3.close()

            await r1.kill9()
            try await r1.start()
            let onR1 = try await resume(token, on: r1, cluster, expecting: y)
            try await onR1.disconnect(token)
            try await onR1.connect(token, reader: x, discovery: discovery3.discoveryID)
            onR1.close()

            let backOnR2 = try await resume(token, on: r2, cluster, expecting: x)
            try await backOnR2.display(token)
            backOnR2.close()
        }
    }

    /// r1 holds the session and is paused past its node lease; the session moves to r2 and
    /// changes reader there. When r1 runs again, the lane comes back to it at once (before or
    /// after r1 finds itself fenced): the answer is the row's.
    @Test func aReplicaPausedPastItsLeaseNeverAnswersFromItsCopy() async throws {
        try await ClusterFixture.run { cluster in
            let (r1, r2, r3) = (cluster.replicas[0], cluster.replicas[1], cluster.replicas[2])
            let readers = try await cluster.attachReaders(2, ports: [r3.port], prefix: "PAU")
            let (x, y) = (try #require(readers[0].readerID), try #require(readers[1].readerID))

            let first = try await SessionProbe.connect(to: r1, cluster: cluster)
            let token = try await first.open(token: cluster.token, lane: "Lane 1").sessionToken
            let discovery1 = try await first.discover(token, location: cluster.location)
            try await first.connect(token, reader: x, discovery: discovery1.discoveryID)
            let oldNode = try #require(r1.nodeID)

            r1.pause()
            let onR2 = try await resume(token, on: r2, cluster, expecting: x)
            let discovery2 = try await onR2.discover(token, location: cluster.location)
            try await onR2.disconnect(token)
            try await onR2.connect(token, reader: y, discovery: discovery2.discoveryID)
            let reaped = await eventuallyIgnoringErrors(timeout: .seconds(30), interval: .milliseconds(100)) {
                !(try await cluster.database.nodes().contains(oldNode))
            }
            try cluster.require(reaped, "r1 (\(oldNode)) was not reaped while paused")
            r1.resume()
            first.close()

            let back = try await resume(token, on: r1, cluster, expecting: y)
            try await back.connect(token, reader: y, discovery: discovery2.discoveryID)
            try await back.display(token)
            onR2.close()
            back.close()
        }
    }

    /// A takeover whose notice has not reached the displaced session's replica (made here with
    /// the ownership trigger off, as when the notice is delayed or lost): the displaced session's
    /// connect to another reader goes on, its loss is told on its event stream, and its command
    /// on the lost reader fails READER_CONNECTED_TO_ANOTHER_SESSION.
    @Test func aDisplacedSessionIsNeverRefusedForTheReaderItLost() async throws {
        try await ClusterFixture.run { cluster in
            let (r1, r2, r3) = (cluster.replicas[0], cluster.replicas[1], cluster.replicas[2])
            let readers = try await cluster.attachReaders(2, ports: [r3.port], prefix: "DIS")
            let (x, y) = (try #require(readers[0].readerID), try #require(readers[1].readerID))

            let displaced = try await SessionProbe.connect(to: r1, cluster: cluster)
            let opened = try await displaced.open(token: cluster.token, lane: "Lane 1")
            let token = opened.sessionToken
            displaced.subscribe(token)
            let discovery = try await displaced.discover(token, location: cluster.location)
            try await displaced.connect(token, reader: x, discovery: discovery.discoveryID)

            let taker = try await SessionProbe.connect(to: r2, cluster: cluster)
            let takerSession = try await taker.open(token: cluster.token, lane: "Lane 2").sessionID
            try await cluster.database.withClient { client in
                try await client.execute("BEGIN")
                try await client.execute("SET LOCAL session_replication_role = replica")
                _ = try await client.query(
                    "SELECT outcome FROM ownership_claim($1::text, $2::text, 'Lane 2', false, 1, 1)", [.init(x), .init(takerSession)]
                )
                try await client.execute("COMMIT")
            }

            let connected = try await displaced.connect(token, reader: y, discovery: discovery.discoveryID)
            cluster.expect(connected.reader?.id == y, "connected \(connected.reader?.id ?? "nothing") instead of \(y)")
            let told = await eventuallyIgnoringErrors(timeout: .seconds(10)) { !displaced.disconnects.isEmpty }
            cluster.expect(told, "the displaced session was never told it lost \(x): \(displaced.events)")
            let lost = displaced.disconnects.first
            cluster.expect(lost?.readerID == x && lost?.reason == .replaced && lost?.takenByLaneLabel == "Lane 2", "the loss told: \(String(describing: lost))")
            let row = try await cluster.database.ownership()
            cluster.expect(row[y]?.session == opened.sessionID && row[x]?.session == takerSession, "owners in PostgreSQL: \(row)")
            taker.close()
            displaced.close()
        }
    }

    /// r1 holds the session (its events subscribed on the lane's connection) and is paused
    /// past its node lease; Lane 2 takes the reader on r2. When r1 runs again it finds itself
    /// fenced and ends the session's stream asking for a resume: the lane's next command on
    /// that connection fails the same way (never READER_CONNECTED_TO_ANOTHER_SESSION, whose
    /// event that connection can no longer carry), and after a resume there the answer is the
    /// row's: no reader.
    @Test func aFencedReplicaAsksForAResumeBeforeAnsweringOnTheConnectionWhoseStreamItEnded() async throws {
        try await ClusterFixture.run { cluster in
            let (r1, r2, r3) = (cluster.replicas[0], cluster.replicas[1], cluster.replicas[2])
            let readers = try await cluster.attachReaders(1, ports: [r3.port], prefix: "FEN")
            let x = try #require(readers[0].readerID)

            let lane = try await SessionProbe.connect(to: r1, cluster: cluster)
            let token = try await lane.open(token: cluster.token, lane: "Lane 1").sessionToken
            lane.subscribe(token)
            let discovery = try await lane.discover(token, location: cluster.location)
            try await lane.connect(token, reader: x, discovery: discovery.discoveryID)
            let oldNode = try #require(r1.nodeID)

            r1.pause()
            let reaped = await eventuallyIgnoringErrors(timeout: .seconds(30), interval: .milliseconds(100)) {
                !(try await cluster.database.nodes().contains(oldNode))
            }
            try cluster.require(reaped, "r1 (\(oldNode)) was not reaped while paused")
            let taker = try await SessionProbe.connect(to: r2, cluster: cluster)
            let takerToken = try await taker.open(token: cluster.token, lane: "Lane 2").sessionToken
            let takerDiscovery = try await taker.discover(takerToken, location: cluster.location)
            let taken = try await taker.connect(takerToken, reader: x, discovery: takerDiscovery.discoveryID)
            cluster.expect(taken.replacedOtherSession, "Lane 2 did not replace Lane 1")
            r1.resume()

            let ended = await eventuallyIgnoringErrors(timeout: .seconds(30)) { lane.streamEnding != nil }
            try cluster.require(ended, "r1 woke and never ended the session's stream (events: \(lane.events))")
            let ending = try #require(lane.streamEnding as? RPCError)
            cluster.expect([.readerLinkMoved, .sessionMoved].contains(ending.reason), "the stream ended \(ending), not asking for a resume")
            do {
                try await lane.display(token)
                cluster.expect(false, "a command on the connection whose stream r1 ended was accepted")
            } catch let error as RPCError {
                cluster.expect(error.reason == ending.reason, "the command after the stream's end (\(ending.reason)) failed \(error)")
            }

            let resumed = try await lane.resume(token)
            cluster.expect(resumed.resumed, "the resume on the same connection was refused")
            cluster.expect(resumed.connectedReader == nil, "the resume said the session holds \(resumed.connectedReader?.id ?? ""); Lane 2 took it")
            do {
                try await lane.display(token)
                cluster.expect(false, "a command of a session holding no reader was accepted")
            } catch let error as RPCError {
                cluster.expect(error.reason == .notConnectedToReader, "the command after the resume failed \(error)")
            }
            taker.close()
            lane.close()
        }
    }

    /// A resume on r3 races a takeover of the session's reader from r2: whichever wins, the
    /// answer agrees with the row at its moment, a loss it did not report is told on the event
    /// stream, and the session is never refused for holding the reader it lost.
    @Test func aResumeRacingATakeoverAgreesWithTheRow() async throws {
        try await ClusterFixture.run { cluster in
            let (r1, r2, r3) = (cluster.replicas[0], cluster.replicas[1], cluster.replicas[2])
            let readers = try await cluster.attachReaders(2, ports: [r1.port], prefix: "RAC")
            let (x, y) = (try #require(readers[0].readerID), try #require(readers[1].readerID))

            let first = try await SessionProbe.connect(to: r1, cluster: cluster)
            let token = try await first.open(token: cluster.token, lane: "Lane 1").sessionToken
            let discovery = try await first.discover(token, location: cluster.location)
            try await first.connect(token, reader: x, discovery: discovery.discoveryID)
            first.close()

            let taker = try await SessionProbe.connect(to: r2, cluster: cluster)
            let takerToken = try await taker.open(token: cluster.token, lane: "Lane 2").sessionToken
            let takerDiscovery = try await taker.discover(takerToken, location: cluster.location)
            let back = try await SessionProbe.connect(to: r3, cluster: cluster)
            async let takeover = taker.connect(takerToken, reader: x, discovery: takerDiscovery.discoveryID)
            async let resumed = back.resume(token)
            let (taken, answer) = try await (takeover, resumed)
            cluster.expect(taken.replacedOtherSession, "the takeover did not replace the first lane")

            back.subscribe(token)
            if let named = answer.connectedReader?.id {
                cluster.expect(named == x, "the resume named \(named)")
                let told = await eventuallyIgnoringErrors(timeout: .seconds(10)) { back.disconnects.contains { $0.readerID == x } }
                cluster.expect(told, "the resume said the session holds \(x), and its loss to Lane 2 was never told: \(back.events)")
            }
            let connected = try await back.connect(token, reader: y, discovery: discovery.discoveryID)
            cluster.expect(connected.reader?.id == y, "connected \(connected.reader?.id ?? "nothing") instead of \(y)")
            let stale = back.disconnects.filter { $0.readerID == y }
            cluster.expect(stale.isEmpty, "losses of the reader it holds were delivered: \(stale)")
            taker.close()
            back.close()
        }
    }
}
