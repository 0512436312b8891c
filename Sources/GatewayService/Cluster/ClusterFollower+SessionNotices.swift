import GatewayDomain
import GatewayRegistry
import GatewayRepositories

extension ClusterFollower {
    /// Follows sessions adopted anywhere in the cluster (NOTIFY on
    /// `reader_gateway_sessions`), until cancelled: a copy held here at an older epoch is
    /// stale and is dropped at once, its event stream ending with SESSION_MOVED. A notice
    /// is an optimisation: the epoch fences every write of a stale copy, and the next lease
    /// renewal drops a copy whose notice was missed.
    func runSessionNotices() async {
        await notices.follow(SessionStore.sessionChannel) { notification in
            guard !notification.isResubscription, let notice = SessionAdoptionNotice(payload: notification.payload),
                  notice.node != node.id
            else { return }
            guard registry.sessionMoved(SessionID(notice.session), epoch: notice.epoch) != nil else { return }
            metrics.sessions.unlabeled.decrement()
            logger.info("session moved to another replica; its copy here is dropped", ["session": notice.session, "epoch": notice.epoch, "node": notice.node])
        }
    }
}
