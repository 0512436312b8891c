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

#endif
