import GatewayTransport
import GatewayWebSocket

/// Plain HTTP requests on the port that ``PlainHTTPResponder/claims(_:)`` takes (the gateway's
/// fleet console: `/console...`): read whole by ``HTTPRequestParser``, answered by the
/// responder (off the loop: the console's sign-in needs the store), then the connection closes.
extension ServerConnection {
    /// Bytes of a claimed HTTP request.
    func httpReceived(_ bytes: [UInt8]) {
        guard case .http(let box) = carrier, let responder = server.webSocket?.http else { return }
        let result = box.parser.receive(bytes)
        switch result {
        case .needMoreBytes:
            return
        case .invalid(let error):
            cancelWebSocketTimer()
            respondAndClose(responder.refusal(status: error.status, message: error.message))
        case .request(let request):
            cancelWebSocketTimer()
            let loop = self.loop
            let peer = self.peer
            Task {
                let response = await responder.respond(to: request, peer: peer)
                loop.execute { [self] in respondAndClose(response) }
            }
        }
    }

    private func respondAndClose(_ bytes: [UInt8]) {
        guard let transport, !closed else { return }
        _ = transport.write(bytes)
        transport.close(graceful: true)
    }
}
