import Foundation
import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import GatewayWire

extension Gateway {
    /// Serves one `ReaderLink.Attach` call from hello to the end of the link.
    func attach(requests: AsyncStream<[UInt8]>, call: ServerCall, context: CallContext) async {
        var iterator = requests.makeAsyncIterator()
        guard let first = await iterator.next(),
              let uplink = try? ReaderGatewayV1.ReaderUplink(serializedBytes: first),
              case .hello(let hello)? = uplink.message
        else {
            call.end(ServiceError.invalid("the first message of Attach must be a ReaderHello").status)
            return
        }
        let serial = hello.serialNumber.trimmingCharacters(in: .whitespaces).uppercased()
        do {
            try SerialRegistrationRequest.validate(serial: serial)
        } catch {
            call.end(ServiceError.invalid(error.message).status)
            return
        }
        let linkID = state.withLock { state -> UInt64 in
            defer { state.nextLinkID += 1 }
            return state.nextLinkID
        }
        var record: ReaderRecord
        var issuedCredential: String?
        // Registration by code: the admin's call waits here until the link is online (or gone).
        let registrationMailbox = RegistrationMailbox()
        defer { registrationMailbox.finish(nil) }
        var heartbeatBeforeRegistration: ReaderGatewayV1.ReaderHeartbeat?
        do {
            if let found = try await authenticate(hello, serial: serial, context: context) {
                record = found
            } else {
                guard let registered = await waitForRegistration(
                    hello, serial: serial, linkID: linkID, call: call, mailbox: registrationMailbox, requests: &iterator
                ) else {
                    call.end()
                    return
                }
                record = registered.record
                issuedCredential = registered.credential
                heartbeatBeforeRegistration = registered.lastHeartbeat
            }
        } catch {
            call.end(error.status)
            return
        }
        record.softwareVersion = hello.softwareVersion
        if hello.deviceType != .unspecified { record.deviceType = hello.deviceType }
        try? await database.readerReported(record.id, softwareVersion: hello.softwareVersion, deviceType: hello.deviceType)
        guard let epoch = await goOnline(record, linkID: linkID, call: call, ipAddress: hello.ipAddress) else { return }
        let reader = ReaderID(record.id)
        if let heartbeat = heartbeatBeforeRegistration {
            // What the reader reported while it showed its code is its status now.
            var uplink = ReaderGatewayV1.ReaderUplink()
            uplink.message = .heartbeat(heartbeat)
            uplinkReceived(uplink, reader: reader, linkID: linkID)
        }
        var registration = ReaderGatewayV1.RegistrationState()
        registration.registered = true
        registration.readerID = record.id
        registration.label = record.label
        registration.locationID = record.locationID ?? ""
        registration.readerCredential = issuedCredential ?? ""
        var downlink = ReaderGatewayV1.ReaderDownlink()
        downlink.message = .registration(registration)
        call.send(downlink)
        // The admin who registered the code hears the reader as it is now: online.
        registrationMailbox.finish(state.withLock { Gateway.readerMessage(record, link: $0.links[reader]) })
        // Command results are matched on the link's loop, without waking this task.
        call.interceptMessages { [self] bytes in
            guard let uplink = try? ReaderGatewayV1.ReaderUplink(serializedBytes: bytes),
                  case .commandResult(let result)? = uplink.message
            else { return false }
            commandResultReceived(result, reader: reader, linkID: linkID)
            return true
        }
        if let owner = state.withLock({ $0.owner(of: reader) }) {
            tellOwner(reader, lane: owner.lane.rawValue, generation: owner.generation)
        }
        while let bytes = await iterator.next() {
            guard !bytes.isEmpty else { continue }
            guard let message = try? ReaderGatewayV1.ReaderUplink(serializedBytes: bytes) else {
                call.end(ServiceError(.malformedMessage, "a ReaderUplink message did not decode").status)
                break
            }
            uplinkReceived(message, reader: reader, linkID: linkID)
        }
        await linkEnded(reader, linkID: linkID, epoch: epoch)
    }

    /// A registered reader's identity: its credential, or its serial proven by
    /// a reader-CA certificate. Nil: not registered yet (registration code flow).
    func authenticate(_ hello: ReaderGatewayV1.ReaderHello, serial: String, context: CallContext) async throws(ServiceError) -> ReaderRecord? {
        let proven = context.verifiedClientIdentity?.uppercased()
        if !hello.readerCredential.isEmpty {
            let found: ReaderRecord?
            do { found = try await database.reader(credential: hello.readerCredential) } catch { throw ServiceError.store(error) }
            guard let found, found.serial == serial else {
                throw ServiceError(.readerCredentialInvalid, "the reader credential is unknown or revoked; clear it and register the reader again")
            }
            return found
        }
        if let proven, proven != serial {
            throw ServiceError(.serialNotProven, "the client certificate proves serial \(proven), not \(serial)")
        }
        let found: ReaderRecord?
        do { found = try await database.reader(serial: serial) } catch { throw ServiceError.store(error) }
        guard let found else { return nil }
        guard proven == serial else {
            throw ServiceError(
                .serialNotProven,
                "serial \(serial) is registered; prove it with a client certificate from the reader CA (or present the reader credential)"
            )
        }
        return found
    }

    /// What an admin's registration gave a reader that showed a code.
    struct CodeRegistration {
        var record: ReaderRecord
        var credential: String
        /// The last heartbeat the reader sent while it showed its code.
        var lastHeartbeat: ReaderGatewayV1.ReaderHeartbeat?
    }

    /// Shows registration codes until an admin registers one through `mailbox`
    /// (returns the reader and its new credential) or the link ends (nil).
    func waitForRegistration(
        _ hello: ReaderGatewayV1.ReaderHello,
        serial: String,
        linkID: UInt64,
        call: ServerCall,
        mailbox: RegistrationMailbox,
        requests: inout AsyncStream<[UInt8]>.Iterator
    ) async -> CodeRegistration? {
        var code = ""
        func issueCode() async {
            let fresh = RegistrationCode.generate().canonical
            let lifetime = configuration.registrationCodeLifetime
            let previous = code
            state.withLock { state in
                if !previous.isEmpty { state.registrations[previous] = nil }
                state.registrations[fresh] = PendingRegistration(
                    linkID: linkID, serial: serial, deviceType: hello.deviceType, softwareVersion: hello.softwareVersion,
                    expires: .now + lifetime, registered: { record, credential in
                        await mailbox.deliver(record, credential: credential, wake: { call.wake() })
                    }
                )
            }
            code = fresh
            // Shared with every replica: an admin may type the code on any of them.
            do {
                try await database.insertRegistrationCode(
                    fresh, replacing: previous.isEmpty ? nil : previous, serial: serial, deviceType: hello.deviceType,
                    softwareVersion: hello.softwareVersion, node: node.id, lifetime: lifetime
                )
            } catch {
                logger.warning("could not share a registration code with the other replicas", ["serial": serial, "error": error])
            }
            var registration = ReaderGatewayV1.RegistrationState()
            registration.registrationCode = String(fresh.prefix(4)) + "-" + String(fresh.suffix(4))
            registration.registrationCodeExpiresUnixMs = Gateway.nowUnixMs() + Int64(lifetime.seconds * 1000)
            var downlink = ReaderGatewayV1.ReaderDownlink()
            downlink.message = .registration(registration)
            call.send(downlink)
            Task {
                try? await Task.sleep(for: lifetime)
                call.wake()
            }
        }
        await issueCode()
        var registered: CodeRegistration?
        var lastHeartbeat: ReaderGatewayV1.ReaderHeartbeat?
        // Heartbeats before registration are kept for the status once online; empty
        // messages are wake-ups.
        while let bytes = await requests.next() {
            if !bytes.isEmpty, let uplink = try? ReaderGatewayV1.ReaderUplink(serializedBytes: bytes), case .heartbeat(let heartbeat)? = uplink.message {
                lastHeartbeat = heartbeat
            }
            if let (record, credential) = mailbox.take() {
                registered = CodeRegistration(record: record, credential: credential, lastHeartbeat: lastHeartbeat)
                break
            }
            let expired = state.withLock { $0.registrations[code].map { $0.expires <= .now } ?? false }
            if expired { await issueCode() }
        }
        let last = code
        state.withLock { _ = $0.registrations.removeValue(forKey: last) }
        if registered == nil { try? await database.deleteRegistrationCode(last) }
        return registered
    }

    /// Puts the reader's link in the registry. A second link from the same
    /// reader replaces the first (which ends with READER_LINK_REPLACED) and the
    /// owner keeps the reader; otherwise the store records the attach.
    func goOnline(_ record: ReaderRecord, linkID: UInt64, call: ServerCall, ipAddress: String) async -> LinkEpoch? {
        let reader = ReaderID(record.id)
        let replaced = state.withLock { state -> ReaderLinkState? in
            guard var existing = state.links[reader] else { return nil }
            let old = existing
            existing.linkID = linkID
            existing.call = call
            existing.record = record
            existing.ipAddress = ipAddress
            existing.lastHeartbeat = .now
            existing.pending = [:]
            state.links[reader] = existing
            return old
        }
        if let replaced {
            for pending in replaced.pending.values {
                pending.complete(.failed(ServiceError(.readerOffline, "the reader re-attached while the command ran; retry it")))
            }
            replaced.call.end(ServiceError(.readerLinkReplaced, "a newer link from the same reader replaced this one").status)
            return replaced.epoch
        }
        // An attach keeps the owner: only the new epoch matters here.
        let attachedEpoch: LinkEpoch?
        do { attachedEpoch = try await ownership.readerAttached(reader, node: node.id).1 } catch {
            call.end(ServiceError.store(error).status)
            return nil
        }
        guard let epoch = attachedEpoch else {
            call.end(ServiceError(.readerNotFound, "the reader is no longer registered").status)
            return nil
        }
        let link = ReaderLinkState(linkID: linkID, call: call, epoch: epoch, record: record, ipAddress: ipAddress, lastHeartbeat: .now)
        let displaced = state.withLock { state -> ReaderLinkState? in
            let previous = state.links[reader]
            state.links[reader] = link
            return previous
        }
        if let displaced { displaced.call.end(ServiceError(.readerLinkReplaced, "a newer link from the same reader replaced this one").status) }
        metrics.readersOnline.unlabeled.increment()
        return epoch
    }

    func uplinkReceived(_ message: ReaderGatewayV1.ReaderUplink, reader: ReaderID, linkID: UInt64) {
        switch message.message {
        case .heartbeat(let heartbeat):
            let remote = state.withLock { state -> ReaderStatusNotice? in
                guard var link = state.links[reader], link.linkID == linkID else { return nil }
                let changed = link.activity != heartbeat.activity || link.batteryLevel != heartbeat.batteryLevel || link.ipAddress != heartbeat.ipAddress
                link.lastHeartbeat = .now
                if heartbeat.activity != .unspecified { link.activity = heartbeat.activity }
                link.batteryLevel = heartbeat.batteryLevel
                if !heartbeat.ipAddress.isEmpty { link.ipAddress = heartbeat.ipAddress }
                state.links[reader] = link
                guard changed else { return nil }
                guard let owner = state.owner(of: reader) else {
                    // The owner, if the reader has ever had one (its generation moved on), is
                    // on another replica: announce it.
                    guard link.knownGeneration > .initial else { return nil }
                    return ReaderStatusNotice(reader: reader, activity: link.activity, batteryLevel: link.batteryLevel, ipAddress: link.ipAddress)
                }
                var status = ReaderGatewayV1.ReaderStatusChanged()
                status.reader = Gateway.readerMessage(link.record, link: link)
                _ = state.withSession(id: owner.id) { Gateway.deliver(.readerStatusChanged(status), to: &$0) }
                return nil
            }
            if let remote { Task { await announce(remote) } }
        case .commandResult(let result):
            commandResultReceived(result, reader: reader, linkID: linkID)
        case .updateProgress(let progress):
            state.withLock { state in
                guard let owner = state.owner(of: reader) else { return }
                var update = ReaderGatewayV1.UpdateProgress()
                update.readerID = reader.rawValue
                update.progress = progress.progress
                _ = state.withSession(id: owner.id) { Gateway.deliver(.updateProgress(update), to: &$0) }
            }
        case .hello, nil:
            break
        }
    }

    /// The link ended (reader closed it, connection lost, heartbeat timeout):
    /// unless a newer link took over, the reader is offline and its owner is told.
    func linkEnded(_ reader: ReaderID, linkID: UInt64, epoch: LinkEpoch) async {
        let ended = state.withLock { state -> ReaderLinkState? in
            guard let link = state.links[reader], link.linkID == linkID else { return nil }
            state.links[reader] = nil
            if link.rebootRequested { state.rebootingReaders.insert(reader) }
            return link
        }
        guard let ended else { return }
        defer { if ended.rebootRequested { state.withLock { _ = $0.rebootingReaders.remove(reader) } } }
        metrics.readersOnline.unlabeled.decrement()
        ended.call.end(ServiceError(.readerOffline, "the reader link ended").status)
        for pending in ended.pending.values {
            pending.complete(.failed(ServiceError.refusal(.readerOffline)))
        }
        if handingOver.load(ordering: .relaxed) {
            // Draining: the reader re-attaches to another replica and its owner keeps it,
            // unless it does not come back within the offline bound.
            do { _ = try await ownership.readerDetached(reader, epoch: epoch) } catch {
                logger.warning("could not record a handed-over reader link", ["reader": reader, "error": error])
            }
            return
        }
        let result: LinkEventResult
        do { result = try await ownership.readerLost(reader, epoch: epoch) } catch {
            logger.error("could not record a lost reader", ["reader": reader, "error": error])
            return
        }
        if case .ownerLost(_, let generation, let actions) = result {
            run(actions, reader: reader, generation: generation, reason: ended.rebootRequested ? .rebootRequested : .readerLost)
        }
    }

    /// Restarts every link's offline bound from now (after this process was paused).
    func forgiveReaderSilence() {
        state.withLock { state in
            for reader in state.links.keys { state.links[reader]?.lastHeartbeat = .now }
        }
    }

    /// Ends links whose reader stopped heartbeating (the sweeper calls it).
    func expireSilentReaders() {
        let bound = configuration.readerOfflineBound - configuration.sweepInterval
        let silent = state.withLock { state in
            state.links.values.filter { ContinuousClock.now - $0.lastHeartbeat > bound }.map(\.call)
        }
        for call in silent {
            call.end(ServiceError(.readerOffline, "no heartbeat within the offline bound; reattach").status)
        }
    }
}
