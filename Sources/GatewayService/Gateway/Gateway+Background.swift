extension Gateway {
    /// The replica's background loops, each a child task of this call: the sweeper, the node
    /// heartbeat and membership sweeps, the three notice followers (ownership, sessions, reader
    /// status), the fleet watchers' hub and the webhook deliveries. They run until the calling task is cancelled; the
    /// call returns once every one of them has ended, so nothing of the replica still runs
    /// after its host's shutdown.
    func runBackground(advertisedAddress: String) async {
        await withDiscardingTaskGroup { loops in
            loops.addTask { await self.runSweeper() }
            loops.addTask { await self.runMembership(advertisedAddress: advertisedAddress) }
            loops.addTask { await self.follower.runNotices() }
            loops.addTask { await self.follower.runSessionNotices() }
            loops.addTask { await self.follower.runStatusNotices() }
            loops.addTask { await self.fleet.run() }
            loops.addTask { await self.webhooks.run() }
        }
    }
}
