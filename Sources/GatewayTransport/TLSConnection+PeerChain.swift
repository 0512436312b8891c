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
}
