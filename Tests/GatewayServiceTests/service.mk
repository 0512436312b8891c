# Service (GatewayService): relayed command round trips in `make bench`, beside nginx; connect
# arbitrations beside pgbench.
# Included by the top-level Makefile; targets run from the repository root.

TEST_APT_PACKAGES += nginx-light libnginx-mod-stream postgresql
BENCH_SUITES += service-bench

.PHONY: service-bench

# Lane → gateway → reader → gateway → lane (TLS both legs), 16 and 256 pairs, beside nginx
# relaying TLS on both legs; then connect arbitrations through the service beside pgbench running
# the same claim statement. Results: bench-results/service.md and bench-results/service.jsonl.
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
