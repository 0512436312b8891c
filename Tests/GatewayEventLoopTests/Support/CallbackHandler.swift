import GatewayEventLoop

/// Calls a closure on every readiness (reads nothing).
final class CallbackHandler: EventLoopSelectable, Sendable {
    let callback: @Sendable () -> Void
    init(_ callback: @escaping @Sendable () -> Void) { self.callback = callback }
    func handleEvents(_ events: UInt32) { callback() }
}
