/// An error from an event loop: it could not be created, or it refused a descriptor.
///
/// The ``code`` is opaque and extensible; ``message`` says what happened and what to do
/// about it; ``cause`` carries the system's error text when there is one.
public struct EventLoopError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What kind of failure this is. Compare against the static members.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Wrapped: Sendable, Hashable {
            case resources, registration
        }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The loop's epoll instance, eventfd or thread could not be created.
        public static let resources = Code(.resources)
        /// epoll refused to watch a descriptor.
        public static let registration = Code(.registration)

        public var description: String {
            switch wrapped {
            case .resources: "resources"
            case .registration: "registration"
            }
        }
    }

    public let code: Code
    public let message: String
    public let cause: String?

    public init(_ code: Code, _ message: String, cause: String? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        cause.map { "\(message) (\($0))" } ?? message
    }

    /// The calling thread's errno as text.
    static func errnoText(_ code: Int32 = rg_errno()) -> String {
        String(cString: strerror(code))
    }
}

import CGatewayLinux
import Glibc
