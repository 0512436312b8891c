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

    /// Whether every check passed.
    public var isReady: Bool { results.allSatisfy { $0.outcome == .ready } }

    /// Evaluates `checks` in order.
    public init(evaluating checks: [ReadinessCheck]) {
        results = checks.map { ($0.name, $0.evaluate()) }
    }

    /// The `/readyz` body: a verdict line, then one line per check.
    public var text: String {
        var text = isReady ? "ready\n" : "not ready\n"
        for (name, outcome) in results {
            switch outcome {
            case .ready: text += "ok \(name)\n"
            case .notReady(let reason): text += "failing \(name): \(reason)\n"
            }
        }
        return text
    }

    public static func == (lhs: ReadinessReport, rhs: ReadinessReport) -> Bool {
        lhs.results.count == rhs.results.count
            && zip(lhs.results, rhs.results).allSatisfy { $0.name == $1.name && $0.outcome == $1.outcome }
    }
}
