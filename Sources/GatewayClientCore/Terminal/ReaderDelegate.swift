import GatewayChannel

/// Hears what happens to the connected reader (Stripe Terminal's `InternetReaderDelegate`),
/// on the main actor and in order: a `@MainActor` view model conforms as it is. Give it in
/// ``InternetConnectionConfiguration/delegate``; every method has an empty default.
@MainActor
public protocol ReaderDelegate: AnyObject, Sendable {
    /// The session lost its reader (Stripe's `reader(_:didDisconnect:)`): `info.reason`, and
    /// for a takeover the lane and point-of-sale device that took it.
    func reader(_ readerID: String, didDisconnect info: DisconnectInfo)
    /// The gateway lost the reader's link and waits for it to come back.
    func readerDidStartReconnect(_ readerID: String)
    /// The reader came back and is still this session's.
    func readerDidSucceedReconnect(_ readerID: String)
    /// The reader did not come back.
    func readerDidFailReconnect(_ readerID: String, error: TerminalError)
}

extension ReaderDelegate {
    public func reader(_ readerID: String, didDisconnect info: DisconnectInfo) {}
    public func readerDidStartReconnect(_ readerID: String) {}
    public func readerDidSucceedReconnect(_ readerID: String) {}
    public func readerDidFailReconnect(_ readerID: String, error: TerminalError) {}
}

extension TerminalClient {
    /// Hands one event to the reader delegate (the events arrive here in order, on the main actor);
    /// it hears the connected reader's losses and reconnects only.
    @MainActor
    func deliverToReaderDelegate(_ event: TerminalEvent) {
        guard let delegate = feedSession({ $0.readerDelegate }) else { return }
        switch event {
        case .disconnected(let info): delegate.reader(info.readerID, didDisconnect: info)
        case .reconnectStarted(let readerID): delegate.readerDidStartReconnect(readerID)
        case .reconnectSucceeded(let readerID): delegate.readerDidSucceedReconnect(readerID)
        case .reconnectFailed(let readerID, let error): delegate.readerDidFailReconnect(readerID, error: error)
        default: break
        }
    }
}
