import CGatewayOpenSSL

/// Long-lived reader links keep a fresh TLS 1.3 session ticket.
///
/// A ticket is issued at a handshake and resumes for ``TLSServerConfiguration/ticketLifetime``.
/// A reader stays attached for days, so by the time its replica dies the ticket it holds is
/// usually too old, and it would re-attach with a full handshake in exactly the storm that
/// resumption is for. So a server connection whose peer presented a verified certificate (a
/// reader; lanes present none and never resume) gets a new ticket once half the lifetime has
/// passed since its last one: on the first record read after that moment (readers heartbeat
/// every few seconds). The cost on the read path is one comparison per record
/// (``ticketRenewalDue``, `UInt64.max` for connections that never renew).
///
/// `SSL_new_session_ticket` only queues the ticket; `SSL_do_handshake` on the established
/// connection writes it at once, so it goes out even when the server has nothing else to say.
/// Writing takes OpenSSL's write buffer again; the connection is back on the loop's buffer
/// sweep, which frees it once the link is quiet, as after any record.
extension TLSConnection {
    /// Arms the renewal after a successful server handshake (a resumed one issued a ticket too).
    /// Only TLS 1.3 connections with a verified client certificate on a context that issues
    /// tickets; the lifetime is the context's (`SSL_CTX_set_timeout`, set from the server's
    /// ticket lifetime). Loop thread only.
    func armTicketRenewal() {
        ticketRenewalDue = .max
        guard isServer, countedWithCertificate, SSL_version(ssl) == TLS1_3_VERSION else { return }
        let context = SSL_get_SSL_CTX(ssl)
        guard SSL_CTX_get_num_tickets(context) > 0 else { return }
        let lifetime = UInt64(max(1, SSL_CTX_get_timeout(context)))
        ticketRenewalDue = loop.now &+ lifetime * 1_000_000_000 / 2
    }

    /// Issues a new session ticket and writes it now, then re-arms for half a lifetime later.
    /// Called from the read path when ``ticketRenewalDue`` has passed. Loop thread only.
    func renewTicket() {
        armTicketRenewal()
        noteBuffersInUse()
        ERR_clear_error()
        guard SSL_new_session_ticket(ssl) == 1 else {
            _ = OpenSSLErrors.drain()
            return
        }
        let rc = SSL_do_handshake(ssl)
        if rc != 1 {
            // WANT_WRITE: the rest goes out with the next SSL_read or SSL_write (both drive a
            // pending handshake message first). Anything else surfaces on the next read.
            let error = SSL_get_error(ssl, rc)
            if error != SSL_ERROR_WANT_WRITE && error != SSL_ERROR_WANT_READ { _ = OpenSSLErrors.drain() }
        }
        counters?.ticketsRenewed.add(1, ordering: .relaxed)
    }
}

extension TLSServer {
    /// Session tickets issued on established connections since start (long links renewing
    /// theirs; see `TLSConnection+TicketRenewal.swift`).
    public var ticketsRenewedCount: Int { counters.ticketsRenewed.load(ordering: .relaxed) }

    /// Makes every open connection's last ticket `elapsed` older, as if that time had passed:
    /// a link whose renewal is due by then gets a new ticket on its next record. For tests and
    /// tools that must not wait for the clock.
    public func ageSessionTickets(by elapsed: Duration) async {
        let nanoseconds = elapsed.nanoseconds
        for loop in group.loops {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                loop.execute { [counters] in
                    for case let connection as TLSConnection in loop.registeredObjects() where connection.counters === counters {
                        guard connection.ticketRenewalDue != .max else { continue }
                        connection.ticketRenewalDue = connection.ticketRenewalDue > nanoseconds ? connection.ticketRenewalDue - nanoseconds : 0
                    }
                    done.resume()
                }
            }
        }
    }
}
