import GatewayTransport
import GatewayWebSocket

/// The fleet console's HTTP requests on the gateway's port (`/console...`): read whole by
/// ``HTTPRequestParser``, answered by the configured handler (off the loop: sign-in needs
/// the store), then the connection closes.
extension ServerConnection {
    /// Request lines that are the console's: a connection starting with one of these is HTTP
    /// for the console (`GET /console…` before the WebSocket rule, which takes other GETs);
    /// the icon a browser asks for beside any page is answered there too.
    static let consoleProbes: [[UInt8]] = ["GET /console", "PUT /console", "DELETE /console", "GET /favicon.ico "].map { Array($0.utf8) }

    /// What the first bytes say about the console: it is (true), it is not (false), or
    /// they are too few to tell (nil).
    static func isConsoleRequest(_ bytes: [UInt8]) -> Bool? {
        var undecided = false
        for probe in consoleProbes {
            if bytes.starts(with: probe) { return true }
            if bytes.count < probe.count, probe.starts(with: bytes) { undecided = true }
        }
        return undecided ? nil : false
    }

    /// Bytes of a console request.
    func consoleReceived(_ bytes: [UInt8]) {
        guard case .console(let box) = carrier else { return }
        let result = box.parser.receive(bytes)
        switch result {
        case .needMoreBytes:
            return
        case .invalid(let error):
            cancelWebSocketTimer()
            respondAndClose(ConsoleResponse.text(status: error.status, error.message + "\n").bytes)
        case .request(let request):
            cancelWebSocketTimer()
            guard let handler = router.webSocket?.console else {
                respondAndClose(ConsoleResponse.text(status: 404, "this gateway serves no console\n").bytes)
                return
            }
            let loop = self.loop
            Task {
                let response = await handler(request)
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
