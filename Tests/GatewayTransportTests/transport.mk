# Transport (GatewayTransport): external TLS scan in `make test`, benchmarks in `make bench`.
# Included by the top-level Makefile; targets run from the repository root.

TEST_APT_PACKAGES += sslscan nginx-light libnginx-mod-stream gcc
TEST_SUITES += transport-tls-scan
BENCH_SUITES += transport-bench

TRANSPORT_SCRIPTS := Tests/GatewayTransportTests/scripts

.PHONY: transport-tls-scan transport-bench

# sslscan against a listening transport-echo (built by `swift build --build-tests`).
transport-tls-scan:
	@$(SWIFT) build --product transport-echo $(SWIFT_FLAGS) >/dev/null
	@$(TRANSPORT_SCRIPTS)/tls-scan.sh "$$($(SWIFT) build --show-bin-path $(SWIFT_FLAGS))/transport-echo"

# Round trips, handshakes and idle memory, ours beside nginx and openssl s_server, in one run.
# Results: bench-results/transport.md (table) and bench-results/transport.jsonl (raw).
transport-bench:
	@$(TRANSPORT_SCRIPTS)/bench.sh "$$($(SWIFT) build -c release --show-bin-path $(SWIFT_FLAGS))" bench-results
