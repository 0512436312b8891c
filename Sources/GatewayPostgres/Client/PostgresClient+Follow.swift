extension PostgresClient {
    /// LISTENs on `channel` until the calling task is cancelled, listening again (after
    /// `retryDelay`) whenever the subscription could not be made: `subscribed` runs each time
    /// the subscription is confirmed (notifications sent before it were not heard, so re-read
    /// what the channel announces), `body` for every notification, resubscription markers
    /// included (``PostgresNotification/isResubscription``).
    public func follow(
        _ channel: String,
        retryDelay: Duration = .seconds(1),
        subscribed: () async -> Void = {},
        _ body: (PostgresNotification) async -> Void
    ) async {
        while !Task.isCancelled {
            let notifications: AsyncStream<PostgresNotification>
            do { notifications = try await listen(channel) } catch {
                do { try await Task.sleep(for: retryDelay) } catch { return }
                continue
            }
            await subscribed()
            for await notification in notifications { await body(notification) }
        }
    }
}
