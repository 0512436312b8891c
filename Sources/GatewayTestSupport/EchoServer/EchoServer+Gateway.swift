import GatewayWire

/// A few SDK and admin methods, enough to drive TerminalClient and AdminClient: sessions
/// (with resume), heartbeats, an event stream, discovery of one reader, connect, a collect (or
/// its decline), one command, and the ownership list behind a secret key.
extension EchoConnection {
    static let secretKey = "sk_good"

    func answerGateway(_ id: UInt32, path: String, _ bytes: [UInt8]) {
        let method = String(path.split(separator: "/").last ?? "")
        switch method {
        case "OpenSession":
            guard let request = try? ReaderGatewayV1.OpenSessionRequest(serializedBytes: bytes) else { return fail(id, .invalidRequest) }
            owner.record.withLock { $0.openSessions.append(request) }
            var response = ReaderGatewayV1.OpenSessionResponse()
            response.sessionID = "sess_1"
            response.sessionToken = "st_1"
            response.leaseMs = 30_000
            response.resumed = !request.resumeToken.isEmpty
            reply(id, response)
        case "Heartbeat":
            owner.record.withLock { $0.heartbeats += 1 }
            var response = ReaderGatewayV1.HeartbeatResponse()
            response.leaseRemainingMs = 30_000
            reply(id, response)
        case "SubscribeEvents":
            subscriberStreams.insert(id)
            let kept = owner.record.withLock { record in
                record.subscribers += 1
                defer { record.eventsOnNextSubscribe = [] }
                return record.eventsOnNextSubscribe
            }
            for event in kept { _ = try? frames.send(event, on: id) }
        case "DiscoverReaders":
            var reader = ReaderGatewayV1.Reader()
            reader.id = "tmr_1"
            reader.label = "Lane 1"
            reader.networkStatus = .online
            var response = ReaderGatewayV1.DiscoverReadersResponse()
            response.discoveryID = "disc_1"
            response.readers = [reader]
            reply(id, response)
        case "ConnectReader":
            guard let request = try? ReaderGatewayV1.ConnectReaderRequest(serializedBytes: bytes), request.discoveryID == "disc_1" else {
                return fail(id, .staleDiscovery)
            }
            if request.failIfInUse && owner.record.withLock({ $0.busyOnFailIfInUse }) { return fail(id, .readerBusy) }
            var reader = ReaderGatewayV1.Reader()
            reader.id = request.readerID
            var response = ReaderGatewayV1.ConnectReaderResponse()
            response.reader = reader
            response.generation = 1
            reply(id, response)
        case "CollectPaymentMethod":
            if let declineCode = owner.record.withLock({ $0.declineCollectsWith }) {
                var status = ReaderGatewayV1.Status(.cardDeclined, "fake gateway: the card was declined")
                status.declineCode = declineCode
                return handle((try? frames.endCall(id, status: status)) ?? [])
            }
            var method = ReaderGatewayV1.PaymentMethod()
            method.id = "pm_1"
            method.brand = "visa"
            method.last4 = "4242"
            var response = ReaderGatewayV1.CollectPaymentMethodResponse()
            response.paymentMethod = method
            reply(id, response)
        case "ClearReaderDisplay":
            if owner.record.withLock({ $0.takeOverOnCommand }) {
                var disconnected = ReaderGatewayV1.ReaderDisconnected()
                disconnected.readerID = "tmr_1"
                disconnected.reason = .replaced
                disconnected.takenByLaneLabel = "Lane B"
                disconnected.takenByPosDeviceID = "pos-b"
                var event = ReaderGatewayV1.SessionEvent()
                event.sequence = 1
                event.event = .disconnected(disconnected)
                for stream in subscriberStreams { _ = try? frames.send(event, on: stream) }
                return fail(id, .readerConnectedToAnotherSession)
            }
            reply(id, ReaderGatewayV1.ClearReaderDisplayResponse())
        case "CloseSession":
            reply(id, ReaderGatewayV1.CloseSessionResponse())
        case "ListReaderOwnership":
            let authorization = metadata[id]?.first { $0.key == "authorization" }.map { String(decoding: $0.value, as: UTF8.self) }
            guard authorization == "Bearer \(Self.secretKey)" else { return fail(id, .secretKeyInvalid) }
            var ownership = ReaderGatewayV1.ReaderOwnership()
            ownership.readerID = "tmr_1"
            ownership.generation = 4
            var response = ReaderGatewayV1.ListReaderOwnershipResponse()
            response.ownerships = [ownership]
            reply(id, response)
        default:
            fail(id, .methodNotFound)
        }
    }

    private func reply<Message: ProtobufMessage>(_ id: UInt32, _ message: Message) {
        _ = try? frames.send(message, on: id)
        handle((try? frames.endCall(id, status: .ok)) ?? [])
    }

    private func fail(_ id: UInt32, _ reason: ReaderGatewayV1.ErrorReason) {
        handle((try? frames.endCall(id, status: ReaderGatewayV1.Status(reason, "fake gateway: \(reason)"))) ?? [])
    }
}
