import GatewayRPC

/// A service's error ends its call with its ``ServiceError/status`` (reason and message; the
/// cause stays in the log).
extension ServiceError: CallFailure {}
