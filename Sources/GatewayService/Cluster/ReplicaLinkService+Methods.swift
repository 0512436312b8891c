import GatewayDomain
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire

extension ReplicaLinkService {
    // The methods of the internal listener (replica-to-replica, mutual TLS).

    var relayCommand: ReplicaLinkRoute.RelayCommand {
        .task { [self] request, context throws(ServiceError) in
            try await relayFromReplica(request, context)
        }
    }

    var completeRegistration: ReplicaLinkRoute.CompleteRegistration {
        .task { [self] request, context throws(ServiceError) in
            try await completeRegistrationFromReplica(request, context)
        }
    }

    /// Every replica call carries the internal CA's client certificate (the
    /// listener requires it); a call without one is refused all the same.
    private func requireReplica(_ context: CallContext) throws(ServiceError) {
        guard context.verifiedClientIdentity != nil else {
            throw ServiceError(.notAReplica, "replica link calls need a client certificate from the cluster's internal CA")
        }
    }

    /// A command from a session on another replica for a reader whose link is
    /// here: fenced by the link's epoch and the newest generation seen here.
    func relayFromReplica(_ request: ReaderGatewayV1.RelayCommandRequest, _ context: CallContext) async throws(ServiceError) -> ReaderGatewayV1.RelayCommandResponse {
        try requireReplica(context)
        guard let command = request.command?.command else { throw ServiceError.invalid("RelayCommand carries no command") }
        let reader = ReaderID(request.readerID)
        let generation = OwnershipGeneration(Int64(clamping: request.generation))
        switch registry.replicaRelayRequested(reader, epoch: LinkEpoch(Int64(clamping: request.linkEpoch)), generation: generation) {
        case .linkMoved: throw ServiceError(.readerLinkMoved, "this replica does not hold the reader's link of epoch \(request.linkEpoch)")
        case .staleGeneration: throw ServiceError.refusal(.connectedToAnotherSession)
        case .accepted: break
        }
        let isCollect = if case .collectPaymentMethod = command { true } else { false }
        let outcome = await registry.relay(command, to: reader, session: SessionID(request.sessionID), isCollect: isCollect, reboot: request.reboot)
        switch outcome {
        case .answered(let result):
            var response = ReaderGatewayV1.RelayCommandResponse()
            response.result = result
            return response
        case .failed(let error):
            throw error
        }
    }

    /// An admin on another replica registered a code a reader here shows.
    func completeRegistrationFromReplica(
        _ request: ReaderGatewayV1.CompleteRegistrationRequest, _ context: CallContext
    ) async throws(ServiceError) -> ReaderGatewayV1.CompleteRegistrationResponse {
        try requireReplica(context)
        var response = ReaderGatewayV1.CompleteRegistrationResponse()
        let record: ReaderRecord?
        do { record = try await credentials.reader(credential: request.readerCredential) } catch { throw ServiceError.store(error) }
        guard let record, record.id == request.readerID else {
            throw ServiceError(.registrationCodeInvalid, "no reader was registered with this credential")
        }
        guard let pending = registry.registrationTaken(request.registrationCode), pending.serial == record.serial else { return response }
        // Answered once the link is online here, with the reader's live status.
        guard let online = await pending.handler(record, request.readerCredential) else { return response }
        response.delivered = true
        response.reader = online
        return response
    }
}
