// What OpenSSL 3 keeps per established server connection, by configuration: N connections
// handshaken over socket pairs against a server context configured as TLSContext.swift
// configures one (client certificates required), a heartbeat each way, the clients then freed
// and each server connection's record buffers released (SSL_free_buffers), as the transport
// does for an idle connection. Prints malloc's bytes in use (mallinfo2) per connection.
// Run through Tests/GatewayTransportTests/scripts/openssl-connection-memory.sh, which makes
// the certificates and runs every variant; one variant's switches are environment variables:
//   N (1000)             connections
//   ADVERTISE (1)        SSL_CTX_set_client_CA_list with the CA file (0: none)
//   TICKETS (0)          SSL_CTX_set_num_tickets (the gateway's replica sets 0)
//   CACHE (1)            server session cache (0: off)
//   MAXV (13)            12: TLS 1.2 only
//   VERIFY (1)           0: no client certificate requested
//   READER (reader)      the client certificate files <READER>.pem / <READER>.key
//   SEND_ROOT (1)        the client sends the chain OpenSSL builds (its root); 0: SSL_MODE_NO_AUTO_CHAIN
//   RELEASE_CHAIN (0)    1: the transport's certificate-verify callback (releases the sent chain)
#define _GNU_SOURCE
// The transport's own OpenSSL shim (the script compiles with -I Sources/CGatewayOpenSSL), so
// that RELEASE_CHAIN measures the callback the gateway installs, not a copy of it.
#include "shim.h"
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <unistd.h>

static int envi(const char *n, int d) { const char *v = getenv(n); return v ? atoi(v) : d; }
static size_t used(void) { struct mallinfo2 m = mallinfo2(); return m.uordblks + m.hblkhd; }
static void die(const char *what) { fprintf(stderr, "%s\n", what); ERR_print_errors_fp(stderr); exit(1); }

static SSL_CTX *server_context(void) {
    SSL_CTX *c = SSL_CTX_new(TLS_server_method());
    SSL_CTX_set_min_proto_version(c, TLS1_2_VERSION);
    SSL_CTX_set_max_proto_version(c, envi("MAXV", 13) == 12 ? TLS1_2_VERSION : TLS1_3_VERSION);
    SSL_CTX_set_options(c, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    SSL_CTX_set_cipher_list(c, "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
                               "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305");
    SSL_CTX_set_ciphersuites(c, "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256");
    SSL_CTX_set1_groups_list(c, "X25519:P-256:P-384");
    SSL_CTX_set_mode(c, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_AUTO_RETRY);
    SSL_CTX_set_read_ahead(c, 1);
    SSL_CTX_set_session_cache_mode(c, envi("CACHE", 1) ? SSL_SESS_CACHE_SERVER : SSL_SESS_CACHE_OFF);
    static const unsigned char sid[] = "reader-gateway";
    SSL_CTX_set_session_id_context(c, sid, sizeof sid - 1);
    SSL_CTX_set_num_tickets(c, (size_t)envi("TICKETS", 0));
    if (SSL_CTX_use_certificate_chain_file(c, "server.pem") != 1) die("server.pem");
    if (SSL_CTX_use_PrivateKey_file(c, "server.key", SSL_FILETYPE_PEM) != 1) die("server.key");
    if (envi("VERIFY", 1)) {
        if (SSL_CTX_load_verify_locations(c, "ca.pem", NULL) != 1) die("ca.pem");
        if (envi("ADVERTISE", 1)) SSL_CTX_set_client_CA_list(c, SSL_load_client_CA_file("ca.pem"));
        SSL_CTX_set_verify(c, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
        SSL_CTX_set_verify_depth(c, 8);
        if (envi("RELEASE_CHAIN", 0)) rg_SSL_CTX_release_sent_chain_after_verify(c);
    } else {
        SSL_CTX_set_verify(c, SSL_VERIFY_NONE, NULL);
    }
    return c;
}

static SSL_CTX *client_context(void) {
    SSL_CTX *c = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_session_cache_mode(c, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_min_proto_version(c, TLS1_2_VERSION);
    SSL_CTX_load_verify_locations(c, "ca.pem", NULL);
    SSL_CTX_set_verify(c, SSL_VERIFY_PEER, NULL);
    if (!envi("SEND_ROOT", 1)) SSL_CTX_set_mode(c, SSL_MODE_NO_AUTO_CHAIN);
    const char *reader = getenv("READER") ? getenv("READER") : "reader";
    char path[256];
    snprintf(path, sizeof path, "%s.pem", reader);
    if (SSL_CTX_use_certificate_chain_file(c, path) != 1) die(path);
    snprintf(path, sizeof path, "%s.key", reader);
    if (SSL_CTX_use_PrivateKey_file(c, path, SSL_FILETYPE_PEM) != 1) die(path);
    return c;
}

typedef struct { SSL *server, *client; int serverFD, clientFD; } Pair;

static void open_pair(SSL_CTX *serverContext, SSL_CTX *clientContext, Pair *p) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) die("socketpair (raise ulimit -n)");
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    p->serverFD = fds[0]; p->clientFD = fds[1];
    p->server = SSL_new(serverContext); SSL_set_fd(p->server, p->serverFD); SSL_set_accept_state(p->server);
    p->client = SSL_new(clientContext); SSL_set_fd(p->client, p->clientFD); SSL_set_connect_state(p->client);
}

static void handshake_and_heartbeat(Pair *p) {
    int serverDone = 0, clientDone = 0;
    for (int i = 0; i < 100 && !(serverDone && clientDone); i++) {
        int r;
        if (!clientDone) { r = SSL_do_handshake(p->client); if (r == 1) clientDone = 1; else if (SSL_get_error(p->client, r) != SSL_ERROR_WANT_READ) die("client handshake"); }
        if (!serverDone) { r = SSL_do_handshake(p->server); if (r == 1) serverDone = 1; else if (SSL_get_error(p->server, r) != SSL_ERROR_WANT_READ) die("server handshake"); }
    }
    if (!(serverDone && clientDone)) die("the handshake did not finish");
    char buffer[256];
    memset(buffer, 7, 64);
    if (SSL_write(p->client, buffer, 64) != 64 || SSL_read(p->server, buffer, sizeof buffer) != 64) die("heartbeat to the server");
    if (SSL_write(p->server, buffer, 64) != 64 || SSL_read(p->client, buffer, sizeof buffer) != 64) die("heartbeat to the client");
}

int main(int argc, char **argv) {
    int n = envi("N", 1000);
    SSL_CTX *serverContext = server_context(), *clientContext = client_context();
    Pair *pairs = calloc((size_t)n, sizeof *pairs);
    // Warm-up: OpenSSL fetches and caches algorithms on first use.
    for (int i = 0; i < 20 && i < n; i++) { open_pair(serverContext, clientContext, &pairs[i]); handshake_and_heartbeat(&pairs[i]); }
    for (int i = 0; i < 20 && i < n; i++) { SSL_free(pairs[i].client); close(pairs[i].clientFD); SSL_free(pairs[i].server); close(pairs[i].serverFD); }
    SSL_CTX_flush_sessions(serverContext, 0x7fffffff);
    size_t before = used();
    for (int i = 0; i < n; i++) { open_pair(serverContext, clientContext, &pairs[i]); handshake_and_heartbeat(&pairs[i]); }
    int peerChain = -1;
    for (int i = 0; i < n; i++) {
        if (i == 0) {
            STACK_OF(X509) *chain = SSL_get_peer_cert_chain(pairs[i].server);
            peerChain = chain ? sk_X509_num(chain) : -1;
            if (envi("VERIFY", 1) && (SSL_get0_peer_certificate(pairs[i].server) == NULL || SSL_get_verify_result(pairs[i].server) != X509_V_OK)) die("no verified peer");
        }
        SSL_free(pairs[i].client);
        close(pairs[i].clientFD);
        SSL_free_buffers(pairs[i].server);
    }
    size_t after = used();
    printf("| %s | %s | %d | %.0f |\n", argc > 1 ? argv[1] : "", SSL_get_version(pairs[0].server), peerChain, (double)(after - before) / n);
    return 0;
}
