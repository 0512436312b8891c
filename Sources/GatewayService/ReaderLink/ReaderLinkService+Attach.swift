import Foundation
import GatewayDomain
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire

extension ReaderLinkService {
    /// A reader link that went online: what its steady state needs to serve it and end it. The
    /// connection's loop serves it (``LoopServed``): the one object an attached reader's link
    /// keeps besides its call.
    final class OnlineLink: LoopServed {
        let service: ReaderLinkService
        let reader: ReaderID
        let linkID: LinkID
        let epoch: LinkEpoch
        /// A mobile reader's link (a Bluetooth reader's, or a Tap to Pay phone's own): its device
        /// may say why it ends, received here on the connection's loop in arrival order, and the
        /// owner is kept while it reconnects (``mobileLinkEnded``); nil for other readers.
        let ending: LinkEndingReceipt?

        init(service: ReaderLinkService, reader: ReaderID, linkID: LinkID, epoch: LinkEpoch, ending: LinkEndingReceipt?) {
            self.service = service
            self.reader = reader
            self.linkID = linkID
            self.epoch = epoch
            self.ending = ending
        }

        func serve(_ bytes: [UInt8], call: ServerCall) -> Bool {
            service.serveOnline(bytes, link: self, call: call)
        }

        func requestsEnded() {
            Task { [self] in await service.onlineLinkEnded(self) }
        }
    }

    /// Takes one `ReaderLink.Attach` call from hello to online and hands it to the connection's
    /// loop (``serveOnline(_:link:call:)``), or ends it.
    func attach(requests: AsyncStream<[UInt8]>, call: ServerCall, context: CallContext) async {
        var iterator = CountingIterator(requests.makeAsyncIterator())
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
        // Going online reads no more from the stream (unless the reader must show a registration
        // code: released below): what it sends until the hand-over (heartbeats, while the store
        // is asked) waits on the loop for it.
        call.holdRequests()
        let linkID = registry.linkStarted()
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
                // Not registered: it shows a code and its messages are read again.
                call.releaseHeldRequests()
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
        // Written only when the reader reports something new (the attach itself records when it
        // was last seen): a reconnect storm of unchanged readers writes nothing here.
        let reportsNew = record.softwareVersion != hello.softwareVersion || (hello.deviceType != .unspecified && record.deviceType != hello.deviceType)
        record.softwareVersion = hello.softwareVersion
        if hello.deviceType != .unspecified { record.deviceType = hello.deviceType }
        if reportsNew {
            await followUp("recording a reader's software version and device type", leaves: "admins see the older values until its next attach") {
                try await readerRecords.readerReported(record.id, softwareVersion: hello.softwareVersion, deviceType: hello.deviceType)
            }
        }
        guard let online = await goOnline(record, linkID: linkID, call: call, ipAddress: hello.ipAddress, batteryLevel: hello.batteryLevel) else { return }
        let epoch = online.epoch
        let reader = ReaderID(record.id)
        softwareStatusReported(
            reader, linkID: linkID, batteryLevel: hello.batteryLevel, version: hello.softwareVersion, batteryRecorded: online.batteryRecorded
        )
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
        registrationMailbox.finish(Gateway.readerMessage(at: registry.clock, record, link: registry.linkStatus(of: reader)))
        // From here on the link holds no task: every message is handled on the connection's
        // loop (a heartbeat costs no hop to another thread; at fleet scale the hop cost more
        // than the TLS and the decoding), and its end starts a task that records it. A
        // suspended task would keep the stack slabs of its deepest await for the link's life
        // (a serving loop's, about 4 KB per attached reader); one waiting for the hand-over
        // would hold them while a reconnect storm's handshakes keep the loops busy. A
        // Bluetooth device's ending (or a Tap to Pay phone's) is dated as it arrives.
        let ending = record.deviceType.isBluetoothReaderType || record.deviceType == .tapToPay ? LinkEndingReceipt() : nil
        let link = OnlineLink(service: self, reader: reader, linkID: linkID, epoch: epoch, ending: ending)
        // The hand-over (see ``LoopHandOver``): applied on the loop, where it finds nothing left
        // in the request stream unless a message arrived after the last read here; the link's
        // end comes after every message.
        call.handOver(LoopHandOver(requests: requests, consumed: iterator.count, server: link))
        registry.announceOwner(of: reader)
    }

    /// The request stream read by going online, counting what it read (``LoopHandOver``).
    struct CountingIterator {
        var base: AsyncStream<[UInt8]>.Iterator
        private(set) var count = 0

        init(_ base: AsyncStream<[UInt8]>.Iterator) { self.base = base }

        mutating func next() async -> [UInt8]? {
            let bytes = await base.next()
            if bytes != nil { count += 1 }
            return bytes
        }
    }

    /// One message of an online link (on the loop, or read from the stream before the
    /// hand-over): heartbeats, command results, update progress and a mobile device's ending;
    /// empty messages (wake-ups) and a second hello are ignored; one that does not decode
    /// ends the call (false: read no more).
    @discardableResult
    func serveOnline(_ bytes: [UInt8], link: OnlineLink, call: ServerCall) -> Bool {
        guard !bytes.isEmpty else { return true }
        if let heartbeat = Self.onlyHeartbeat(in: bytes) {
            guard let heartbeat else {
                call.end(ServiceError(.malformedMessage, "a ReaderUplink message did not decode").status)
                return false
            }
            heartbeatReceived(heartbeat, reader: link.reader, linkID: link.linkID)
            return true
        }
        guard let uplink = try? ReaderGatewayV1.ReaderUplink(serializedBytes: bytes) else {
            call.end(ServiceError(.malformedMessage, "a ReaderUplink message did not decode").status)
            return false
        }
        switch uplink.message {
        case .heartbeat?, .commandResult?, .updateProgress?:
            uplinkReceived(uplink, reader: link.reader, linkID: link.linkID)
        case .linkEnding(let said)?:
            link.ending?.receive(said, at: configuration.clock.date)
        case .hello?, nil:
            break
        }
        return true
    }

    /// A `ReaderUplink` that is one heartbeat field and nothing else (what a reader sends
    /// every few seconds), decoded as the heartbeat alone: `.some(nil)` when that heartbeat
    /// does not decode; nil for any other message (decode it whole). Decoding the uplink
    /// whole moves its largest case (a hello) around for every heartbeat.
    static func onlyHeartbeat(in bytes: [UInt8]) -> ReaderGatewayV1.ReaderHeartbeat?? {
        // Field 2, length-delimited, a one-byte length: the whole message.
        guard bytes.count >= 2, bytes[0] == 0x12, bytes[1] < 0x80, Int(bytes[1]) == bytes.count - 2 else { return nil }
        return .some(bytes.withUnsafeBytes { buffer in
            try? ReaderGatewayV1.ReaderHeartbeat(serializedBytes: UnsafeRawBufferPointer(rebasing: buffer[2...]))
        })
    }

    /// The online link's requests ended (the reader closed it, the connection was lost, the
    /// call was ended here): the reader is offline, unless a newer link took over.
    func onlineLinkEnded(_ link: OnlineLink) async {
        if let ending = link.ending {
            await mobileLinkEnded(link.reader, linkID: link.linkID, epoch: link.epoch, ending: ending.taken)
        } else {
            await linkEnded(link.reader, linkID: link.linkID, epoch: link.epoch)
        }
    }

    /// A registered reader's identity: its credential, or its serial proven by
    /// a reader-CA certificate. Nil: not registered yet (registration code flow).
    func authenticate(_ hello: ReaderGatewayV1.ReaderHello, serial: String, context: CallContext) async throws(ServiceError) -> ReaderRecord? {
        let proven = context.verifiedClientIdentity?.uppercased()
        if !hello.readerCredential.isEmpty {
            let found: ReaderRecord?
            do { found = try await credentials.reader(credential: hello.readerCredential) } catch { throw ServiceError.store(error) }
            guard let found, found.serial == serial else {
                throw ServiceError(.readerCredentialInvalid, "the reader credential is unknown or revoked; clear it and register the reader again")
            }
            return found
        }
        if let proven, proven != serial {
            throw ServiceError(.serialNotProven, "the client certificate proves serial \(proven), not \(serial)")
        }
        let found: ReaderRecord?
        do { found = try await serialLookups.record(serial: serial) } catch { throw ServiceError.store(error) }
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
        linkID: LinkID,
        call: ServerCall,
        mailbox: RegistrationMailbox,
        requests: inout CountingIterator
    ) async -> CodeRegistration? {
        var code = ""
        func issueCode() async {
            let fresh = RegistrationCode.generate().canonical
            let lifetime = configuration.registrationCodeLifetime
            let previous = code
            registry.registrationCodeIssued(
                fresh, replacing: previous.isEmpty ? nil : previous, link: linkID, serial: serial, expires: configuration.clock.now + lifetime
            ) { record, credential in
                await mailbox.deliver(record, credential: credential, wake: { call.wake() })
            }
            code = fresh
            // Shared with every replica: an admin may type the code on any of them.
            do {
                try await codes.insertRegistrationCode(
                    fresh, replacing: previous.isEmpty ? nil : previous, serial: serial, deviceType: hello.deviceType,
                    softwareVersion: hello.softwareVersion, node: node.id, lifetime: lifetime
                )
            } catch {
                logger.warning("could not share a registration code with the other replicas", ["serial": serial, "error": error])
            }
            var registration = ReaderGatewayV1.RegistrationState()
            registration.registrationCode = String(fresh.prefix(4)) + "-" + String(fresh.suffix(4))
            registration.registrationCodeExpiresUnixMs = configuration.clock.nowUnixMs + Int64(lifetime.seconds * 1000)
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
            let expired = registry.registrationExpired(code, now: configuration.clock.now)
            if expired { await issueCode() }
        }
        let last = code
        registry.registrationWithdrawn(last, link: linkID)
        if registered == nil {
            await followUp("withdrawing the registration code of a reader that left", leaves: "the code expires by itself") {
                try await codes.deleteRegistrationCode(last)
            }
        }
        return registered
    }

    /// Puts the reader's link in the registry. A second link from the same
    /// reader replaces the first (which ends with READER_LINK_REPLACED) and the
    /// owner keeps the reader; otherwise the store records the attach, with the hello's
    /// battery level (`batteryRecorded`: the link's first level needs no write of its own).
    func goOnline(
        _ record: ReaderRecord, linkID: LinkID, call: ServerCall, ipAddress: String, batteryLevel: Float?
    ) async -> (epoch: LinkEpoch, batteryRecorded: Bool)? {
        let reader = ReaderID(record.id)
        let described = Gateway.describedReader(record)
        let status = LinkStatus(ipAddress: ipAddress, batteryLevel: batteryLevel, softwareVersion: record.softwareVersion)
        if let epoch = registry.linkReattached(reader, link: linkID, call: call, described: described, status: status) {
            return (epoch, false)
        }
        // An attach keeps the owner: only the new epoch matters here.
        let attached: OwnershipAttachBatcher.Attached
        do {
            attached = try await attaches.readerAttached(reader, node: node.id, battery: OwnershipAttachBatcher.BatteryReport(level: batteryLevel))
        } catch {
            call.end(ServiceError.store(error).status)
            return nil
        }
        guard let epoch = attached.epoch else {
            call.end(ServiceError(.readerNotFound, "the reader is no longer registered").status)
            return nil
        }
        // A later link of the reader, recorded after this one, may already be live here: then
        // this link was ended as replaced and goes no further.
        guard registry.linkAttached(reader, link: linkID, call: call, epoch: epoch, described: described, status: status) else { return nil }
        metrics.readersOnline.unlabeled.increment()
        return (epoch, attached.batteryRecorded)
    }

    func uplinkReceived(_ message: ReaderGatewayV1.ReaderUplink, reader: ReaderID, linkID: LinkID) {
        switch message.message {
        case .heartbeat(let heartbeat):
            heartbeatReceived(heartbeat, reader: reader, linkID: linkID)
        case .commandResult(let result):
            registry.commandAnswered(result, reader: reader, link: linkID)
        case .updateProgress(let progress):
            let nowUnixMs = configuration.clock.nowUnixMs
            registry.updateProgress(reader, progress: progress.progress, nowUnixMs: nowUnixMs)
        case .hello, .linkEnding, nil:
            break
        }
    }

    /// A heartbeat: the link's silence restarts, a changed status goes to the owner (here, or
    /// announced to the replicas), the software version and battery level as
    /// ``softwareStatusReported(_:linkID:batteryLevel:version:)`` says.
    func heartbeatReceived(_ heartbeat: ReaderGatewayV1.ReaderHeartbeat, reader: ReaderID, linkID: LinkID) {
        let now = configuration.clock.now
        let nowUnixMs = configuration.clock.nowUnixMs
        let announced = registry.heartbeat(
            reader, link: linkID, activity: heartbeat.activity, batteryLevel: heartbeat.batteryLevel, ipAddress: heartbeat.ipAddress,
            now: now, nowUnixMs: nowUnixMs
        )
        if let status = announced {
            let notice = ReaderStatusNotice(reader: reader, activity: status.activity, batteryLevel: status.batteryLevel, ipAddress: status.ipAddress)
            Task { await follower.announce(notice) }
        }
        softwareStatusReported(reader, linkID: linkID, batteryLevel: heartbeat.batteryLevel, version: heartbeat.softwareVersion)
    }

    /// The link ended (reader closed it, connection lost, heartbeat timeout):
    /// unless a newer link took over, the reader is offline and its owner is told. The call
    /// ends with READER_OFFLINE, or OK when `orderly` (a mobile reader's device ended it
    /// saying why).
    func linkEnded(_ reader: ReaderID, linkID: LinkID, epoch: LinkEpoch, orderly: Bool = false) async {
        guard let ended = registry.linkEnded(reader, link: linkID, orderly: orderly) else { return }
        updates.linkEnded(reader)
        defer { if ended.rebootRequested { registry.rebootReported(reader) } }
        metrics.readersOnline.unlabeled.decrement()
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
            let reason: ReaderGatewayV1.DisconnectReason = ended.rebootRequested ? .rebootRequested : .readerLost
            let nowUnixMs = configuration.clock.nowUnixMs
            registry.ownershipDecided(reader, generation: generation, actions: actions, reason: reason, nowUnixMs: nowUnixMs)
        }
    }
}
