/// The metrics of failed authentications and the lock-outs they cause (PROTOCOL.md section 22).
public struct AuthenticationMetrics: Sendable {
    /// Authentications that failed (a wrong, retired or missing credential), by surface
    /// (`reader_gateway_auth_failures_total`).
    public let failures: MetricFamily<Counter>
    /// Lock-outs decided (a failure that found its bucket empty), by scope
    /// (`reader_gateway_auth_lockouts_total`).
    public let lockouts: MetricFamily<Counter>
    /// Calls and sign-ins refused because their source or account was locked out, by surface
    /// (`reader_gateway_auth_limited_total`).
    public let limited: MetricFamily<Counter>

    init(collection: MetricsCollection) {
        failures = collection.counter(
            "reader_gateway_auth_failures_total",
            help: "Failed authentications (wrong, retired or missing secret key; unknown console session), by surface.",
            labels: [MetricLabel("surface", AuthSurface.self)]
        )
        lockouts = collection.counter(
            "reader_gateway_auth_lockouts_total",
            help: "Lock-outs: failed authentications that found their token bucket empty, by scope (source address or account).",
            labels: [MetricLabel("scope", AuthLockoutScope.self)]
        )
        limited = collection.counter(
            "reader_gateway_auth_limited_total",
            help: "Calls and console sign-ins refused (RESOURCE_EXHAUSTED, HTTP 429) because their source or account was locked out, by surface.",
            labels: [MetricLabel("surface", AuthSurface.self)]
        )
    }
}

/// Where a credential was checked.
public enum AuthSurface: Int, MetricLabelValue {
    /// A `FleetAdmin` call's `authorization: Bearer <secret key>`.
    case fleetAdmin
    /// The console's sign-in (`PUT /console/session` with a secret key).
    case consoleSignIn
    /// A `FleetAdmin` call from the console page whose session cookie is unknown or expired.
    case consoleSession

    public var labelValue: String {
        switch self {
        case .fleetAdmin: "fleet_admin"
        case .consoleSignIn: "console_sign_in"
        case .consoleSession: "console_session"
        }
    }
}

/// What a lock-out locks.
public enum AuthLockoutScope: Int, MetricLabelValue {
    case source
    case account

    public var labelValue: String {
        switch self {
        case .source: "source"
        case .account: "account"
        }
    }
}
