import GatewayDomain
import GatewayStore
import GatewayWire

extension Gateway {
    /// Registers the reader showing `request.registrationCode`; the reader is told
    /// at once on its link and receives its credential there.
    func registerByCode(_ request: ReaderGatewayV1.RegisterReaderRequest, account: String) async throws(ServiceError) -> ReaderGatewayV1.Reader {
        let code: RegistrationCode
        do { code = try RegistrationCode(typed: request.registrationCode) } catch {
            throw ServiceError(.registrationCodeInvalid, "the registration code is not valid: \(error.message)")
        }
        guard let location = try await checkedLocation(request.locationID, account: account) else {
            throw ServiceError.invalid("location_id is empty; register the reader to a location")
        }
        // Take the code (single use): a second registration with it finds nothing.
        let pending = state.withLock { state -> PendingRegistration? in
            guard let pending = state.registrations[code.canonical], pending.expires > .now else { return nil }
            state.registrations[code.canonical] = nil
            return pending
        }
        guard let pending else {
            throw ServiceError(.registrationCodeInvalid, "the registration code is unknown, expired or already used; read the code the reader shows now")
        }
        let credential = Secrets.readerCredential()
        let record = ReaderRecord(
            id: Secrets.readerID(), accountID: account, serial: pending.serial,
            label: request.label.isEmpty ? pending.serial : request.label,
            deviceType: pending.deviceType, softwareVersion: pending.softwareVersion, locationID: location, lastSeen: nil
        )
        do { try await database.insertReader(record, credential: credential) } catch {
            if error.code == .uniqueViolation {
                throw ServiceError(.readerAlreadyRegistered, "a reader with serial \(pending.serial) is already registered; delete it first to register it again")
            }
            throw ServiceError.store(error)
        }
        pending.registered(record, credential)
        return Gateway.readerMessage(record, link: nil)
    }

    /// Registers readers by serial number, labelled "<prefix> 1", "<prefix> 2", ...
    func registerBySerial(_ request: ReaderGatewayV1.RegisterReadersBySerialRequest, account: String) async throws(ServiceError) -> [ReaderGatewayV1.Reader] {
        let parsed: SerialRegistrationRequest
        do {
            parsed = try SerialRegistrationRequest(serials: request.serialNumbers, labelPrefix: request.labelPrefix.isEmpty ? nil : request.labelPrefix)
        } catch {
            throw ServiceError.invalid(error.message)
        }
        guard let location = try await checkedLocation(request.locationID, account: account) else {
            throw ServiceError.invalid("location_id is empty; register the readers to a location")
        }
        let records = parsed.entries.map { entry in
            ReaderRecord(
                id: Secrets.readerID(), accountID: account, serial: entry.serial, label: entry.label ?? entry.serial,
                deviceType: request.deviceType, softwareVersion: "", locationID: location, lastSeen: nil
            )
        }
        do { try await database.insertReaders(records) } catch let error as StoreError {
            if error.code == .uniqueViolation {
                throw ServiceError(.readerAlreadyRegistered, "one of the serial numbers is already registered; nothing was registered: \(error.message)")
            }
            throw ServiceError.store(error)
        } catch {
            throw ServiceError.store(error)
        }
        return records.map { Gateway.readerMessage($0, link: nil) }
    }
}
