import Synchronization

/// What the raw lanes checked and what disagreed, shared by every lane of a run.
final class ContractLedger: Sendable {
    struct State: Sendable {
        var checked: [ContractCheck: Int] = [:]
        var violations: [ContractViolation] = []
        /// Disagreements with what the contract does not promise (``ContractCheck/isPromise``).
        var observations: [ContractViolation] = []
        /// Refusals no rule can judge from PostgreSQL (READER_BUSY, READER_OFFLINE: the marks
        /// they depend on keep no history), and answers that could not be checked, by reason.
        var unchecked: [String: Int] = [:]
        /// The first message of each kind of unjudged answer.
        var uncheckedExample: [String: String] = [:]
    }
    private let state = Mutex(State())

    var snapshot: State { state.withLock { $0 } }
    var violations: [ContractViolation] { state.withLock { $0.violations } }

    /// Counts one answer of `check`, and its violation when `problem` is not nil.
    func record(_ check: ContractCheck, _ problem: String?, lane: String, session: String, reader: String?, window: ContractWindow?) {
        let violation = problem.map {
            ContractViolation(check: check, lane: lane, session: session, reader: reader, detail: $0 + (window.map { "; \($0)" } ?? ""))
        }
        if let violation, check.isPromise { print("chaos: wire contract violation: \(violation)") }
        state.withLock { state in
            state.checked[check, default: 0] += 1
            guard let violation else { return }
            if check.isPromise { state.violations.append(violation) } else { state.observations.append(violation) }
        }
    }

    func unchecked(_ what: String, message: String = "") {
        state.withLock { state in
            state.unchecked[what, default: 0] += 1
            if state.uncheckedExample[what] == nil, !message.isEmpty { state.uncheckedExample[what] = message }
        }
    }

    /// The summary lines: answers and refusals checked, per kind, and the violations per kind.
    var summary: String {
        let state = snapshot
        func list(_ checks: [ContractCheck]) -> String {
            checks.map { "\($0.rawValue): \(state.checked[$0] ?? 0)" }.joined(separator: ", ")
        }
        let answers = ContractCheck.allCases.filter { !$0.isRefusal }
        let refusals = ContractCheck.allCases.filter(\.isRefusal)
        let total = { (checks: [ContractCheck]) in checks.reduce(0) { $0 + (state.checked[$1] ?? 0) } }
        var byKind: [ContractCheck: Int] = [:]
        for violation in state.violations { byKind[violation.check, default: 0] += 1 }
        var lines = [
            "chaos: wire lanes checked \(total(answers)) answers against PostgreSQL (\(list(answers)))",
            "chaos: wire lanes checked \(total(refusals)) refusals against PostgreSQL (\(list(refusals)))",
            "chaos: wire lanes did not judge \(state.unchecked.values.reduce(0, +)) answers (\(state.unchecked.keys.sorted().map { "\($0): \(state.unchecked[$0]!)\(state.uncheckedExample[$0].map { " \"\($0.prefix(120))\"" } ?? "")" }.joined(separator: ", ")))",
            "chaos: wire contract violations: \(state.violations.count)\(byKind.isEmpty ? "" : " (\(ContractCheck.allCases.compactMap { kind in byKind[kind].map { "\(kind.rawValue): \($0)" } }.joined(separator: ", ")))")",
        ]
        for kind in ContractCheck.allCases {
            if let first = state.violations.first(where: { $0.check == kind }) { lines.append("chaos:   e.g. \(first)") }
        }
        if let first = state.observations.first {
            lines.append("chaos: wire lanes observed \(state.observations.count) answers the contract does not promise against (not failing), e.g. \(first)")
        }
        return lines.joined(separator: "\n")
    }
}
