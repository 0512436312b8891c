/// An error from the transport: a socket, TLS or configuration failure.
///
/// The ``code`` is opaque and extensible; ``message`` says what happened and what
/// to do about it; ``cause`` carries the underlying detail (an errno text or the
/// OpenSSL error queue) when there is one.
public struct TransportError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What kind of failure this is. Compare against the static members.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Wrapped: Sendable, Hashable {
            case configuration, certificateFile, privateKeyFile, keyMismatch
            case socket, connectFailed, handshakeFailed, certificateVerification
            case ioError, limitReached, shutdown, certificateGeneration
        }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The configuration is invalid (cipher list, ALPN, options).
        public static let configuration = Code(.configuration)
        /// A certificate or CA file is missing or unreadable.
        public static let certificateFile = Code(.certificateFile)
        /// A private key file is missing or unreadable.
        public static let privateKeyFile = Code(.privateKeyFile)
        /// The private key does not belong to the certificate.
        public static let keyMismatch = Code(.keyMismatch)
        /// A socket could not be created, bound or listened on.
        public static let socket = Code(.socket)
        /// A TCP connection could not be established.
        public static let connectFailed = Code(.connectFailed)
        /// The TLS handshake failed (protocol, cipher, alert from the peer).
        public static let handshakeFailed = Code(.handshakeFailed)
        /// The peer's certificate did not verify (expired, unknown CA, wrong host).
        public static let certificateVerification = Code(.certificateVerification)
        /// Reading or writing a connection failed.
        public static let ioError = Code(.ioError)
        /// A connection or handshake limit refused the connection.
        public static let limitReached = Code(.limitReached)
        /// The event loop group or server is shutting down.
        public static let shutdown = Code(.shutdown)
        /// Creating keys or certificates failed.
        public static let certificateGeneration = Code(.certificateGeneration)

        public var description: String { "\(wrapped)" }
    }

    public var code: Code
    public var message: String
    public var cause: String?

    public init(_ code: Code, _ message: String, cause: String? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        if let cause { return "\(code): \(message) (\(cause))" }
        return "\(code): \(message)"
    }
}
