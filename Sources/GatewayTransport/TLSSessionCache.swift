import CGatewayOpenSSL
import Synchronization

/// The TLS session a client keeps between its connections, offered again on the next one so
/// that the server may resume it (a TLS 1.3 ticket: PSK with ECDHE, no certificate exchange).
///
/// One per reader: a reader that loses its link dials again with the session of its last
/// connection (the newest ticket the server sent, which OpenSSL hands over in its new-session
/// callback). Give it to ``TLSClient/connect(host:port:serverName:localHost:context:limits:sessions:on:makeHandler:)``;
/// the server decides whether to resume, and a refused ticket just means a full handshake.
/// Thread-safe: the loop stores, whoever dials next reads.
public final class TLSSessionCache: Sendable {
    private let slot = Mutex<TLSSessionHandle?>(nil)
    private let received = Atomic<Int>(0)

    public init() {}

    /// Whether a session is kept to offer on the next connection.
    public var hasSession: Bool { slot.withLock { $0 != nil } }

    /// Session tickets received since the cache was made: those of each handshake and those a
    /// server sends later on a long-lived link (each replaces the kept session: the newest wins).
    public var ticketsReceived: Int { received.load(ordering: .relaxed) }

    /// Forgets the kept session (the next connection makes a full handshake).
    public func clear() { slot.withLock { $0 = nil } }

    /// The session to offer, if any.
    var current: TLSSessionHandle? { slot.withLock { $0 } }

    /// Keeps `session` (taking over the caller's reference) in place of the previous one.
    func keep(_ session: OpaquePointer) {
        let handle = TLSSessionHandle(session)
        slot.withLock { $0 = handle }
        received.add(1, ordering: .relaxed)
    }

    /// Puts `session` (or none) in place of the kept one.
    func replace(with session: TLSSessionHandle?) { slot.withLock { $0 = session } }

    /// The `SSL` ex-data slot that points a client connection at its cache.
    static let exDataIndex: Int32 = rg_SSL_get_ex_new_index()

    /// OpenSSL's new-session callback on client contexts: a ticket arrived on a connection that
    /// has a cache, which keeps a copy. Not the session itself: it stays the connection's
    /// current session, and OpenSSL marks that one not resumable when the connection ends
    /// without this side's close_notify — which is how a reader's link ends when its replica
    /// dies, the very moment it should resume.
    static let newSessionCallback: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32 = { ssl, session in
        guard let ssl, let session, let raw = SSL_get_ex_data(ssl, TLSSessionCache.exDataIndex), let copy = SSL_SESSION_dup(session) else { return 0 }
        Unmanaged<TLSSessionCache>.fromOpaque(raw).takeUnretainedValue().keep(copy)
        return 0
    }

    /// Offers the kept session on `ssl` (a client connection not yet started) and points the
    /// connection at this cache for the tickets it will receive. The connection must keep the
    /// cache alive for as long as `ssl` lives.
    func attach(to ssl: OpaquePointer) {
        if let session = current { _ = SSL_set_session(ssl, session.pointer) }
        _ = SSL_set_ex_data(ssl, Self.exDataIndex, Unmanaged.passUnretained(self).toOpaque())
    }
}

/// One OpenSSL session reference, freed with the handle.
final class TLSSessionHandle: @unchecked Sendable {
    // @unchecked: the pointer is only read after init; OpenSSL reference-counts sessions
    // atomically, and SSL_set_session takes a reference of its own.
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { SSL_SESSION_free(pointer) }
}
