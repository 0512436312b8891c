import GatewayCore

/// LISTEN/NOTIFY bookkeeping (engine state).
struct ListenerState {
    struct Subscription {
        var channel: String
        var stream: AsyncStream<PostgresNotification>.Continuation
        /// The listener connection broke while this subscription was active: yield a
        /// resubscription marker once its channel is LISTENed again.
        var missedNotifications = false
    }

    var subscriptions: [Int: Subscription] = [:]
    /// Channels the current listener connection has sent LISTEN for.
    var listening: Set<String> = []
    /// Subscribers waiting for their channel's LISTEN to be confirmed.
    var pendingRegistrations: [String: [@Sendable (Result<Void, StoreError>) -> Void]] = [:]
    var connectionID: ConnectionID?
    /// When to try the listener connection again after it failed.
    var retryAt: ContinuousClock.Instant?
}

/// One dedicated connection LISTENs for every channel any subscriber wants;
/// it is reopened (and re-LISTENs) when it breaks. Notifications sent while
/// it was down are lost, as PostgreSQL does not queue them: once a channel is
/// LISTENed again, each subscriber that was active during the break receives
/// one resubscription marker (``PostgresNotification/isResubscription``).
extension PostgresStoreLoop {
    static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    func addSubscription(
        channel: String,
        subscriber: Int,
        stream: AsyncStream<PostgresNotification>.Continuation,
        registered: @escaping @Sendable (Result<Void, StoreError>) -> Void
    ) {
        listener.subscriptions[subscriber] = .init(channel: channel, stream: stream)
        if listener.listening.contains(channel) {
            registered(.success(()))
            return
        }
        listener.pendingRegistrations[channel, default: []].append(registered)
        if let id = listener.connectionID, let connection = connections[id.raw], connection.state == .ready {
            sendListen(channel, on: connection)
        } else {
            ensureListener()
        }
    }

    func removeSubscription(_ subscriber: Int) {
        guard let subscription = listener.subscriptions.removeValue(forKey: subscriber) else { return }
        let channel = subscription.channel
        guard !listener.subscriptions.values.contains(where: { $0.channel == channel }),
              listener.listening.remove(channel) != nil,
              let id = listener.connectionID, let connection = connections[id.raw], connection.state == .ready
        else { return }
        let statement = Statement(sql: "UNLISTEN " + Self.quoteIdentifier(channel), parameters: []) { _ in }
        if connection.send(statement) { updateInterest(connection) }
    }

    /// Opens the listener connection when subscribers need one and none is open or opening.
    func ensureListener() {
        guard !listener.subscriptions.isEmpty, listener.connectionID == nil, listener.retryAt == nil, closeDeadline == nil else { return }
        guard runningOnStoreThread else {
            needsStoreThread = true
            return
        }
        let id = pool.makeID()
        listener.connectionID = id
        if startConnection(id: id, role: .listener) == nil, listener.connectionID == id {
            listener.connectionID = nil
        }
    }

    func listenerBecameReady(_ connection: PostgresConnection) {
        let channels = Set(listener.subscriptions.values.map(\.channel))
        for channel in channels { sendListen(channel, on: connection) }
    }

    private func sendListen(_ channel: String, on connection: PostgresConnection) {
        guard !listener.listening.contains(channel) else { return }
        listener.listening.insert(channel)
        let statement = Statement(sql: "LISTEN " + Self.quoteIdentifier(channel), parameters: []) { [self] result in
            // Completions run with the engine lock held, so this touches engine state safely.
            let waiting = listener.pendingRegistrations.removeValue(forKey: channel) ?? []
            switch result {
            case .success:
                for registered in waiting { registered(.success(())) }
                markResubscribed(channel)
            case .failure(let error):
                listener.listening.remove(channel)
                for registered in waiting { registered(.failure(error)) }
            }
        }
        if connection.send(statement) {
            updateInterest(connection)
        } else {
            connectionBroke(connection, input: connection.breakConnection(ConnectionInput()))
        }
    }

    func listenerConnectFailed(_ error: StoreError) {
        listener.connectionID = nil
        let pending = listener.pendingRegistrations
        listener.pendingRegistrations.removeAll()
        for (_, waiting) in pending { for registered in waiting { registered(.failure(error)) } }
        if !listener.subscriptions.isEmpty { listener.retryAt = .now + .seconds(1) }
    }

    func listenerBroke() {
        listener.connectionID = nil
        listener.listening.removeAll()
        for subscriber in listener.subscriptions.keys { listener.subscriptions[subscriber]?.missedNotifications = true }
        if !listener.subscriptions.isEmpty {
            logger.warning("the LISTEN connection broke; reconnecting (notifications sent meanwhile are lost)")
            ensureListener()
        }
    }

    /// The LISTEN for `channel` is in place again: subscribers that were active when the
    /// connection broke get one marker, so they re-read what they may have missed.
    private func markResubscribed(_ channel: String) {
        for (subscriber, subscription) in listener.subscriptions where subscription.channel == channel && subscription.missedNotifications {
            listener.subscriptions[subscriber]?.missedNotifications = false
            subscription.stream.yield(.resubscription(channel: channel))
        }
    }

    func deliverNotifications(_ notifications: [PostgresNotification]) {
        for notification in notifications {
            for subscription in listener.subscriptions.values where subscription.channel == notification.channel {
                subscription.stream.yield(notification)
            }
        }
    }

    func closeListener() {
        for subscription in listener.subscriptions.values { subscription.stream.finish() }
        listener.subscriptions.removeAll()
        let error = StoreError(.closed, "the database client is shutting down")
        for (_, waiting) in listener.pendingRegistrations { for registered in waiting { registered(.failure(error)) } }
        listener.pendingRegistrations.removeAll()
        listener.retryAt = nil
    }
}
