// OpenSSL 3 for Swift: the headers, plus `rg_` wrappers for the function-like
// macros that Swift cannot import. Every wrapper is a one-line static inline
// function so it costs nothing at run time.
#ifndef CGATEWAY_OPENSSL_SHIM_H
#define CGATEWAY_OPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <string.h>
#include <time.h>

// Options and modes (SSL_OP_* and SSL_MODE_* are macros over 64-bit constants).
static inline uint64_t rg_SSL_OP_NO_COMPRESSION(void) { return SSL_OP_NO_COMPRESSION; }
static inline uint64_t rg_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t rg_SSL_OP_CIPHER_SERVER_PREFERENCE(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }
static inline uint64_t rg_SSL_OP_NO_TICKET(void) { return SSL_OP_NO_TICKET; }
static inline uint64_t rg_SSL_OP_IGNORE_UNEXPECTED_EOF(void) { return SSL_OP_IGNORE_UNEXPECTED_EOF; }
static inline uint64_t rg_SSL_OP_ALL(void) { return SSL_OP_ALL; }

static inline long rg_SSL_MODE_RELEASE_BUFFERS(void) { return SSL_MODE_RELEASE_BUFFERS; }
static inline long rg_SSL_MODE_ENABLE_PARTIAL_WRITE(void) { return SSL_MODE_ENABLE_PARTIAL_WRITE; }
static inline long rg_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER(void) { return SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER; }

static inline long rg_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }

// Short-read watch on a connection's socket BIO: after each read(2) OpenSSL makes, `*drained`
// says whether that read left the socket empty (it failed, e.g. EAGAIN, or returned fewer
// bytes than asked for). Edge-triggered epoll reports any later arrival as a new edge, so a
// reader whose last read was short and whose SSL holds no buffered bytes may stop without
// the extra read that would only return EAGAIN.
static inline long rg_bio_read_watch(BIO *bio, int oper, const char *argp, size_t len, int argi, long argl, int ret, size_t *processed) {
    (void)argp; (void)argi; (void)argl;
    if (oper == (BIO_CB_READ | BIO_CB_RETURN)) {
        int *drained = (int *)BIO_get_callback_arg(bio);
        if (drained) *drained = (ret <= 0 || (processed != NULL && *processed < len)) ? 1 : 0;
    }
    return ret;
}
/// Installs the watch on `ssl`'s read BIO (after SSL_set_fd); returns 0 when there is none.
static inline int rg_SSL_watch_reads(SSL *ssl, int *drained) {
    BIO *bio = SSL_get_rbio(ssl);
    if (bio == NULL) return 0;
    BIO_set_callback_arg(bio, (char *)drained);
    BIO_set_callback_ex(bio, rg_bio_read_watch);
    return 1;
}
static inline long rg_SSL_set_mode(SSL *ssl, long mode) { return SSL_set_mode(ssl, mode); }
static inline uint64_t rg_SSL_CTX_set_options(SSL_CTX *ctx, uint64_t op) { return SSL_CTX_set_options(ctx, op); }
static inline int rg_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_min_proto_version(ctx, version); }
static inline int rg_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_max_proto_version(ctx, version); }
static inline int rg_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list) { return (int)SSL_CTX_set1_groups_list(ctx, list); }
static inline long rg_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_session_cache_mode(ctx, mode); }
static inline int rg_SSL_set_tlsext_host_name(SSL *ssl, const char *name) { return (int)SSL_set_tlsext_host_name(ssl, name); }
static inline long rg_SSL_CTX_add_extra_chain_cert(SSL_CTX *ctx, X509 *cert) { return SSL_CTX_add_extra_chain_cert(ctx, cert); }

static inline int rg_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }
static inline int rg_TLS1_3_VERSION(void) { return TLS1_3_VERSION; }

// Memory BIOs.
static inline long rg_BIO_get_mem_data(BIO *bio, char **out) { return BIO_get_mem_data(bio, out); }
static inline int rg_BIO_set_mem_eof_return(BIO *bio, int value) { return (int)BIO_set_mem_eof_return(bio, value); }

// Transport (GatewayTransport): key generation, certificate building and small
// macro wrappers used by the TLS engine and the development certificate authority.
/// A new EC key on the named curve (e.g. "P-256"); EVP_PKEY_Q_keygen is variadic.
static inline EVP_PKEY *rg_EVP_PKEY_keygen_ec(const char *curve) { return EVP_PKEY_Q_keygen(NULL, NULL, "EC", curve); }
/// A new RSA key of `bits` bits.
static inline EVP_PKEY *rg_EVP_PKEY_keygen_rsa(size_t bits) { return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", bits); }
static inline void rg_X509V3_set_ctx_nodb(X509V3_CTX *ctx) { X509V3_set_ctx_nodb(ctx); }
static inline void rg_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }
static inline int rg_SSL_CTX_set_session_id_context_default(SSL_CTX *ctx) {
    static const unsigned char sid[] = "reader-gateway";
    return SSL_CTX_set_session_id_context(ctx, sid, sizeof sid - 1);
}
static inline void rg_SSL_CTX_set_read_ahead(SSL_CTX *ctx, int yes) { SSL_CTX_set_read_ahead(ctx, yes); }
static inline long rg_SSL_MODE_AUTO_RETRY(void) { return SSL_MODE_AUTO_RETRY; }
static inline long rg_SSL_CTX_clear_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_clear_mode(ctx, mode); }
static inline long rg_SSL_SESS_CACHE_OFF(void) { return SSL_SESS_CACHE_OFF; }
static inline long rg_SSL_SESS_CACHE_SERVER(void) { return SSL_SESS_CACHE_SERVER; }
/// Adds one X509v3 extension given in OpenSSL's configuration syntax
/// (e.g. "critical,CA:TRUE"); `issuer` may equal `subject` for self-signed.
static inline int rg_X509_add_ext_text(X509 *subject, X509 *issuer, int nid, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, subject, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (ext == NULL) return 0;
    int ok = X509_add_ext(subject, ext, -1);
    X509_EXTENSION_free(ext);
    return ok;
}
/// The first text value of `nid` in `name` as UTF-8 into `out` (NUL-terminated); length or -1.
static inline int rg_X509_NAME_get_text(X509_NAME *name, int nid, char *out, int capacity) {
    int index = X509_NAME_get_index_by_NID(name, nid, -1);
    if (index < 0) return -1;
    X509_NAME_ENTRY *entry = X509_NAME_get_entry(name, index);
    if (entry == NULL) return -1;
    unsigned char *utf8 = NULL;
    int length = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
    if (length < 0) return -1;
    if (length >= capacity) length = capacity - 1;
    memcpy(out, utf8, (size_t)length);
    out[length] = 0;
    OPENSSL_free(utf8);
    return length;
}

/// Client certificate verification on a server (SSL_CTX_set_cert_verify_callback): OpenSSL's own
/// verification (X509_verify_cert, exactly what it runs without a callback), after which the
/// certificates the client sent besides its own (its intermediates, often its root as well:
/// OpenSSL clients send the chain they build) are released. OpenSSL hands this callback the
/// list it received as the context's untrusted certificates and keeps that same list in the
/// session for the connection's life (SSL_get_peer_cert_chain), decoded: the root alone is
/// about 4.5 KB per connection. The client's own certificate (the first; the peer certificate
/// and the identity) stays, and the verified chain (the trust store's certificates) is kept.
static int rg_verify_then_release_sent_chain(X509_STORE_CTX *ctx, void *arg) {
    (void)arg;
    int ok = X509_verify_cert(ctx);
    if (ok == 1) {
        STACK_OF(X509) *sent = X509_STORE_CTX_get0_untrusted(ctx);
        while (sent != NULL && sk_X509_num(sent) > 1) X509_free(sk_X509_pop(sent));
    }
    return ok;
}
static inline void rg_SSL_CTX_release_sent_chain_after_verify(SSL_CTX *ctx) {
    SSL_CTX_set_cert_verify_callback(ctx, rg_verify_then_release_sent_chain, NULL);
}
/// A session ticket carries the client's verified identity, not its certificate. OpenSSL keeps
/// the client certificate in the session and so in every ticket made from it, and decoding a
/// ticket then decodes that certificate, whose public key OpenSSL 3.0 decodes through a fresh
/// decoder context each time: about 1.5 M instructions, a third of a resumed handshake. Instead
/// the ticket carries what the server needs of the certificate (ticket application data:
/// "RGI1", the certificate's notAfter as 8 bytes big-endian seconds since the epoch, then the
/// identity: its subject's serialNumber, else its commonName, as UTF-8), and the connection's
/// session is replaced, before its first ticket is made, by a copy without the certificate
/// (the session re-encoded without its [3] peer field). The ticket is as confidential and as
/// authenticated as before (the ticket keys), and resuming it proves the same identity.
static const unsigned char rg_ticket_identity_magic[4] = { 'R', 'G', 'I', '1' };

/// Reads the DER header at `p` (a one-byte tag, a definite length): its size and the content's.
static int rg_der_header(const unsigned char *p, size_t available, size_t *header, size_t *content) {
    if (available < 2 || (p[0] & 0x1f) == 0x1f) return 0;
    size_t first = p[1];
    if (first < 0x80) {
        *header = 2;
        *content = first;
    } else {
        size_t bytes = first & 0x7f;
        if (bytes == 0 || bytes > 4 || available < 2 + bytes) return 0;
        size_t value = 0;
        for (size_t i = 0; i < bytes; i++) value = (value << 8) | p[2 + i];
        *header = 2 + bytes;
        *content = value;
    }
    return *header + *content <= available;
}

/// Re-reads `session` in place from its own encoding without the peer certificate
/// (SSL_SESSION_ASN1's [3] field): 1 when done, 0 when the session was left as it was.
static int rg_session_strip_peer(SSL_SESSION *session) {
    int length = i2d_SSL_SESSION(session, NULL);
    if (length <= 0) return 0;
    unsigned char *der = OPENSSL_malloc((size_t)length * 2 + 8);
    if (der == NULL) return 0;
    unsigned char *body = der + length;
    unsigned char *cursor = der;
    SSL_SESSION *target = session;
    int done = 0;
    size_t header, content, kept = 0;
    if (i2d_SSL_SESSION(session, &cursor) != length) goto finish;
    if (der[0] != 0x30 || !rg_der_header(der, (size_t)length, &header, &content) || header + content != (size_t)length) goto finish;
    for (size_t at = header; at < (size_t)length;) {
        size_t element_header, element_content;
        if (!rg_der_header(der + at, (size_t)length - at, &element_header, &element_content)) goto finish;
        size_t element = element_header + element_content;
        if (der[at] != 0xA3) {
            memcpy(body + 6 + kept, der + at, element);
            kept += element;
        }
        at += element;
    }
    // The SEQUENCE header before the kept elements (at most 6 bytes: 0x30, 0x84, 4 length bytes).
    unsigned char *start;
    if (kept < 0x80) {
        start = body + 4;
        start[0] = 0x30; start[1] = (unsigned char)kept;
    } else if (kept < 0x100) {
        start = body + 3;
        start[0] = 0x30; start[1] = 0x81; start[2] = (unsigned char)kept;
    } else if (kept < 0x10000) {
        start = body + 2;
        start[0] = 0x30; start[1] = 0x82; start[2] = (unsigned char)(kept >> 8); start[3] = (unsigned char)kept;
    } else {
        goto finish;
    }
    const unsigned char *input = start;
    done = d2i_SSL_SESSION(&target, &input, (long)(body + 6 + kept - start)) == session;
finish:
    OPENSSL_free(der);
    return done;
}

/// The identity a session carries (see above): its length (0 or more) with `out` NUL-terminated
/// and `not_after` set, or -1 when the session carries none.
static inline int rg_SSL_SESSION_ticket_identity(const SSL_SESSION *session, char *out, int capacity, long long *not_after) {
    const void *data = NULL;
    size_t length = 0;
    if (session == NULL || capacity < 1) return -1;
    if (SSL_SESSION_get0_ticket_appdata((SSL_SESSION *)session, (void **)&data, &length) != 1 || data == NULL || length < 12) return -1;
    const unsigned char *bytes = (const unsigned char *)data;
    if (memcmp(bytes, rg_ticket_identity_magic, 4) != 0) return -1;
    long long value = 0;
    for (int i = 0; i < 8; i++) value = (value << 8) | bytes[4 + i];
    size_t identity = length - 12;
    if (identity >= (size_t)capacity) return -1;
    memcpy(out, bytes + 12, identity);
    out[identity] = 0;
    *not_after = value;
    return (int)identity;
}
/// The identity the connection's session carries (a resumed session's, or the session a
/// ticket was made from), as ``rg_SSL_SESSION_ticket_identity``.
static inline int rg_SSL_ticket_identity(const SSL *ssl, char *out, int capacity, long long *not_after) {
    return rg_SSL_SESSION_ticket_identity(SSL_get_session(ssl), out, capacity, not_after);
}

/// Before each ticket is made (TLS 1.3): a session that still holds a verified client
/// certificate gets its identity as application data and is replaced by a copy without the
/// certificate, from which the ticket is made. A session without one is left as it is (a
/// resumed session's copy already carries the identity). Failing leaves the session whole: the
/// ticket then carries the certificate, as before, and still resumes.
static int rg_ticket_generate(SSL *ssl, void *arg) {
    (void)arg;
    if (SSL_version(ssl) != TLS1_3_VERSION) return 1;
    SSL_SESSION *session = SSL_get_session(ssl);
    X509 *peer = session == NULL ? NULL : SSL_SESSION_get0_peer(session);
    if (peer == NULL || SSL_get_verify_result(ssl) != X509_V_OK) return 1;
    unsigned char data[12 + 256];
    memcpy(data, rg_ticket_identity_magic, 4);
    int days = 0, seconds = 0;
    if (ASN1_TIME_diff(&days, &seconds, NULL, X509_get0_notAfter(peer)) != 1) return 1;
    long long not_after = (long long)time(NULL) + (long long)days * 86400 + seconds;
    for (int i = 0; i < 8; i++) data[4 + i] = (unsigned char)(not_after >> (56 - 8 * i));
    X509_NAME *name = X509_get_subject_name(peer);
    char identity[256];
    int length = name == NULL ? -1 : rg_X509_NAME_get_text(name, NID_serialNumber, identity, (int)sizeof identity);
    if (length <= 0 && name != NULL) length = rg_X509_NAME_get_text(name, NID_commonName, identity, (int)sizeof identity);
    if (length < 0) length = 0;
    memcpy(data + 12, identity, (size_t)length);
    if (SSL_SESSION_set1_ticket_appdata(session, data, 12 + (size_t)length) != 1) return 1;
    // The session re-read in place from its encoding without the certificate (d2i into the
    // existing object: every encoded field is set again to what it was, the certificate freed).
    // The cipher is looked up again by OpenSSL from its id; it is put back at once.
    const SSL_CIPHER *cipher = SSL_SESSION_get0_cipher(session);
    if (rg_session_strip_peer(session) && cipher != NULL) SSL_SESSION_set_cipher(session, cipher);
    return 1;
}

/// How many certificates the peer sent that the connection still holds besides the peer's own
/// (SSL_get_peer_cert_chain; on a server it leaves the client's certificate out).
static inline int rg_SSL_peer_chain_count(const SSL *ssl) {
    STACK_OF(X509) *chain = SSL_get_peer_cert_chain(ssl);
    if (chain != NULL) return sk_X509_num(chain);
    // A server session replaced by its copy without the certificate (rg_ticket_generate):
    // the connection holds none of what the client sent.
    char identity[256];
    long long not_after = 0;
    return SSL_is_server((SSL *)ssl) && rg_SSL_ticket_identity(ssl, identity, (int)sizeof identity, &not_after) >= 0 ? 0 : -1;
}

/// Server-side ALPN: `preference` is a 2-byte little-endian length followed by the
/// protocol list in wire format; it must outlive the SSL_CTX. A client offering ALPN
/// with no protocol in common gets a fatal no_application_protocol alert.
static int rg_alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                          const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl;
    const unsigned char *preference = (const unsigned char *)arg;
    unsigned int length = (unsigned int)preference[0] | ((unsigned int)preference[1] << 8);
    unsigned char *selected = NULL;
    unsigned char selected_length = 0;
    if (SSL_select_next_proto(&selected, &selected_length, preference + 2, length, in, inlen) != OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    }
    *out = selected;
    *outlen = selected_length;
    return SSL_TLSEXT_ERR_OK;
}
static inline void rg_SSL_CTX_set_alpn_server(SSL_CTX *ctx, const unsigned char *preference) {
    SSL_CTX_set_alpn_select_cb(ctx, rg_alpn_select, (void *)preference);
}

/// Session ticket keys shared by the replicas, so a reader that re-attaches to any of them
/// resumes its TLS 1.3 session (PSK with ECDHE) instead of a full handshake with certificate
/// verification. Key 0 encrypts new tickets; every key decrypts (the previous key of a
/// rotation still resumes, and its tickets are renewed under key 0). Each key is a 16-byte
/// name, an AES-256-CBC key and an HMAC-SHA256 key (the 80-byte file nginx also reads).
typedef struct rg_ticket_key {
    unsigned char name[16];
    unsigned char aes[32];
    unsigned char hmac[32];
} rg_ticket_key;
typedef struct rg_ticket_keys {
    int count;
    rg_ticket_key keys[4];
    /// A ticket issued longer ago than this is not resumed (0: none is).
    long lifetime_seconds;
} rg_ticket_keys;

static int rg_ticket_key_cb(SSL *ssl, unsigned char key_name[16], unsigned char *iv, EVP_CIPHER_CTX *cipher, EVP_MAC_CTX *mac, int encrypt) {
    const rg_ticket_keys *keys = (const rg_ticket_keys *)SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
    if (keys == NULL || keys->count < 1) return -1;
    const rg_ticket_key *key = NULL;
    int renew = 0;
    if (encrypt) {
        key = &keys->keys[0];
        memcpy(key_name, key->name, 16);
        if (RAND_bytes(iv, 16) != 1) return -1;
        if (EVP_EncryptInit_ex(cipher, EVP_aes_256_cbc(), NULL, key->aes, iv) != 1) return -1;
    } else {
        for (int i = 0; i < keys->count && i < 4; i++) {
            if (memcmp(key_name, keys->keys[i].name, 16) == 0) { key = &keys->keys[i]; renew = i > 0; break; }
        }
        if (key == NULL) return 0; // not ours (another key set, or a key retired): full handshake
        if (EVP_DecryptInit_ex(cipher, EVP_aes_256_cbc(), NULL, key->aes, iv) != 1) return -1;
    }
    OSSL_PARAM params[3];
    params[0] = OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, (void *)key->hmac, sizeof key->hmac);
    params[1] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0);
    params[2] = OSSL_PARAM_construct_end();
    if (EVP_MAC_CTX_set_params(mac, params) != 1) return -1;
    return renew ? 2 : 1;
}

/// After a ticket decrypted: resume only a TLS 1.3 session (PSK with ECDHE: forward secret)
/// issued within the lifetime, whose client certificate (its notAfter, carried with the
/// identity: rg_ticket_generate; or the certificate itself, in a ticket made before) has not
/// expired since. Anything else falls back to a full handshake, which verifies afresh.
/// (Not called with OpenSSL's own keys for tickets it cannot decrypt: those are NO_DECRYPT.)
static SSL_TICKET_RETURN rg_ticket_decrypted(SSL *ssl, SSL_SESSION *session, const unsigned char *name, size_t name_length, SSL_TICKET_STATUS status, void *arg) {
    (void)ssl; (void)name; (void)name_length;
    const rg_ticket_keys *keys = (const rg_ticket_keys *)arg;
    switch (status) {
    case SSL_TICKET_SUCCESS:
    case SSL_TICKET_SUCCESS_RENEW:
        break;
    case SSL_TICKET_EMPTY:
    case SSL_TICKET_NO_DECRYPT:
        return SSL_TICKET_RETURN_IGNORE_RENEW;
    default:
        return SSL_TICKET_RETURN_ABORT;
    }
    if (session == NULL || SSL_SESSION_get_protocol_version(session) != TLS1_3_VERSION) return SSL_TICKET_RETURN_IGNORE_RENEW;
    time_t now = time(NULL);
    long issued = (long)SSL_SESSION_get_time(session);
    if (keys == NULL || (long)now - issued >= keys->lifetime_seconds || issued > (long)now + 60) return SSL_TICKET_RETURN_IGNORE_RENEW;
    X509 *peer = SSL_SESSION_get0_peer(session);
    if (peer != NULL && X509_cmp_current_time(X509_get0_notAfter(peer)) <= 0) return SSL_TICKET_RETURN_IGNORE_RENEW;
    char identity[256];
    long long not_after = 0;
    if (peer == NULL && rg_SSL_SESSION_ticket_identity(session, identity, (int)sizeof identity, &not_after) >= 0 && not_after <= (long long)now) {
        return SSL_TICKET_RETURN_IGNORE_RENEW;
    }
    // Renewed on every resumption: the reader leaves with a ticket whose lifetime starts now
    // (its link may last longer than the lifetime), issued under the current key.
    return SSL_TICKET_RETURN_USE_RENEW;
}

/// Sets key `index` of `keys` from 80 bytes of key material (name, AES key, HMAC key).
static inline void rg_ticket_keys_set(rg_ticket_keys *keys, int index, const unsigned char *material) {
    memcpy(keys->keys[index].name, material, 16);
    memcpy(keys->keys[index].aes, material + 16, 32);
    memcpy(keys->keys[index].hmac, material + 48, 32);
}
/// Installs `keys` (kept alive by the caller for the context's life) on a server context.
static inline int rg_SSL_CTX_use_ticket_keys(SSL_CTX *ctx, rg_ticket_keys *keys) {
    if (SSL_CTX_set_app_data(ctx, keys) != 1) return 0;
    if (SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, rg_ticket_key_cb) != 1) return 0;
    return SSL_CTX_set_session_ticket_cb(ctx, rg_ticket_generate, rg_ticket_decrypted, keys);
}
/// Only the lifetime check and the identity in place of the certificate (the context's own
/// random ticket keys, which no other replica shares).
static inline int rg_SSL_CTX_check_ticket_lifetime(SSL_CTX *ctx, rg_ticket_keys *keys) {
    return SSL_CTX_set_session_ticket_cb(ctx, rg_ticket_generate, rg_ticket_decrypted, keys);
}

/// Client side: sessions are handed to the new-session callback and kept by the caller (one
/// per reader), not in OpenSSL's client cache.
static inline long rg_SSL_SESS_CACHE_CLIENT_NO_INTERNAL(void) { return SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE; }
static inline int rg_SSL_get_ex_new_index(void) { return SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL); }
static inline int rg_SSL_session_reused(const SSL *ssl) { return SSL_session_reused(ssl); }

#endif
