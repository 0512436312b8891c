import Testing

/// Issue 8's acceptance: three `reader-gateway` replicas as real processes on loopback,
/// sharing one PostgreSQL, behind nginx `stream` standing in for the Kubernetes Service
/// (see ``ClusterFixture``). One test at a time: each starts its own cluster, and the
/// faults (kill -9, SIGSTOP, drain, PostgreSQL restart) need the machine's attention.
///
/// The tests live in extensions, one file per acceptance item.
@Suite("cluster of three replicas", .serialized)
struct ClusterTests {}
