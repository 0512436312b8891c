import Foundation
import GatewayCore
import GatewayOperations
import GatewayRepositories
import GatewayTransport
import Synchronization

/// Delivers the webhook queue from this replica; every replica runs one.
///
/// A round asks PostgreSQL which endpoints have due deliveries (leaving out the endpoints this
/// replica has no slot for), claims for each as many as it has room for (leased, with
/// `FOR UPDATE SKIP LOCKED`, so replicas never claim the same delivery while a lease holds),
/// and sends each claimed delivery in a child task; a finished delivery gives its slot back and
/// starts the next round at once, otherwise rounds come every ``WebhookDeliveryConfiguration/pollInterval``.
/// A slow endpoint holds at most its own slots, each for at most the request timeout; the
/// others keep being delivered.
final class WebhookDeliveryWorker: Sendable {
    let store: WebhookStore
    let configuration: WebhookDeliveryConfiguration
    let metrics: WebhookMetrics
    let loops: EventLoopGroupBox
    let replica: @Sendable () -> String
    let logger = Logger(component: "webhooks")
    private let slots: Mutex<WebhookDeliverySlots>
    private let wake = WakeSignal()
    /// Claim rounds that failed in a row: the first is logged, the rest are counted
    /// (`reader_gateway_webhook_claim_failures_total`), and the first success says how many.
    private let failedRounds = Mutex(0)

    init(
        store: WebhookStore, configuration: WebhookDeliveryConfiguration, metrics: WebhookMetrics, loops: EventLoopGroupBox,
        replica: @escaping @Sendable () -> String
    ) {
        self.store = store
        self.configuration = configuration
        self.metrics = metrics
        self.loops = loops
        self.replica = replica
        self.slots = Mutex(WebhookDeliverySlots(maximum: configuration.maximumInFlight, maximumPerEndpoint: configuration.maximumInFlightPerEndpoint))
    }

    /// Delivers until the calling task is cancelled; returns once every delivery it started ended.
    func run() async {
        guard configuration.enabled else { return }
        let sender: WebhookSender
        do {
            var tls = TLSClientConfiguration(trustedCAPath: configuration.trustedCAPath)
            tls.verifyServer = true
            sender = WebhookSender(post: HTTPSPost(context: try TLSContext(client: tls), timeout: configuration.requestTimeout), policy: configuration.addressPolicy)
        } catch {
            logger.error("webhook deliveries are off on this replica: the outbound TLS context could not be built; check --webhook-ca-file", ["error": "\(error)"])
            return
        }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.refreshQueueMetrics() }
            while !Task.isCancelled {
                await claimRound(sender: sender, group: &group)
                await wake.wait(atMost: configuration.pollInterval)
            }
        }
    }

    private func claimRound(sender: WebhookSender, group: inout DiscardingTaskGroup) async {
        guard let loopGroup = loops.group else { return }
        let (free, full) = slots.withLock { ($0.free, $0.fullEndpoints) }
        guard free > 0 else { return }
        do {
            for endpoint in try await store.endpointsWithDueDeliveries(excluding: full) {
                let room = slots.withLock { $0.room(for: endpoint) }
                guard room > 0 else { continue }
                let claimed = try await store.claim(
                    endpoint: endpoint, limit: room, leaseMs: configuration.leaseDuration.wholeMilliseconds, replica: replica()
                )
                slots.withLock { $0.take(claimed.count, for: endpoint) }
                for delivery in claimed {
                    let loop = loopGroup.next()
                    group.addTask { await self.deliver(delivery, sender: sender, loop: loop) }
                }
            }
            let failed = failedRounds.withLock { rounds in
                defer { rounds = 0 }
                return rounds
            }
            if failed > 0 {
                logger.notice("webhook deliveries can be claimed again", ["replica": replica(), "failed_rounds": failed])
            }
        } catch {
            metrics.claimFailures.unlabeled.increment()
            let first = failedRounds.withLock { rounds in
                rounds += 1
                return rounds == 1
            }
            if first {
                logger.warning(
                    "cannot claim webhook deliveries; retrying every poll interval, quietly until it works (reader_gateway_webhook_claim_failures_total counts the rounds)",
                    ["replica": replica(), "error": "\(error)"]
                )
            }
        }
    }

    private func deliver(_ delivery: WebhookDelivery, sender: WebhookSender, loop: EventLoop) async {
        defer {
            slots.withLock { $0.release(delivery.endpointID) }
            wake.ring()
        }
        let outcome = await sender.send(delivery, timestamp: Int64(Date().timeIntervalSince1970), on: loop)
        if case .failed = outcome, Task.isCancelled {
            // Shutting down cut the attempt short, not the endpoint: hand the delivery back so
            // another replica sends it now rather than after the lease, as if never claimed.
            do {
                try await store.handBack(delivery.id, replica: replica())
            } catch {
                logger.warning("could not hand back a webhook delivery at shutdown; another replica sends it when its lease ends", [
                    "delivery": delivery.id, "error": "\(error)",
                ])
            }
            return
        }
        do {
            switch outcome {
            case .delivered(let status):
                metrics.delivered.add(1, to: delivery.endpointID)
                try await store.delivered(delivery.id, status: status)
            case .failed(let status, let reason):
                metrics.failedAttempts.add(1, to: delivery.endpointID)
                let retryIn = configuration.retrySchedule.delay(afterAttempt: delivery.attempt, unitRandom: Double.random(in: 0..<1))
                let result = try await store.failed(
                    delivery.id, status: status, error: reason, retryInMs: retryIn, windowMs: configuration.retryWindow.wholeMilliseconds
                )
                logger.info(
                    "webhook delivery failed", ["endpoint": delivery.endpointID, "event": delivery.event.id, "attempt": delivery.attempt, "reason": reason, "then": "\(result)"]
                )
                if result == .endpointDisabled {
                    logger.warning("webhook endpoint disabled: its deliveries failed for the whole retry window", ["endpoint": delivery.endpointID])
                }
            }
        } catch {
            // The lease expires and another round (here or on another replica) sends it again.
            logger.warning("could not record a webhook attempt; it will be sent again", ["delivery": delivery.id, "error": "\(error)"])
        }
    }

    private func refreshQueueMetrics() async {
        while !Task.isCancelled {
            if let summaries = try? await store.queueSummaries() {
                metrics.pending.replace(with: Dictionary(summaries.map { ($0.endpointID, Double($0.pending)) }, uniquingKeysWith: +))
                metrics.retrying.replace(with: Dictionary(summaries.map { ($0.endpointID, Double($0.retrying)) }, uniquingKeysWith: +))
                metrics.oldestPendingSeconds.replace(with: Dictionary(summaries.map { ($0.endpointID, $0.oldestPendingSeconds) }, uniquingKeysWith: max))
            }
            try? await Task.sleep(for: configuration.metricsInterval)
        }
    }
}
