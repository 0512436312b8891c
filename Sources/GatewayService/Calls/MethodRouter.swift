/// The method paths a listener serves, each with its handler: filled by the services
/// that register on it (``RegistrableService``), then handed to the ``CallRouter``.
struct MethodRouter: Sendable {
    private(set) var handlers: [String: MethodHandler] = [:]

    /// Serves `path` with `handler` (a later registration of the same path replaces it).
    mutating func register(_ path: String, _ handler: MethodHandler) {
        handlers[path] = handler
    }

    /// Serves each `(path, handler)`.
    mutating func register(_ routes: [(String, MethodHandler)]) {
        for (path, handler) in routes { handlers[path] = handler }
    }
}

/// One surface of the gateway (reader link, SDK, fleet admin, replica link): it
/// registers the methods it serves and keeps its own handlers.
protocol RegistrableService: Sendable {
    func registerMethods(with router: inout MethodRouter)
}
