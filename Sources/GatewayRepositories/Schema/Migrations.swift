import GatewayPostgres

/// Every migration this binary knows, oldest first.
///
/// To add one: create `Migration+NNNNName.swift` defining a static
/// `Migration` and append it here. Never edit a migration that has shipped.
public enum Migrations {
    public static let all: [Migration] = [
        .v0001AccountsReadersSessions,
        .v0002Ownership,
        .v0003ReaderCredentials,
        .v0004Cluster,
        .v0005RegistrationCodes,
        .v0006LocalClaimsNotifyNobody,
        .v0007TapToPay,
        .v0008BluetoothReaders,
        .v0009SoftwareUpdates,
        .v0010ConsoleSessions,
        .v0011InstallWindows,
        .v0012SessionDiscovery,
        .v0013TapToPayDeviceSetup,
        .v0014OwnershipClaimSet,
        .v0015SessionEpoch,
        .v0016HistoryPosDevices,
        .v0017NodeVersions,
        .v0018NodeSchemas,
        .v0019StoreRollbackReason,
        .v0020GenerationTimelineFloor,
        .v0021EventLog,
        .v0022ApiKeys,
        .v0023AuditLog,
        .v0024AuthFailureBuckets,
        .v0025Webhooks,
        .v0026ClaimWritesPerStatement,
        .v0027ClaimNoticesPerStatement,
        .v0028TimeOrderedEventIds,
    ]

    /// The newest version this binary knows.
    public static var latestVersion: Int { all.map(\.version).max() ?? 0 }
}
