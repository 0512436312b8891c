import GatewayDomain

/// Sessions, lanes and machines shared by the ownership tests.
enum Fixture {
    static let reader = ReaderID("tmr_lane_test")
    static let sessionA = SessionID("sess_A")
    static let sessionB = SessionID("sess_B")
    static let laneA = LaneLabel("Till 1")
    static let laneB = LaneLabel("Till 2")
    static let ownerA = ReaderOwner(session: sessionA, lane: laneA)
    static let ownerB = ReaderOwner(session: sessionB, lane: laneB)
    static let latestDiscovery = DiscoveryStateMachine.DiscoveryID(5)

    static func connect(_ owner: ReaderOwner, failIfInUse: Bool, discovery: DiscoveryStateMachine.DiscoveryID = latestDiscovery) -> ConnectRequest {
        ConnectRequest(
            session: owner.session,
            lane: owner.lane,
            failIfInUse: failIfInUse,
            readerDiscovery: discovery,
            latestDiscovery: latestDiscovery
        )
    }

    /// A reader online at epoch 1, owned by A at generation 3; mid-transaction if asked.
    static func ownedByA(midTransaction: Bool) -> ReaderOwnershipStateMachine {
        ReaderOwnershipStateMachine(
            reader: reader,
            link: .online(LinkEpoch(1)),
            owner: ownerA,
            generation: OwnershipGeneration(3),
            commandInProgress: midTransaction ? CommandInProgress(command: .collectPaymentMethod, session: sessionA) : nil
        )
    }
}

/// Short, comparable spellings of states and results, so tables read like the rules.
enum Summary {
    static func name(_ session: SessionID?) -> String {
        switch session {
        case Fixture.sessionA?: "A"
        case Fixture.sessionB?: "B"
        case let other?: other.rawValue
        case nil: "-"
        }
    }

    static func state(_ machine: ReaderOwnershipStateMachine) -> String {
        let link: String
        switch machine.link {
        case .unknown: link = "unknown"
        case .offline(let epoch): link = "off\(epoch)"
        case .online(let epoch): link = "on\(epoch)"
        }
        let command = machine.commandInProgress.map { "\($0.command == .collectPaymentMethod ? "collect" : "confirm")/\(name($0.session))" } ?? "-"
        return "\(link) \(name(machine.owner?.session)) g\(machine.generation) \(command)"
    }

    static func result(_ result: ConnectResult) -> String {
        switch result {
        case .granted(.connected, let generation, _): "granted connected g\(generation)"
        case .granted(.replaced(let owner), let generation, _): "granted replaced(\(name(owner.session))) g\(generation)"
        case .granted(.alreadyOwner, let generation, _): "granted already g\(generation)"
        case .refused(let refusal, _): "refused \(refusal.rawValue)"
        }
    }

    static func result(_ result: CommandStartResult) -> String {
        switch result {
        case .proceed: "proceed"
        case .refused(let refusal): "refused \(refusal.rawValue)"
        }
    }

    static func result(_ result: CommandFinishResult) -> String {
        switch result {
        case .finished: "finished"
        case .ignored(nil): "ignored"
        case .ignored(let refusal?): "ignored \(refusal.rawValue)"
        }
    }

    static func result(_ result: ReleaseResult) -> String {
        switch result {
        case .released(let owner, let generation, _): "released(\(name(owner.session))) g\(generation)"
        case .unchanged(nil): "unchanged"
        case .unchanged(let refusal?): "unchanged \(refusal.rawValue)"
        case .refused(let refusal): "refused \(refusal.rawValue)"
        }
    }

    static func result(_ result: LinkEventResult) -> String {
        switch result {
        case .updated: "updated"
        case .ownerLost(let owner, let generation, _): "lost(\(name(owner.session))) g\(generation)"
        case .ignoredStale: "stale"
        case .unknownReader: "unknown"
        }
    }
}
