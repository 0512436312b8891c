# GatewayPostgres: the libpq client measured beside pgbench (same statement, same client counts).
BENCH_SUITES += bench-store

.PHONY: bench-store
bench-store:
	@mkdir -p bench-results
	.build/release/StoreBenchmark --seconds 3 --output bench-results/store.txt
