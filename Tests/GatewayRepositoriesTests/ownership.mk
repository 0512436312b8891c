# Ownership benchmark: OwnershipStore.claim beside pgbench running the same one-statement claim
# SQL, same client counts, same throwaway PostgreSQL server, same run.
#   make bench-ownership OWNERSHIP_BENCH_CLIENTS=1,8,32,64 OWNERSHIP_BENCH_SECONDS=2 OWNERSHIP_BENCH_REPEAT=3

BENCH_SUITES += bench-ownership

OWNERSHIP_BENCH_CLIENTS ?= 1,8,32,64
OWNERSHIP_BENCH_SECONDS ?= 2
OWNERSHIP_BENCH_REPEAT ?= 3
OWNERSHIP_BENCH_POOL ?= 8

.PHONY: bench-ownership
bench-ownership:
	@$(SWIFT) build -c release --product OwnershipBenchmark $(SWIFT_FLAGS) >/dev/null
	@set -e; \
	bin=$$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1); \
	[ -x "$$bin/pgbench" ] || { echo "pgbench not found under /usr/lib/postgresql/*/bin (apt-get install postgresql)"; exit 1; }; \
	dir=$$(mktemp -d /tmp/ownership-bench.XXXXXX); \
	as_server() { if [ "$$(id -u)" = 0 ]; then runuser -u postgres -- "$$@"; else "$$@"; fi; }; \
	[ "$$(id -u)" != 0 ] || chown postgres:postgres "$$dir"; \
	cleanup() { as_server "$$bin/pg_ctl" -D "$$dir/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$$dir"; }; \
	trap cleanup EXIT; \
	as_server "$$bin/initdb" -D "$$dir/data" -A trust -U postgres >/dev/null; \
	port=$$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'); \
	as_server "$$bin/pg_ctl" -D "$$dir/data" -l "$$dir/server.log" -w \
	  -o "-c listen_addresses=127.0.0.1 -p $$port -k $$dir -c max_connections=200" start >/dev/null; \
	./.build/release/OwnershipBenchmark --url "postgresql://postgres@127.0.0.1:$$port" \
	  --pgbench "$$bin/pgbench" --clients $(OWNERSHIP_BENCH_CLIENTS) --seconds $(OWNERSHIP_BENCH_SECONDS) --repeat $(OWNERSHIP_BENCH_REPEAT) \
	  --pool $(OWNERSHIP_BENCH_POOL) --output bench-results/ownership.md

# What the event log costs a claim: pgbench on the bare claim with the ownership event trigger
# enabled and disabled, interleaved on one throwaway server (not part of `make bench`).
#   make bench-event-triggers EVENT_BENCH_ROUNDS=8 EVENT_BENCH_SECONDS=5
EVENT_BENCH_ROUNDS ?= 8
EVENT_BENCH_SECONDS ?= 5
.PHONY: bench-event-triggers
bench-event-triggers:
	@$(SWIFT) build -c release --product OwnershipBenchmark $(SWIFT_FLAGS) >/dev/null
	@Tests/GatewayRepositoriesTests/bench/trigger-cost-bench.sh ./.build/release/OwnershipBenchmark ownership_history ownership_history_events events \
	  "SELECT count(*) FROM events" $(EVENT_BENCH_ROUNDS) $(EVENT_BENCH_SECONDS)

# What the webhook queue costs a claim: the same pgbench claim, each writing its ownership event,
# with the queue's trigger (migration 0025) enabled and one endpoint wanting every event, against
# the trigger disabled, interleaved: claims/s and PostgreSQL's CPU per claim, both ways (part of
# `make bench`, beside webhook-bench's deliveries per second).
#   make bench-webhook-queue EVENT_BENCH_ROUNDS=8 EVENT_BENCH_SECONDS=5
BENCH_SUITES += bench-webhook-queue
.PHONY: bench-webhook-queue
bench-webhook-queue:
	@$(SWIFT) build -c release --product OwnershipBenchmark $(SWIFT_FLAGS) >/dev/null
	@Tests/GatewayRepositoriesTests/bench/trigger-cost-bench.sh ./.build/release/OwnershipBenchmark events events_webhook_deliveries "the webhook queue" \
	  "SELECT count(*) FROM webhook_deliveries" $(EVENT_BENCH_ROUNDS) $(EVENT_BENCH_SECONDS) \
	  "INSERT INTO webhook_endpoints (id, account_id, url, enabled_events, secret) SELECT 'we_bench_' || account_id, account_id, 'https://localhost:9/', '{*}', 'whsec_bench' FROM readers GROUP BY account_id"


# What a batched connect writes in PostgreSQL, in units that do not depend on the machine's load
# (WAL bytes and records, rows, PL/pgSQL calls and nested statements per claim; the plan of one
# batch): batches of takeovers through `OwnershipStatements.claimBatch` on a throwaway server
# (not part of `make bench`; about 20 s). CLAIM_WRITE_CALLGRIND=1 adds PostgreSQL's instructions per
# claim (callgrind on a single-user backend; about a minute more); CLAIM_WRITE_PRELOAD=N puts N events
# in the log first (about a minute per million), so its indexes are as deep as a busy fleet's.
#   make bench-claim-writes CLAIM_WRITE_BATCHES=500 CLAIM_WRITE_BATCH=8 [CLAIM_WRITE_PRELOAD=1000000] [CLAIM_WRITE_CALLGRIND=1]
CLAIM_WRITE_BATCHES ?= 500
CLAIM_WRITE_BATCH ?= 8
CLAIM_WRITE_PRELOAD ?= 0
CLAIM_WRITE_CALLGRIND ?= 0
.PHONY: bench-claim-writes
bench-claim-writes:
	@$(SWIFT) build -c release --product OwnershipBenchmark $(SWIFT_FLAGS) >/dev/null
	@CLAIM_WRITE_CALLGRIND=$(CLAIM_WRITE_CALLGRIND) Tests/GatewayRepositoriesTests/bench/claim-write-cost.sh ./.build/release/OwnershipBenchmark $(CLAIM_WRITE_BATCHES) $(CLAIM_WRITE_BATCH) $(CLAIM_WRITE_PRELOAD)
