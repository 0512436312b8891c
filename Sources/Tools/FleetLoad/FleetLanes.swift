import Foundation
import GatewayCore
import GatewayClient
import GatewayTransport
import GatewayWire
import Synchronization

/// The lanes of the fleet: each holds a session (TerminalClient: its own connection, session
/// heartbeats and resume in the background), discovers its location's readers once, and now
/// and then connects one of them and relays a command to it, timing both.
final class FleetLanes: Sendable {
    struct Samples {
        var connects: [Double] = []
        var relays: [Double] = []
        var failures = 0
        var lastFailure = ""
        /// Failures by the error's reason (`STALE_DISCOVERY`, `UNAVAILABLE` ...), or "other".
        var failuresByReason: [String: Int] = [:]
    }

    let measuring = Atomic<Bool>(false)
    let stopping = Atomic<Bool>(false)
    /// SIGTERM asked for the result before the measured time was over.
    let finishRequested = Atomic<Bool>(false)
    let resumed = Atomic<Int>(0)
    let lost = Atomic<Int>(0)
    let ready = Atomic<Int>(0)
    let samples = Mutex(Samples())
    let period: Duration
    /// Whether each lane keeps one reader of its location (the reconnect storm checks that
    /// owners are kept) instead of handing the reader back after every command.
    let hold: Bool

    init(period: Duration, hold: Bool) {
        self.period = period
        self.hold = hold
    }

    /// Runs one lane until stopped: open, discover, then connect + relay every period (jittered).
    func run(index: Int, locationID: String, token: String, configuration: ClientChannelConfiguration, group: EventLoopGroup) async {
        let lane = TerminalClient(connection: GatewayConnection(configuration, group: group))
        var discovered: [DiscoveredReader] = []
        for attempt in 0..<20 {
            do {
                if lane.session == nil {
                    _ = try await lane.openSession(connectionToken: token, posDeviceID: "fleet-\(index)", laneLabel: "Lane \(index + 1)")
                }
                discovered = try await lane.discoverReaders(locationID: locationID).filter(\.isOnline)
                if !discovered.isEmpty { break }
            } catch {
                record(failure: "lane \(index) setup: \(error)", error)
            }
            try? await Task.sleep(for: .milliseconds(200 * (attempt + 1)))
        }
        guard !discovered.isEmpty else { return }
        ready.add(1, ordering: .relaxed)
        let events = Task { [self] in
            for await event in lane.events {
                switch event {
                case .sessionResumed: self.resumed.add(1, ordering: .relaxed)
                case .connectionLost: self.lost.add(1, ordering: .relaxed)
                default: break
                }
            }
        }
        defer { events.cancel() }
        var cart = ReaderGatewayV1.Cart()
        cart.currency = "usd"
        cart.total = 1299
        while !stopping.load(ordering: .relaxed) {
            try? await Task.sleep(for: period * Double.random(in: 0.5...1.5))
            guard !stopping.load(ordering: .relaxed) else { break }
            let reader = hold ? discovered[index % discovered.count] : discovered.randomElement()!
            let clock = ContinuousClock()
            do {
                let connectStart = clock.now
                if lane.connectedReader == nil || !hold {
                    _ = try await lane.connectReader(reader, failIfInUse: false)
                }
                let connectTime = clock.now - connectStart
                let relayStart = clock.now
                try await lane.setReaderDisplay(cart)
                let relayTime = clock.now - relayStart
                // Hand the reader back: the next connect may pick another one of the location.
                if !hold { try await lane.disconnectReader() }
                if measuring.load(ordering: .relaxed) {
                    samples.withLock {
                        $0.connects.append(connectTime.seconds)
                        $0.relays.append(relayTime.seconds)
                    }
                }
            } catch {
                record(failure: "lane \(index): \(error)", error)
            }
        }
    }

    func record(failure: String, _ error: any Error) {
        guard measuring.load(ordering: .relaxed) else { return }
        // The lane's public calls throw a TerminalError, its wire-form calls the RPCError itself.
        let wire = (error as? TerminalError)?.underlying ?? (error as? RPCError)
        let reason = wire.map { $0.reason == .unspecified ? "\($0.code)" : $0.reasonName } ?? "other"
        samples.withLock {
            $0.failures += 1
            $0.lastFailure = failure
            $0.failuresByReason[reason, default: 0] += 1
        }
    }

    /// The failures by reason as a JSON object.
    func failuresByReasonJSON() -> String {
        let counts = samples.withLock { $0.failuresByReason }
        return "{" + counts.sorted { $0.key < $1.key }.map { "\(JSONText.quoted($0.key)):\($0.value)" }.joined(separator: ",") + "}"
    }
}

/// The value at quantile `q` of `values` (nearest rank), 0 when empty.
func quantile(_ values: [Double], _ q: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))]
}
