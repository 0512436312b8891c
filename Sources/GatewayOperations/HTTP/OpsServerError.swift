/// Why the ops endpoint could not start.
public struct OpsServerError: Error, Sendable, CustomStringConvertible {
    /// What failed, as an opaque, extensible code.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Wrapped: Sendable, Hashable { case invalidAddress, socketFailed, bindFailed, alreadyStarted }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The configured address is not an IPv4 or IPv6 literal.
        public static let invalidAddress = Code(.invalidAddress)
        /// A socket, epoll or eventfd descriptor could not be created.
        public static let socketFailed = Code(.socketFailed)
        /// The address could not be bound or listened on (in use, or not permitted).
        public static let bindFailed = Code(.bindFailed)
        /// `start()` was called on a server that is running or was stopped.
        public static let alreadyStarted = Code(.alreadyStarted)

        public var description: String { "\(wrapped)" }
    }

    public let code: Code
    /// What happened and what to do about it.
    public let message: String
    /// The `errno` of the failing call, when there was one.
    public let systemError: Int32?

    init(_ code: Code, _ message: String, systemError: Int32? = nil) {
        self.code = code
        self.message = message
        self.systemError = systemError
    }

    public var description: String {
        guard let systemError else { return "ops endpoint: \(message)" }
        return "ops endpoint: \(message) (errno \(systemError))"
    }
}
