import GatewayDomain
import GatewayPostgres
import GatewayRegistry
import GatewayRepositories
import GatewayWire

extension FleetAdminService {
    /// Registers the reader showing `request.registrationCode`; the reader is told
    /// at once on its link and receives its credential there. `audit` gives the audit row
    /// the reader's insert writes (when the insert is undone, because the reader went offline,
    /// the refusal's row follows it).
    func registerByCode(
        _ request: ReaderGatewayV1.RegisterReaderRequest, access: AdminAccess, audit: (ReaderRecord) -> AuditEntry
    ) async throws(ServiceError) -> ReaderGatewayV1.Reader {
        let account = access.account
        let code: RegistrationCode
        do { code = try RegistrationCode(typed: request.registrationCode) } catch {
            throw ServiceError(.registrationCodeInvalid, "the registration code is not valid: \(error.message)")
        }
        guard let location = try await checkedLocation(request.locationID, access: access) else {
            throw ServiceError.invalid("location_id is empty; register the reader to a location")
        }
        // Take the code (single use across the cluster): a second registration finds nothing.
        let pending: PendingCodeRecord?
        do { pending = try await codes.takeRegistrationCode(code.canonical) } catch { throw ServiceError.store(error) }
        guard let pending else {
            throw ServiceError(.registrationCodeInvalid, "the registration code is unknown, expired or already used; read the code the reader shows now")
        }
        let credential = Secrets.readerCredential()
        let record = ReaderRecord(
            id: Secrets.readerID(), accountID: account, serial: pending.serial,
            label: request.label.isEmpty ? pending.serial : request.label,
            deviceType: pending.deviceType, softwareVersion: pending.softwareVersion, locationID: location, lastSeen: nil
        )
        do { try await registrations.insertReader(record, credential: credential, audit: audit(record)) } catch {
            if error.code == .uniqueViolation {
                throw ServiceError(.readerAlreadyRegistered, "a reader with serial \(pending.serial) is already registered; delete it first to register it again")
            }
            throw ServiceError.store(error)
        }
        guard let online = await tellRegistered(record, code: code.canonical, credential: credential, node: pending.node) else {
            // Nobody could hand the reader its credential: undo, so it can be registered again.
            await followUp("undoing the registration of a reader that went offline", leaves: "the reader stays registered without a credential; delete it before registering it again") {
                try await registrations.deleteReader(record.id, account: account, audit: nil)
            }
            throw ServiceError(.registrationCodeInvalid, "the reader showing this code went offline; read the code it shows when it is back")
        }
        return online
    }

    /// Hands the new reader its credential on the link showing `code` (here, or on
    /// the replica `node` over the replica link) and returns the reader as it is once
    /// that link is online: its live status, not the row just written. Nil when no
    /// link took it.
    func tellRegistered(_ record: ReaderRecord, code: String, credential: String, node owner: String) async -> ReaderGatewayV1.Reader? {
        if owner == node.id {
            guard let local = registry.registrationTaken(code) else { return nil }
            return await local.handler(record, credential)
        }
        var request = ReaderGatewayV1.CompleteRegistrationRequest()
        request.registrationCode = code
        request.readerID = record.id
        request.readerCredential = credential
        let response: ReaderGatewayV1.CompleteRegistrationResponse
        do {
            guard let peer = try await cluster.nodes().first(where: { $0.id == owner }) else { return nil }
            let channel = try await replicas.channel(to: peer.internalAddress)
            response = try await channel.unary(ReaderGatewayV1.ReplicaLink.completeRegistration, request, timeout: .seconds(10))
        } catch {
            logger.warning("could not hand a registration to the reader's replica", ["node": owner, "error": "\(error)"])
            return nil
        }
        guard response.delivered else { return nil }
        if let reader = response.reader { return reader }
        // A replica of an older version says only that it delivered: read the row.
        let stored = await followUp("reading a reader registered on another replica", leaves: "the answer shows the reader as registered, without its live status") {
            try await readerMessage(record.id, account: record.accountID)
        }
        return stored ?? Gateway.readerMessage(at: registry.clock, record, link: nil)
    }

    /// Registers readers by serial number, labelled "<prefix> 1", "<prefix> 2", ..., with the
    /// audit row `audit` gives for them written in the inserts' transaction.
    func registerBySerial(
        _ request: ReaderGatewayV1.RegisterReadersBySerialRequest, access: AdminAccess, audit: ([ReaderRecord]) -> AuditEntry
    ) async throws(ServiceError) -> [ReaderGatewayV1.Reader] {
        let account = access.account
        let parsed: SerialRegistrationRequest
        do {
            parsed = try SerialRegistrationRequest(serials: request.serialNumbers, labelPrefix: request.labelPrefix.isEmpty ? nil : request.labelPrefix)
        } catch {
            throw ServiceError.invalid(error.message)
        }
        guard let location = try await checkedLocation(request.locationID, access: access) else {
            throw ServiceError.invalid("location_id is empty; register the readers to a location")
        }
        let records = parsed.entries.map { entry in
            ReaderRecord(
                id: Secrets.readerID(), accountID: account, serial: entry.serial, label: entry.label ?? entry.serial,
                deviceType: request.deviceType, softwareVersion: "", locationID: location, lastSeen: nil
            )
        }
        do { try await registrations.insertReaders(records, audit: audit(records)) } catch let error as StoreError {
            if error.code == .uniqueViolation {
                throw ServiceError(.readerAlreadyRegistered, "one of the serial numbers is already registered; nothing was registered: \(error.message)")
            }
            throw ServiceError.store(error)
        } catch {
            throw ServiceError.store(error)
        }
        return records.map { Gateway.readerMessage(at: registry.clock, $0, link: nil) }
    }
}
