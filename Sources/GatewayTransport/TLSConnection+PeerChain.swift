import CGatewayOpenSSL

extension TLSConnection {
    /// How many of the certificates the peer sent besides its own this connection still holds
    /// (OpenSSL's peer chain; -1 when the peer sent none). A server that verifies client
    /// certificates releases them once verified (see ``TLSContext``), so a reader's connection
    /// answers 0 whatever its client sent. Call on the connection's loop, once it is active.
    var peerChainCertificatesHeld: Int {
        guard let sslHandle else { return -1 }
        return Int(rg_SSL_peer_chain_count(sslHandle))
    }

    /// Whether the connection holds its peer's certificate (decoded, in its session). A server
    /// connection whose client presented one holds it until the session's ticket is made, then
    /// none: the ticket carries the identity instead (`rg_ticket_generate`). Call on the
    /// connection's loop, once it is active.
    var holdsPeerCertificate: Bool {
        guard let sslHandle else { return false }
        return SSL_get0_peer_certificate(sslHandle) != nil
    }
}
