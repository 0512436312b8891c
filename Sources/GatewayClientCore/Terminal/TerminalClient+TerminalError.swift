import GatewayChannel
import GatewayWire

extension TerminalClient {
    /// Runs the body of a public call and throws its failure as a ``TerminalError``: the one
    /// place where the call layer's ``RPCError`` takes Terminal's name. Inside the body the
    /// client still decides on the precise `RPCError` (retries, the wait for a takeover's
    /// event); the error keeps it as ``TerminalError/underlying``.
    func terminalCall<Value>(_ body: () async throws -> Value) async throws(TerminalError) -> Value {
        do {
            return try await body()
        } catch {
            throw terminalError(error)
        }
    }

    /// Any error a call throws, as a ``TerminalError``. A takeover's names who took the reader
    /// once the gateway's `disconnected` event told the client (a command that fails for a
    /// takeover waits for that event first).
    func terminalError(_ error: any Error) -> TerminalError {
        switch error {
        case let error as TerminalError:
            return error
        case let error as RPCError:
            return TerminalError(error, takenBy: feedSession { $0.latestTakeover })
        case is CancellationError:
            return TerminalError(RPCError(code: .cancelled, reason: .commandCanceled, message: "the operation was canceled"))
        default:
            return TerminalError(RPCError(code: .unknown, reason: .unspecified, message: "\(error)"))
        }
    }
}
