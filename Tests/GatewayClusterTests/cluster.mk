# Cluster: three reader-gateway replicas behind nginx stream, one PostgreSQL.
#
#   swift test (make test)   the acceptance suite GatewayClusterTests (a few minutes at most)
#   make chaos               a longer randomized schedule of faults under lane load, then the
#                            invariants; CHAOS_SECONDS (default 120) bounds the fault schedule
#
# nginx's stream module stands in for the Kubernetes Service (round robin, TCP passthrough).

TEST_APT_PACKAGES += nginx libnginx-mod-stream postgresql
CHAOS_SECONDS ?= 120

.PHONY: chaos

chaos: test-deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	CLUSTER_CHAOS_SECONDS=$(CHAOS_SECONDS) $(SWIFT) test --skip-build $(SWIFT_FLAGS) --filter 'GatewayClusterTests.ClusterChaosTests'
