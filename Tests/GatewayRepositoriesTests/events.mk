# Events (GatewayRepositories/Events): what a command outcome's event costs PostgreSQL.
# Included by the top-level Makefile; targets run from the repository root.

# What relayed commands' events write in PostgreSQL, in units that do not depend on the machine's
# load (WAL bytes and records, page images, buffers per event; the event log's reads planned at
# that size): batches of command outcome events through `ReaderEventBatcher.appendBatch` on a
# throwaway server over a log that already holds EVENT_WRITE_PRELOAD events (not part of
# `make bench`; about a minute). EVENT_WRITE_CALLGRIND=1 adds PostgreSQL's instructions per event
# (callgrind on a single-user backend).
#   make bench-event-writes EVENT_WRITE_BATCHES=400 EVENT_WRITE_BATCH=32 EVENT_WRITE_PRELOAD=1000000 [EVENT_WRITE_CALLGRIND=1]
EVENT_WRITE_BATCHES ?= 400
EVENT_WRITE_BATCH ?= 32
EVENT_WRITE_PRELOAD ?= 1000000
EVENT_WRITE_CALLGRIND ?= 0
.PHONY: bench-event-writes
bench-event-writes:
	@$(SWIFT) build -c release --product OwnershipBenchmark $(SWIFT_FLAGS) >/dev/null
	@EVENT_WRITE_CALLGRIND=$(EVENT_WRITE_CALLGRIND) Tests/GatewayRepositoriesTests/bench/event-write-cost.sh ./.build/release/OwnershipBenchmark \
	  $(EVENT_WRITE_BATCHES) $(EVENT_WRITE_BATCH) $(EVENT_WRITE_PRELOAD)
