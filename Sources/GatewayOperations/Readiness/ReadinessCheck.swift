/// One condition `/readyz` requires, such as "the store is reachable".
///
/// The closure runs on the ops thread for every `/readyz` request, so it must
/// answer at once from state kept elsewhere (an atomic flag the store's
/// health loop updates, the drain state): never query the database or block.
public struct ReadinessCheck: Sendable {
    /// The answer of one check.
    public enum Outcome: Sendable, Equatable {
        /// The condition holds.
        case ready
        /// The condition does not hold; the reason is shown in the `/readyz` body.
        case notReady(String)
        /// The condition does not hold, but the replica still serves what works without it:
        /// `/readyz` stays 200 and shows the reason (a shared dependency's outage, which
        /// failing would take every replica out of the Service at once).
        case degraded(String)
    }

    /// A short name shown in the `/readyz` body (`store`, `migrations`, `listeners`, `draining`).
    public let name: String
    /// Evaluates the condition now.
    public let evaluate: @Sendable () -> Outcome

    public init(_ name: String, evaluate: @escaping @Sendable () -> Outcome) {
        self.name = name
        self.evaluate = evaluate
    }
}

/// The result of evaluating every readiness check once.
public struct ReadinessReport: Sendable, Equatable {
    /// Each check's name and outcome, in the order given.
    public var results: [(name: String, outcome: ReadinessCheck.Outcome)]

    /// Whether no check failed (a degraded check does not fail the probe).
    public var isReady: Bool {
        results.allSatisfy { result in
            if case .notReady = result.outcome { return false }
            return true
        }
    }

    /// Whether a check is degraded (the probe passes, the body says what does not work).
    public var isDegraded: Bool {
        results.contains { result in
            if case .degraded = result.outcome { return true }
            return false
        }
    }

    /// Evaluates `checks` in order.
    public init(evaluating checks: [ReadinessCheck]) {
        results = checks.map { ($0.name, $0.evaluate()) }
    }

    /// The `/readyz` body: a verdict line (`ready`, `ready, degraded` or `not ready`), then
    /// one line per check.
    public var text: String {
        var text = isReady ? (isDegraded ? "ready, degraded\n" : "ready\n") : "not ready\n"
        for (name, outcome) in results {
            switch outcome {
            case .ready: text += "ok \(name)\n"
            case .notReady(let reason): text += "failing \(name): \(reason)\n"
            case .degraded(let reason): text += "degraded \(name): \(reason)\n"
            }
        }
        return text
    }

    public static func == (lhs: ReadinessReport, rhs: ReadinessReport) -> Bool {
        lhs.results.count == rhs.results.count
            && zip(lhs.results, rhs.results).allSatisfy { $0.name == $1.name && $0.outcome == $1.outcome }
    }
}
