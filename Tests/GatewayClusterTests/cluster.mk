# Cluster: three reader-gateway replicas behind nginx stream, one PostgreSQL (or, for the
# failover test and make chaos, a primary with a streaming standby made by pg_basebackup).
#
#   swift test (make test)   the acceptance suite GatewayClusterTests (a few minutes at most)
#   make chaos               a longer randomized schedule of faults (replica kill, pause, drain;
#                            PostgreSQL restart and failover) under lane load, then the
#                            invariants; CHAOS_SECONDS (default 120) bounds the fault schedule,
#                            CHAOS_WIRE_LANES (default 4) sets how many raw-frame lanes judge every
#                            resume answer and refusal against PostgreSQL (0: none)
#   make chaos-webhooks      make chaos with a webhook endpoint wanting every event, POSTed to the
#                            tests' HTTPS receiver all along; after the deliveries drain it prints
#                            events produced (the event log) and received (distinct ids), missing,
#                            duplicates and per-reader order violations. CHAOS_SECONDS defaults to
#                            60 here (a quick check); CHAOS_SECONDS=300 for the long figure
#
# nginx's stream module stands in for the Kubernetes Service (round robin, TCP passthrough).

TEST_APT_PACKAGES += nginx libnginx-mod-stream postgresql
CHAOS_SECONDS ?= 120
CHAOS_WIRE_LANES ?= 4

.PHONY: chaos chaos-webhooks

chaos: test-deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	CLUSTER_CHAOS_SECONDS=$(CHAOS_SECONDS) CLUSTER_CHAOS_WIRE_LANES=$(CHAOS_WIRE_LANES) $(SWIFT) test --skip-build $(SWIFT_FLAGS) --filter 'GatewayClusterTests.ClusterChaosTests'

# CHAOS_SECONDS given on the command line or in the environment wins over this target's 60.
chaos-webhooks: test-deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	CLUSTER_CHAOS_WEBHOOKS=1 CLUSTER_CHAOS_SECONDS=$(if $(filter file,$(origin CHAOS_SECONDS)),60,$(CHAOS_SECONDS)) CLUSTER_CHAOS_WIRE_LANES=$(CHAOS_WIRE_LANES) \
	  $(SWIFT) test --skip-build $(SWIFT_FLAGS) --filter 'GatewayClusterTests.ClusterChaosTests'
