import Foundation
import GatewayDomain
import GatewayPostgres
import GatewayRepositories

/// Tap to Pay's terms, device admissions, phone readers and device setups: PostgreSQL's
/// ``TapToPayStore`` in the gateway.
protocol TapToPayRepository: Sendable {
    /// Accounts one device may serve within the window.
    var limit: Int { get }
    func admit(device: String, account: String, now: Date?) async throws(StoreError) -> TapToPayAccountWindow.Admission
    func termsAccepted(account: String) async throws(StoreError) -> Bool
    func acceptTerms(account: String, device: String) async throws(StoreError) -> Bool
    func registerReader(serial: String, account: String, location: String, label: String, credential: String) async throws(StoreError) -> ReaderRecord?
    func deviceSetup(device: String) async throws(StoreError) -> TapToPayDeviceSetupRule.Setup?
    func recordDeviceSetup(device: String, _ setup: TapToPayDeviceSetupRule.Setup) async throws(StoreError) -> Int64
}

extension TapToPayStore: TapToPayRepository {}
