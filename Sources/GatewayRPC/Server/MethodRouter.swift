/// The method paths a server serves, each with its handler: filled by the services that
/// register on it (``RouteProvider``), then handed to a ``CallServer``.
public struct MethodRouter: Sendable {
    public private(set) var handlers: [String: MethodHandler] = [:]

    public init() {}

    /// Serves `path` with `handler` (a later registration of the same path replaces it).
    public mutating func register(_ path: String, _ handler: MethodHandler) {
        handlers[path] = handler
    }

    /// Serves each `(path, handler)`.
    public mutating func register(_ routes: [(String, MethodHandler)]) {
        for (path, handler) in routes { handlers[path] = handler }
    }
}

/// What provides a server's routes: one surface (the gateway's reader link, SDK, fleet admin,
/// replica link) registers the methods it serves and keeps its own handlers.
public protocol RouteProvider: Sendable {
    func registerMethods(with router: inout MethodRouter)
}
