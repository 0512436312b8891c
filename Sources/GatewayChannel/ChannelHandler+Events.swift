import GatewayWire

extension ChannelHandler {
    // MARK: events (executor)

    func process(_ events: [ConnectionEvent]) {
        for event in events {
            switch event {
            case .message(let id, let bytes):
                if let entry = calls[id] {
                    entry.inbound.yield(bytes)
                    if entry.autoConsume { frames.messageConsumed(id, byteCount: bytes.count) }
                } else {
                    frames.messageConsumed(id, byteCount: bytes.count)
                }
            case .callEnded(let id, let end):
                guard let entry = calls.removeValue(forKey: id) else { continue }
                let status = end.status ?? ReaderGatewayV1.Status()
                if status.code == .ok {
                    entry.handle.outcome = .some(nil)
                    entry.writableWaiter?.resume(throwing: RPCError(.streamStateInvalid, "the server ended the call before this message was sent"))
                    entry.inbound.finish()
                } else {
                    let error = RPCError(status: status)
                    entry.handle.outcome = .some(error)
                    entry.writableWaiter?.resume(throwing: error)
                    entry.inbound.finish(throwing: error)
                }
            case .writable(let id):
                if let waiter = calls[id]?.writableWaiter {
                    calls[id]?.writableWaiter = nil
                    waiter.resume()
                }
            case .pingAcknowledged(let roundTrip):
                shared.withLock { $0.lastPingRoundTrip = roundTrip }
            case .goAwayReceived(let goAway):
                let goAwayStatus = goAway.status ?? ReaderGatewayV1.Status()
                let error = RPCError(
                    code: .unavailable, reason: .goingAway,
                    message: "the gateway is going away (\(goAwayStatus.message.isEmpty ? "GOAWAY" : goAwayStatus.message)); calls in flight finish, open a new channel for new ones"
                )
                logger.info("GOAWAY received", ["last_stream_id": goAway.lastStreamID, "reason": goAwayStatus.reason])
                shared.withLock { shared in
                    if shared.state == .ready { shared.state = .draining(error) }
                }
            case .closed(let status):
                closing = true
                let error = status.code == .ok ? RPCError.unavailable(.goingAway, "the connection closed") : RPCError(status: status)
                shared.withLock { shared in
                    if !shared.state.isClosed { shared.state = .closed(error) }
                }
            case .callStarted, .halfClosed, .callCancelled:
                // Server-side events; a client connection does not emit them.
                break
            }
        }
    }
}
