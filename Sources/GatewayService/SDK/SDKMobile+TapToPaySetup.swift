import GatewayDomain
import GatewayPostgres
import GatewayRepositories
import GatewayWire

/// Tap to Pay device setup (Stripe: "a configuration update might be required", shown as a
/// software update with progress). The gateway keeps what each device was set up for in
/// PostgreSQL, keyed by `pos_device_id`, so any replica answers the same: a connect on a
/// device that was never set up, or whose model or OS version changed since
/// (`TapToPayDeviceSetupRule`), answers with the setup to run; the device runs it while its
/// connect goes on and reports it done with `CompleteTapToPayDeviceSetup`.
extension SDKMobile {
    /// The setup `device` must run before its reader takes payments, or nil when it is set up.
    func deviceSetupNeeded(device: String, _ reported: ReaderGatewayV1.TapToPayDevice?) async throws(ServiceError) -> ReaderGatewayV1.ReaderSoftwareUpdate? {
        let current = TapToPayDeviceSetupRule.Setup(model: reported?.model ?? "", osVersion: reported?.osVersion ?? "")
        let recorded: TapToPayDeviceSetupRule.Setup?
        do { recorded = try await tapToPay.deviceSetup(device: device) } catch { throw ServiceError.store(error) }
        guard TapToPayDeviceSetupRule.setupNeeded(recorded: recorded, device: current) != nil else { return nil }
        var setup = ReaderGatewayV1.ReaderSoftwareUpdate()
        setup.deviceType = .tapToPay
        setup.version = Self.deviceSetupVersion(current)
        setup.components = ["config"]
        setup.durationEstimate = .lessThanOneMinute
        setup.required = true
        setup.requiredAtUnixMs = clock.nowUnixMs
        return setup
    }

    /// The version a setup reports: what it configures the reader for (`setup-iPhone15,2-17.4`).
    static func deviceSetupVersion(_ setup: TapToPayDeviceSetupRule.Setup) -> String {
        "setup-\(setup.model)-\(setup.osVersion)"
    }

    func completeTapToPayDeviceSetup(
        _ request: ReaderGatewayV1.CompleteTapToPayDeviceSetupRequest, _ context: CallContext
    ) async throws(ServiceError) -> ReaderGatewayV1.CompleteTapToPayDeviceSetupResponse {
        let session = try await lookup.session(request.sessionToken, context)
        try Self.checkTapToPaySupport(request.device)
        let setup = TapToPayDeviceSetupRule.Setup(model: request.device?.model ?? "", osVersion: request.device?.osVersion ?? "")
        var response = ReaderGatewayV1.CompleteTapToPayDeviceSetupResponse()
        do { response.setUpUnixMs = try await tapToPay.recordDeviceSetup(device: session.posDeviceID, setup) } catch { throw ServiceError.store(error) }
        return response
    }
}
