import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import GatewayWire

/// Tap to Pay: the point-of-sale device is its own reader. Discovery checks the device
/// against the supported list; connect registers the device's reader to the location,
/// accepts the account's terms once (on any device), and admits the account on the device
/// under the 3-accounts-per-24-hours rule, which PostgreSQL decides in one statement, and
/// issues the reader's credential: the device attaches its reader's link with it on its own
/// connection and connects to it as to any reader (only its own sessions discover it).
extension SDKMobile {
    func discoverTapToPayReader(_ request: ReaderGatewayV1.DiscoverTapToPayReaderRequest, _ context: CallContext) async throws(ServiceError) -> ReaderGatewayV1.DiscoverTapToPayReaderResponse {
        let session = try await lookup.session(request.sessionToken, context)
        try Self.checkTapToPaySupport(request.device)
        let serial = TapToPayStore.serial(posDeviceID: session.posDeviceID)
        let record: ReaderRecord?
        do { record = try await readerRecords.reader(serial: serial) } catch { throw ServiceError.store(error) }
        var reader = ReaderGatewayV1.Reader()
        if let record, record.accountID == session.accountID {
            reader = Gateway.describedReader(record)
        } else {
            reader.serialNumber = serial
            reader.deviceType = .tapToPay
        }
        var response = ReaderGatewayV1.DiscoverTapToPayReaderResponse()
        response.reader = reader
        return response
    }

    func connectTapToPayReader(_ request: ReaderGatewayV1.ConnectTapToPayReaderRequest, _ context: CallContext) async throws(ServiceError) -> ReaderGatewayV1.ConnectTapToPayReaderResponse {
        let session = try await lookup.session(request.sessionToken, context)
        try Self.checkTapToPaySupport(request.device)
        guard !request.locationID.isEmpty else {
            throw ServiceError(.locationRequired, "location_id is empty; a Tap to Pay reader is registered to a location at connect: pass the location's id")
        }
        if let scope = session.locationScope, scope != request.locationID {
            throw ServiceError(.permissionDenied, "this session's connection token is limited to another location; mint a token for this location")
        }
        if let current = session.reader {
            // Its own phone's reader may be connected again (a reconnect); any other may not.
            let record: ReaderRecord?
            do { record = try await readerRecords.reader(current.rawValue, account: session.accountID) } catch { throw ServiceError.store(error) }
            guard record?.serial == TapToPayStore.serial(posDeviceID: session.posDeviceID) else {
                throw ServiceError(.alreadyConnectedToReader, "this session is already connected to reader \(current.rawValue); disconnect it first")
            }
        }
        let location: LocationRecord?
        do { location = try await locations.location(request.locationID, account: session.accountID) } catch { throw ServiceError.store(error) }
        guard let location else { throw ServiceError.locationNotFound }
        let store = tapToPay
        let account = TapToPayStore.accountKey(account: session.accountID, onBehalfOf: request.onBehalfOf)
        let device = session.posDeviceID
        let accepted: Bool
        do { accepted = try await store.termsAccepted(account: account) } catch { throw ServiceError.store(error) }
        guard accepted || request.tosAcceptancePermitted else {
            throw ServiceError(
                .tapToPayReaderTosAcceptanceCanceled,
                "this account has not accepted the Tap to Pay terms; connect once with tos_acceptance_permitted = true (on any device) to accept them"
            )
        }
        let admission: TapToPayAccountWindow.Admission
        do { admission = try await store.admit(device: device, account: account, now: nil) } catch { throw ServiceError.store(error) }
        let accounts: Int
        switch admission {
        case .admitted(let count):
            accounts = count
        case .blocked(let count, let retryAtMs):
            throw ServiceError(
                .tapToPayReaderMerchantBlocked,
                "this device already served \(count) other accounts in the last 24 hours (the limit is \(store.limit)); use another device, or retry after \(retryAtMs) (Unix ms)"
            )
        }
        var response = ReaderGatewayV1.ConnectTapToPayReaderResponse()
        if !accepted {
            do { response.termsAcceptedNow = try await store.acceptTerms(account: account, device: device) } catch { throw ServiceError.store(error) }
        }
        let serial = TapToPayStore.serial(posDeviceID: device)
        let credential = Secrets.readerCredential()
        let registered: ReaderRecord?
        do {
            registered = try await store.registerReader(
                serial: serial, account: session.accountID, location: location.id, label: session.lane.rawValue, credential: credential
            )
        } catch { throw ServiceError.store(error) }
        guard let registered else {
            throw ServiceError(.readerAlreadyRegistered, "serial \(serial) belongs to a reader that is not Tap to Pay; use another pos_device_id")
        }
        response.reader = Gateway.readerMessage(at: registry.clock, registered, link: registry.linkStatus(of: ReaderID(registered.id)))
        response.readerCredential = credential
        response.merchantDisplayName = request.merchantDisplayName.isEmpty ? location.displayName : request.merchantDisplayName
        response.accountsInWindow = UInt32(accounts)
        if let setup = try await deviceSetupNeeded(device: device, request.device) { response.deviceSetup = setup }
        return response
    }

    /// Fails with TAP_TO_PAY_UNSUPPORTED_DEVICE unless `device` is on the supported list.
    static func checkTapToPaySupport(_ device: ReaderGatewayV1.TapToPayDevice?) throws(ServiceError) {
        let model = device?.model ?? ""
        let version = device?.osVersion ?? ""
        switch TapToPayDeviceSupport.standard.check(model: model, osVersion: version) {
        case .supported:
            return
        case .unsupportedModel(let model):
            throw ServiceError(
                .tapToPayUnsupportedDevice,
                "model \(model.debugDescription) cannot take Tap to Pay payments; use an iPhone XS (iPhone11,2) or later"
            )
        case .unsupportedOSVersion(let version, let minimum):
            throw ServiceError(
                .tapToPayUnsupportedDevice,
                "operating system \(version.debugDescription) is too old for Tap to Pay; update the device to \(minimum) or later"
            )
        }
    }
}
