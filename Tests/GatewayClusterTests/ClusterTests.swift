import Testing

/// The cluster's acceptance: three `reader-gateway` replicas as real processes on loopback,
/// sharing one PostgreSQL, behind nginx `stream` standing in for the Kubernetes Service
/// (see ``ClusterFixture``). One test at a time: each starts its own cluster, and the
/// faults (kill -9, SIGSTOP, drain, PostgreSQL restart) need the machine's attention.
///
/// The tests live in extensions, one file per kind of fault. To run them alone:
///
///     swift build --build-tests
///     swift test --skip-build --filter GatewayClusterTests
///
/// `CLUSTER_TEST_LOGS=1` prints every replica's log tail even when the tests pass (they are
/// printed on any failure). The long randomized run is `make chaos` (``ClusterChaosTests``).
@Suite("cluster of three replicas", .serialized, .timeLimit(.minutes(5)))
struct ClusterTests {}
