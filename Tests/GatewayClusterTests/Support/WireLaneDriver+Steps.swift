import GatewayClient
import GatewayWire

/// A raw lane's steps (discover, connect, commands) and how each call is judged.
extension WireLaneDriver {
    // MARK: steps

    mutating func step() async {
        let roll = random.next() % 100
        guard let discovery, roll >= 6 else { return await discover() }
        let candidates = discovery.readers.filter(lane.readers.contains)
        guard let held else {
            guard !candidates.isEmpty else { return await discover() }
            return await connect(candidates[Int(random.next() % UInt64(candidates.count))], failIfInUse: roll % 3 == 0)
        }
        switch roll {
        case ..<66: await command(.display, held.reader)
        case ..<74:
            // Another reader while holding one: ALREADY_CONNECTED_TO_READER, naming the held one.
            let others = candidates.filter { $0 != held.reader }
            if others.isEmpty { return await command(.display, held.reader) }
            await connect(others[Int(random.next() % UInt64(others.count))], failIfInUse: roll % 2 == 0)
        case ..<82: await command(.disconnect, held.reader)
        case ..<88: await command(.collect, held.reader)
        case ..<92:
            lane.count { $0.cuts += 1 }
            drop()
        default: await command(.display, held.reader)
        }
    }

    mutating func discover() async {
        guard let session else { return }
        var request = ReaderGatewayV1.DiscoverReadersRequest()
        request.sessionToken = session.token
        request.locationID = lane.cluster.location
        guard case let (answer, window)? = await checked(ReaderGatewayV1.Sdk.discoverReaders, request, session: session.id) else { return }
        if Self.isConnectionTrouble(answer) {
            // It may have answered and been recorded: the next connect needs a new one.
            discovery = nil
            return drop()
        }
        if answer.isOK, let response = answer.message.flatMap({ try? ReaderGatewayV1.DiscoverReadersResponse(serializedBytes: $0) }),
           response.discoveryID.hasPrefix("disc_"), let id = Int64(response.discoveryID.dropFirst(5)) {
            if let window {
                lane.ledger.record(.discoveryRecorded, ContractRules.discoveryRecorded(id, window), lane: lane.label, session: session.id, reader: nil, window: window)
            }
            discovery = (id, response.readers.map(\.id))
        } else if answer.reason != .rateLimited {
            // A refused discovery changes nothing; anything else may have superseded ours.
            if !answer.isOK { discovery = nil }
            lane.ledger.unchecked("DiscoverReaders \(Self.name(answer))", message: answer.status.message)
        }
    }

    mutating func connect(_ reader: String, failIfInUse: Bool) async {
        guard let session, let discovery else { return }
        var request = ReaderGatewayV1.ConnectReaderRequest()
        request.sessionToken = session.token
        request.readerID = reader
        request.discoveryID = "disc_\(discovery.id)"
        request.failIfInUse = failIfInUse
        guard case let (answer, window)? = await checked(ReaderGatewayV1.Sdk.connectReader, request, session: session.id) else { return }
        if Self.isConnectionTrouble(answer) { return drop() }
        let label = lane.label
        switch answer.reason {
        case _ where answer.isOK:
            guard let response = answer.message.flatMap({ try? ReaderGatewayV1.ConnectReaderResponse(serializedBytes: $0) }) else { return }
            let generation = Int64(response.generation)
            if let window {
                lane.ledger.record(.connectGranted, ContractRules.connectGranted(reader, generation: generation, window), lane: label, session: session.id, reader: reader, window: window)
            }
            held = Held(reader: reader, generation: generation)
        case .alreadyConnectedToReader:
            let named = Self.namedReader(answer.status.message)
            if let window {
                lane.ledger.record(
                    .alreadyConnected, ContractRules.alreadyConnected(requested: reader, named: named, window).map { "\($0) (answer: \(answer.status.message); \(replicas(window)))" },
                    lane: label, session: session.id, reader: named, window: window
                )
            }
            if let named { held = Held(reader: named, generation: window?.generationsOwned(named).last) }
        case .staleDiscovery:
            if let window {
                lane.ledger.record(
                    .staleDiscovery, ContractRules.staleDiscovery(discovery.id, reader: reader, window).map { "\($0) (answer: \(answer.status.message); \(replicas(window)))" },
                    lane: label, session: session.id, reader: reader, window: window
                )
            }
            self.discovery = nil
        case .invalidRequest where answer.status.message.contains("not one of this session's discoveries"):
            if let window {
                lane.ledger.record(
                    .unknownDiscovery, "\(ContractRules.unknownDiscovery(discovery.id, window) ?? "") (answer: \(answer.status.message); \(replicas(window)))",
                    lane: label, session: session.id, reader: reader, window: window
                )
            }
            self.discovery = nil
        default:
            lane.ledger.unchecked("ConnectReader \(Self.name(answer))", message: answer.status.message)
        }
    }

    mutating func command(_ command: Command, _ reader: String) async {
        guard let session else { return }
        let timeout = Duration.seconds(10)
        let outcome: (WireConnection.Answer, ContractWindow?)?
        switch command {
        case .display:
            var request = ReaderGatewayV1.SetReaderDisplayRequest()
            request.sessionToken = session.token
            var cart = ReaderGatewayV1.Cart()
            cart.currency = "usd"
            cart.total = 1_000
            request.cart = cart
            outcome = await checked(ReaderGatewayV1.Sdk.setReaderDisplay, request, session: session.id, timeout: timeout)
        case .collect:
            var request = ReaderGatewayV1.CollectPaymentMethodRequest()
            request.sessionToken = session.token
            var params = ReaderGatewayV1.CollectPaymentMethodParams()
            params.paymentIntentID = "pi_wire_\(lane.label.filter { $0.isLetter || $0.isNumber })"
            params.amount = 1_000
            params.currency = "usd"
            request.params = params
            outcome = await checked(ReaderGatewayV1.Sdk.collectPaymentMethod, request, session: session.id, timeout: timeout)
        case .disconnect:
            var request = ReaderGatewayV1.DisconnectReaderRequest()
            request.sessionToken = session.token
            outcome = await checked(ReaderGatewayV1.Sdk.disconnectReader, request, session: session.id, timeout: timeout)
        }
        guard case let (answer, window)? = outcome else { return }
        if Self.isConnectionTrouble(answer) { return drop() }
        let label = lane.label
        switch answer.reason {
        case _ where answer.isOK:
            if command == .disconnect {
                held = nil
            } else if let window {
                lane.ledger.record(.commandAccepted, ContractRules.commandAccepted(reader, window).map { "\(command.rawValue) \($0)" }, lane: label, session: session.id, reader: reader, window: window)
            }
        case .readerConnectedToAnotherSession:
            if let window {
                lane.ledger.record(
                    .connectedToAnother, ContractRules.lostReader(reader, window).map { "\(command.rawValue) refused but \($0) (\(replicas(window)))" },
                    lane: label, session: session.id, reader: reader, window: window
                )
            }
            // The disconnected event must have come first, on this very connection.
            _ = absorbEvents(before: answer.arrival)
            let stillHeld = held.map { $0.reader == reader } ?? false
            if stillHeld { report(refusalOf: reader, window: window) }
            lane.ledger.record(
                .toldBeforeRefused,
                stillHeld ? "\(command.rawValue) was refused before the disconnected event for generation \(held?.generation.map(String.init) ?? "?") arrived\(window.map { " (\(replicas($0)))" } ?? "")" : nil,
                lane: label, session: session.id, reader: reader, window: window
            )
            if stillHeld { refusedUntold[reader] = answer.arrival }
            held = nil
        case .notConnectedToReader:
            if let window {
                lane.ledger.record(
                    .notConnected, ContractRules.lostReader(reader, window).map { "\(command.rawValue) refused but \($0) (\(replicas(window)))" },
                    lane: label, session: session.id, reader: reader, window: window
                )
            }
            held = nil
        default:
            lane.ledger.unchecked("\(command.rawValue) \(Self.name(answer))", message: answer.status.message)
        }
    }

    // MARK: judging

    /// Prints what a refusal before its event needs to be understood: the lane's journal,
    /// the owners in PostgreSQL around the call, and the replicas' log lines of the session.
    func report(refusalOf reader: String, window: ContractWindow?) {
        guard let session else { return }
        var lines = ["chaos: \(lane.label) session \(session.id) was refused \(reader) (held at generation \(held?.generation.map(String.init) ?? "?")) before its event; journal:"]
        lines += journal.map { "chaos:   \($0)" }
        if let window { lines.append("chaos:   window: \(window)") }
        for replica in lane.cluster.replicas {
            for line in replica.lines(containing: session.id).suffix(30) { lines.append("chaos:   \(replica.name): \(line)") }
        }
        print(lines.joined(separator: "\n"))
    }

    /// Reads PostgreSQL, sends the call, reads PostgreSQL again (and the changes of owner in
    /// between). Nil when PostgreSQL could not be read before (the call is not sent); the
    /// window is nil when the call's connection failed or PostgreSQL could not be read after.
    mutating func checked<Request, Response>(
        _ method: ProtobufMethod<Request, Response>, _ request: Request, session: String, timeout: Duration = .seconds(10)
    ) async -> (WireConnection.Answer, ContractWindow?)? {
        guard let connection else { return nil }
        let lane = self.lane
        let giveUp: @Sendable () -> Bool = { lane.isStopping }
        guard let before = await lane.database.snapshot(session: session, giveUp: giveUp) else {
            lane.ledger.unchecked("PostgreSQL unreachable before a call")
            return nil
        }
        let answer = await connection.call(method, request, timeout: timeout)
        lane.count { $0.calls += 1 }
        let call = method.path.split(separator: "/").last.map(String.init) ?? method.path
        note("\(call) answered \(Self.name(answer)) at arrival \(answer.arrival)\(answer.isOK ? "" : ": \(answer.status.message)")")
        if Self.isConnectionTrouble(answer) { return (answer, nil) }
        guard let after = await lane.database.snapshot(session: session, giveUp: giveUp),
              let changes = await lane.database.changes(from: before, to: after, giveUp: giveUp) else {
            lane.ledger.unchecked("PostgreSQL unreachable after a call")
            return (answer, nil)
        }
        return (answer, ContractWindow(session: session, before: before, after: after, history: changes))
    }

    /// Which replicas held the session's row before and after the call.
    func replicas(_ window: ContractWindow) -> String {
        let name = { (node: String?) in node.map { lane.cluster.replica(ofNode: $0)?.name ?? $0 } ?? "-" }
        return "session row on \(name(window.before.session?.node)) before, \(name(window.after.session?.node)) after"
    }

    /// The connection failed under the call (or its deadline passed): the answer says nothing
    /// about the contract, and the lane connects again and resumes.
    static func isConnectionTrouble(_ answer: WireConnection.Answer) -> Bool {
        switch answer.status.code {
        case .unavailable:
            return ![.storeUnavailable, .readerLinkMoved, .readerOffline, .readerSoftwareUpdateFailedInterrupted].contains(answer.reason)
        case .deadlineExceeded, .cancelled: return true
        default: return false
        }
    }

    static func name(_ answer: WireConnection.Answer) -> String {
        let error = RPCError(status: answer.status)
        return answer.isOK ? "OK" : "\(error.codeName)/\(error.reasonName)"
    }

    /// The reader an ALREADY_CONNECTED_TO_READER message names ("... connected to reader tmr_x; ...").
    static func namedReader(_ message: String) -> String? {
        guard let range = message.range(of: "connected to reader ") else { return nil }
        let name = message[range.upperBound...].prefix { !$0.isWhitespace && $0 != ";" && $0 != "," }
        return name.isEmpty ? nil : String(name)
    }
}
