// libpq for Swift: the client header plus `rg_pq_` wrappers for what Swift
// cannot import directly (the PG_DIAG_* field codes are character macros).
#ifndef CGATEWAY_POSTGRES_SHIM_H
#define CGATEWAY_POSTGRES_SHIM_H

#include <libpq-fe.h>

/// The five-character SQLSTATE of an error result, or NULL.
static inline const char *rg_pq_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}
/// The primary human-readable message of an error result, or NULL.
static inline const char *rg_pq_message_primary(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
}
/// The optional detail of an error result, or NULL.
static inline const char *rg_pq_message_detail(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_DETAIL);
}
/// The severity (ERROR, FATAL, NOTICE, ...) of a result, not localized, or NULL.
static inline const char *rg_pq_severity(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SEVERITY_NONLOCALIZED);
}

#endif
