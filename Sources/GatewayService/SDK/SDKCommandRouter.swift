import GatewayDomain
import GatewayPostgres
import GatewayRPC
import GatewayRegistry
import GatewayRepositories
import GatewayWire

/// Where a session's command goes: down the reader's link when it lives on this replica,
/// else over the replica link to the replica holding it (its home).
struct SDKCommandRouter: Sendable {
    let commandTimeout: Duration
    /// Where readers' links live.
    let cluster: any ReaderHomes
    let registry: LiveRegistry
    let node: NodeIdentity
    /// Connections to the other replicas' internal listeners.
    let replicas: ReplicaChannels
    /// Re-reads the row of a reader whose home knew a newer owner.
    let follower: any OwnershipFollowing

    /// Sends a command to the reader the session owns, wherever its link lives:
    /// down the local link, or over the replica link to the reader's home.
    func route(
        _ command: ReaderGatewayV1.ReaderCommand.Command,
        to owned: ReaderRegistry.OwnedReader,
        isCollect: Bool,
        reboot: Bool,
        ticket: CollectTicket? = nil
    ) async -> CommandOutcome {
        if registry.linkStatus(of: owned.reader) != nil {
            return await registry.relay(command, to: owned.reader, session: owned.session, isCollect: isCollect, reboot: reboot, ticket: ticket)
        }
        return await relayRemote(command, to: owned, isCollect: isCollect, reboot: reboot, ticket: ticket)
    }

    /// Relays a command to the replica holding the reader's link.
    ///
    /// A refusal that certainly left the command unsent (the peer no longer
    /// holds the link, or no connection) is retried once against the home read
    /// afresh from PostgreSQL. A failure after the command may have reached the
    /// reader is never retried here: it fails with the retryable
    /// READER_LINK_MOVED, and the client decides. A collect's `ticket` is checked as it
    /// leaves: one a cancel reached first fails unsent (a later cancel follows it over the
    /// replica link, unordered with it).
    func relayRemote(
        _ command: ReaderGatewayV1.ReaderCommand.Command,
        to owned: ReaderRegistry.OwnedReader,
        isCollect: Bool,
        reboot: Bool,
        ticket: CollectTicket? = nil
    ) async -> CommandOutcome {
        let (reader, session) = (owned.reader, owned.session)
        var home = registry.home(of: session).map { ReaderHome(epoch: $0.epoch, node: $0.node, internalAddress: $0.internalAddress) }
        for attempt in 0..<2 {
            if home == nil || attempt > 0 {
                do { home = try await cluster.readerHome(reader) } catch { return .failed(.store(error)) }
            }
            guard let target = home else { return .failed(.refusal(.readerOffline)) }
            if target.node == node.id {
                // PostgreSQL says the link is here: it ended or is being replaced right now.
                guard registry.linkStatus(of: reader) != nil else { return .failed(.refusal(.readerOffline)) }
                return await registry.relay(command, to: reader, session: session, isCollect: isCollect, reboot: reboot, ticket: ticket)
            }
            if let ticket, !registry.collectLeaving(ticket) { return .failed(.collectCanceledBeforeReader) }
            var request = ReaderGatewayV1.RelayCommandRequest()
            request.readerID = reader.rawValue
            request.linkEpoch = UInt64(max(0, target.epoch.rawValue))
            request.sessionID = session.rawValue
            request.generation = UInt64(max(0, owned.generation.rawValue))
            request.command = Gateway.downlinkCommand(command, session: session, timeout: commandTimeout)
            request.reboot = reboot
            request.fromNode = node.id
            do {
                let channel = try await replicas.channel(to: target.internalAddress)
                let response = try await channel.unary(
                    ReaderGatewayV1.ReplicaLink.relayCommand, request, timeout: commandTimeout + .seconds(5)
                )
                let cached = ReaderHomeCache(epoch: target.epoch, node: target.node, internalAddress: target.internalAddress)
                registry.homeLearned(cached, session: session, reader: reader)
                return .answered(response.result ?? ReaderGatewayV1.CommandResult())
            } catch let error as RPCError {
                // Refused before it was processed: the peer no longer holds the link, or the
                // call never started there (too many streams, goaway before it began).
                if error.reason == .readerLinkMoved || error.reason == .tooManyStreams || error.reason == .goingAway {
                    registry.homeForgotten(session: session)
                    continue
                }
                if error.code == .unavailable || error.code == .deadlineExceeded {
                    registry.homeForgotten(session: session)
                    return .failed(ServiceError(
                        .readerLinkMoved,
                        "the replica holding the reader's link went away while the command ran; retry it (it may have reached the reader)",
                        cause: error.description
                    ))
                }
                if error.reason == .readerConnectedToAnotherSession {
                    // The reader's home knows a newer owner than this replica did: tell the
                    // session (event first), then fail the command with that refusal.
                    guard await follower.refresh(reader) else { return .failed(.ownershipUnconfirmed) }
                    _ = await registry.takePendingRefusal(of: session)
                }
                return .failed(ServiceError(error.reason, error.message, declineCode: error.declineCode))
            } catch {
                // Could not connect: nothing was sent. (A channel that closes or drains is
                // replaced by the next call; other calls on it are never cut short here.)
                continue
            }
        }
        return .failed(ServiceError(.readerLinkMoved, "the reader's link is moving between replicas; retry the command"))
    }
}
