import Foundation
import GatewayPostgres
import GatewayRepositories
import GatewayWire

/// Registered readers' rows as fleet admins add and delete them: PostgreSQL's
/// ``ReaderStore`` in the gateway, an in-memory table in the services' own tests.
protocol ReaderRegistrations: Sendable {
    /// Fails with a unique violation when the serial number is registered already; `audit`
    /// is written with the reader (as with each change below: in its statement or transaction).
    func insertReader(_ reader: ReaderRecord, credential: String?, audit: AuditEntry?) async throws(StoreError)
    /// All or nothing: one serial number registered already fails them all with a unique violation.
    func insertReaders(_ readers: [ReaderRecord], audit: AuditEntry?) async throws
    /// False when the account has no such reader (and `audit` is not written).
    func deleteReader(_ id: String, account: String, audit: AuditEntry?) async throws(StoreError) -> Bool
}

/// The reader a credential belongs to (a reader's link authenticates with it):
/// PostgreSQL's ``ReaderStore`` in the gateway.
protocol ReaderCredentials: Sendable {
    func reader(credential: String) async throws(StoreError) -> ReaderRecord?
}

/// The codes readers without a credential show, single use across the cluster:
/// PostgreSQL's ``RegistrationCodeStore`` in the gateway, an in-memory table in the services' own tests.
protocol RegistrationCodes: Sendable {
    /// Records a code a reader on `node` shows (replacing that reader's older code).
    func insertRegistrationCode(
        _ code: String, replacing old: String?, serial: String, deviceType: ReaderGatewayV1.DeviceType,
        softwareVersion: String, node: String, lifetime: Duration
    ) async throws(StoreError)
    /// Takes a live code: a second take, or a take after it expired, finds nothing.
    func takeRegistrationCode(_ code: String) async throws(StoreError) -> PendingCodeRecord?
    func deleteRegistrationCode(_ code: String) async throws(StoreError)
}

/// The connection tokens a point-of-sale backend mints (FleetAdmin) and hands its lanes
/// (OpenSession): PostgreSQL's ``ConnectionTokenStore`` in the gateway, an in-memory table
/// in the services' own tests.
protocol ConnectionTokenRepository: Sendable {
    /// A token of `account` (limited to `location` when given) valid for `ttl`: its secret, and when it expires.
    func createConnectionToken(account: String, location: String?, ttl: Duration) async throws(StoreError) -> (secret: String, expires: Date)
    /// The same, with `audit` written in the insert's statement.
    func createConnectionToken(account: String, location: String?, ttl: Duration, audit: AuditEntry) async throws(StoreError) -> (secret: String, expires: Date)
    /// The connection token whose secret is `secret` (nil: no such token).
    func connectionToken(_ secret: String) async throws(StoreError) -> ConnectionTokenRecord?
}

extension ReaderStore: ReaderRegistrations, ReaderCredentials {}

extension RegistrationCodeStore: RegistrationCodes {}

extension ConnectionTokenStore: ConnectionTokenRepository {}
