import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import GatewayWire

/// Bluetooth readers: the point-of-sale device found and paired with the reader over
/// Bluetooth; the gateway registers it to the location at connect (no pre-registration),
/// bonds it to the device (another device is refused while this one holds it) and issues the
/// reader's credential. The device attaches the reader's link with it on its own connection
/// and connects to it as to any reader (only the bonded device's sessions discover it).
extension SDKMobile {
    func connectBluetoothReader(
        _ request: ReaderGatewayV1.ConnectBluetoothReaderRequest, _ context: CallContext
    ) async throws(ServiceError) -> ReaderGatewayV1.ConnectBluetoothReaderResponse {
        let session = try await lookup.session(request.sessionToken, context)
        let serial = request.serialNumber.trimmingCharacters(in: .whitespaces).uppercased()
        do {
            try SerialRegistrationRequest.validate(serial: serial)
        } catch {
            throw ServiceError.invalid(error.message)
        }
        guard request.deviceType.isBluetoothReaderType else {
            throw ServiceError.invalid(
                "device_type \(request.deviceType) is not a Bluetooth reader's; send BBPOS_WISEPAD3, STRIPE_M2 or BBPOS_CHIPPER2X_BT as the reader advertised it"
            )
        }
        guard !request.locationID.isEmpty else {
            throw ServiceError(.locationRequired, "location_id is empty; a Bluetooth reader is registered to a location at connect: pass the location's id")
        }
        if let scope = session.locationScope, scope != request.locationID {
            throw ServiceError(.permissionDenied, "this session's connection token is limited to another location; mint a token for this location")
        }
        let location: LocationRecord?
        do { location = try await locations.location(request.locationID, account: session.accountID) } catch { throw ServiceError.store(error) }
        guard let location else { throw ServiceError.locationNotFound }
        if let current = session.reader {
            // The same reader may be connected again (a reconnect); any other may not.
            let record: ReaderRecord?
            do { record = try await readerRecords.reader(current.rawValue, account: session.accountID) } catch { throw ServiceError.store(error) }
            guard record?.serial == serial else {
                throw ServiceError(.alreadyConnectedToReader, "this session is already connected to reader \(current.rawValue); disconnect it first")
            }
        }
        let credential = Secrets.readerCredential()
        let outcome: BluetoothStore.ConnectOutcome
        do {
            outcome = try await bluetooth.connect(
                serial: serial, deviceType: request.deviceType, softwareVersion: request.softwareVersion, account: session.accountID,
                location: location.id, label: serial, device: session.posDeviceID, credential: credential
            )
        } catch { throw ServiceError.store(error) }
        switch outcome {
        case .bondedElsewhere:
            throw BluetoothBonds.pairedWithAnotherDevice(serial)
        case .serialTaken:
            throw ServiceError(.readerAlreadyRegistered, "serial \(serial) belongs to a reader that is not a Bluetooth reader; check the serial the reader advertised")
        case .connected(let record, let rebonded):
            var response = ReaderGatewayV1.ConnectBluetoothReaderResponse()
            response.reader = Gateway.readerMessage(at: registry.clock, record, link: registry.linkStatus(of: ReaderID(record.id)))
            response.readerCredential = credential
            response.rebondedFromAnotherDevice = rebonded
            return response
        }
    }
}
