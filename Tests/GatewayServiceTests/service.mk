# Service (GatewayService): relayed command round trips in `make bench`, beside nginx; connect
# arbitrations beside pgbench.
# Included by the top-level Makefile; targets run from the repository root.

TEST_APT_PACKAGES += nginx-light libnginx-mod-stream postgresql
BENCH_SUITES += service-bench

.PHONY: service-bench

# Lane → gateway → reader → gateway → lane (TLS both legs), 16 and 256 pairs, beside nginx
# relaying TLS on both legs; then connect arbitrations through the service (lanes on the client
# library, then lean lanes) beside pgbench running what a connect sends and the bare claim, with
# CPU per connect on both sides and statements per connect (pg_stat_statements when installed). Results:
# bench-results/service.md and bench-results/service.jsonl.
service-bench:
	@$(SWIFT) build -c release --product service-bench $(SWIFT_FLAGS) >/dev/null
	@$(SWIFT) build -c release --product transport-echo $(SWIFT_FLAGS) >/dev/null
	@$(SWIFT) build -c release --product transport-load $(SWIFT_FLAGS) >/dev/null
	@Tests/GatewayServiceTests/bench/service-bench.sh "$$($(SWIFT) build -c release --show-bin-path $(SWIFT_FLAGS))" bench-results

BENCH_SUITES += bench-flood
.PHONY: bench-flood

# A slowloris flood (10,000 silent and half-hello sockets from 10 loopback addresses) against the
# gateway beside nginx stream under the same flood: new clients' time to their first call, existing
# clients' p99 before and during, CPU and memory. Results: bench-results/flood.md and flood.jsonl.
bench-flood: test-deps
	@$(SWIFT) build -c release $(SWIFT_FLAGS) >/dev/null
	@Tests/GatewayServiceTests/bench/flood-bench.sh "$$($(SWIFT) build -c release --show-bin-path $(SWIFT_FLAGS))" bench-results

.PHONY: bench-fleet

# Fleet scale (issue #17): 1,000 / 5,000 / 15,000 simulated readers heartbeating on one replica with
# N/10 lanes connecting now and then, beside transport-echo holding as many TLS connections with the
# same heartbeat frames; then three replicas behind nginx and a reconnect storm (kill -9 of the
# replica with the most readers) checked against the invariants of `make chaos`; each round
# also measures the replica with and without a WatchFleet watcher. About 15 minutes, so not part
# of `make bench`. FLEET_SIZES, FLEET_WINDOW, FLEET_ROUNDS, FLEET_CLUSTER=0, FLEET_WATCH=0,
# FLEET_STORM_VICTIM=all (every reader on the killed replica), FLEET_PORT_BASE (see the script).
# FLEET_CLUSTER_READERS=45000 FLEET_SINGLE=0: three replicas of 15,000 readers with 4,500 lanes;
# the killed replica is restarted at once as a Deployment would (FLEET_RESTART=1, the default above
# 15,000) and nginx balances with least_conn over several listen ports and workers.
# Results: bench-results/fleet.md, fleet.jsonl, fleet-storm.log, fleet-storm-statements.txt,
# fleet-storm-metrics.txt (each replica's /metrics counters as the storm ends).
bench-fleet: test-deps
	$(call apt_install,postgresql-contrib)
	@$(SWIFT) build -c release $(SWIFT_FLAGS) >/dev/null
	@Tests/GatewayServiceTests/bench/fleet-bench.sh "$$($(SWIFT) build -c release --show-bin-path $(SWIFT_FLAGS))" bench-results

.PHONY: reader-memory

# Memory per attached reader: 3,000 readers with client certificates (2 s heartbeats, no lanes)
# on one release replica, its resident growth per reader beside transport-echo holding as many
# TLS connections (the floor), with the load average. Not part of `make bench`.
# READER_MEMORY_READERS, READER_MEMORY_ROUNDS, READER_MEMORY_SETTLE, READER_MEMORY_PORT_BASE;
# READER_MEMORY_BASELINE=<another build's release bin dir> measures that build's replica too,
# alternating round by round. Results: bench-results/reader-memory.md and reader-memory.jsonl.
reader-memory: test-deps
	@for product in reader-gateway gatewayctl fleet-load transport-echo; do $(SWIFT) build -c release --product $$product $(SWIFT_FLAGS) >/dev/null || exit 1; done
	@Tests/GatewayServiceTests/bench/reader-memory.sh "$$($(SWIFT) build -c release --show-bin-path $(SWIFT_FLAGS))" bench-results $(READER_MEMORY_BASELINE)

.PHONY: heartbeat-instructions

# Instructions per heartbeat under callgrind: 300 readers (2 s heartbeats) on a release replica,
# then on transport-echo (the floor), whole process and the event loops' share, over a window
# of 20 s. HB_READERS, HB_WINDOW, HB_TARGET=gateway|echo|both, HB_PORT_BASE. Needs valgrind and
# gcc. Results: bench-results/heartbeat-instructions.jsonl and the callgrind files beside it.
heartbeat-instructions: test-deps
	$(call apt_install,valgrind gcc binutils)
	@for product in reader-gateway gatewayctl fleet-load transport-echo; do $(SWIFT) build -c release --product $$product $(SWIFT_FLAGS) >/dev/null || exit 1; done
	@Tests/GatewayServiceTests/bench/heartbeat-instructions.sh "$$($(SWIFT) build -c release --show-bin-path $(SWIFT_FLAGS))" bench-results

BENCH_SUITES += bench-auth-flood
.PHONY: bench-auth-flood

# A guessing flood (10,000 wrong secret keys from 10 loopback addresses, 127.0.0.2 to .11) while
# one admin with the correct key calls ListReaders in a loop: the admin's p50/p99 before and during,
# the flood's answers (checked as wrong, limited), CPU. Three shapes: 10,000 paced over 5 s
# (2,000 a second), 10,000 as fast as they are answered, and guessing as fast as answered for 5 s.
# Result: bench-results/auth-flood.jsonl.
bench-auth-flood: test-deps
	@$(SWIFT) build -c release --product service-bench $(SWIFT_FLAGS) >/dev/null
	@mkdir -p bench-results
	@"$$($(SWIFT) build -c release --show-bin-path $(SWIFT_FLAGS))/service-bench" --mode auth-flood --pairs 16 --duration 5s \
	  --addresses 10 --guesses 10000 --guesses-per-second 2000 | tee bench-results/auth-flood.jsonl
	@"$$($(SWIFT) build -c release --show-bin-path $(SWIFT_FLAGS))/service-bench" --mode auth-flood --pairs 16 --duration 5s \
	  --addresses 10 --guesses 10000 | tee -a bench-results/auth-flood.jsonl
	@"$$($(SWIFT) build -c release --show-bin-path $(SWIFT_FLAGS))/service-bench" --mode auth-flood --pairs 16 --duration 5s \
	  --addresses 10 --guesses 10000 --flood-duration 5s | tee -a bench-results/auth-flood.jsonl

# Webhook delivery throughput: events/s from one replica to a local HTTPS receiver, and the
# gateway's CPU per delivery (Tests/GatewayServiceTests/bench/webhook-bench.sh).
BENCH_SUITES += webhook-bench
WEBHOOK_BENCH_EVENTS ?= 2000
.PHONY: webhook-bench
webhook-bench:
	@$(SWIFT) build -c release --product reader-gateway $(SWIFT_FLAGS) >/dev/null
	@$(SWIFT) build -c release --product gatewayctl $(SWIFT_FLAGS) >/dev/null
	@mkdir -p bench-results
	@bin="$$($(SWIFT) build -c release --show-bin-path $(SWIFT_FLAGS))"; \
	Tests/GatewayServiceTests/bench/webhook-bench.sh "$$bin/reader-gateway" "$$bin/gatewayctl" $(WEBHOOK_BENCH_EVENTS) | tee bench-results/webhooks.md
