# GatewayWire: protobuf contracts, generated code, interop, fuzzing, benchmark.
#
#   make generate-proto   regenerate the Swift message types from proto/
#   make wire-drift       fail when the committed generated code differs from proto/
#   make wire-interop     Python (official protobuf runtime) <-> Swift, both directions
#   make fuzz             fuzz the frame and message decoders (FUZZ_SECONDS each, default 60)
#   make wire-bench       codec and frame decoder throughput beside Python's upb protobuf

TEST_PIP_PACKAGES += grpcio-tools protobuf pytest
TEST_SUITES += wire-drift wire-interop
BENCH_SUITES += wire-bench

WIRE_PYTHON = $(VENV)/bin/python
WIRE_PROTOS = readergateway/v1/errors.proto readergateway/v1/common.proto readergateway/v1/frames.proto \
	readergateway/v1/sdk.proto readergateway/v1/reader_link.proto readergateway/v1/admin.proto readergateway/v1/replica_link.proto
WIRE_TEST_PROTOS = readergateway/testing/v1/conformance.proto
# The services the gateway serves: one generated route protocol each (a missing handler does not compile).
WIRE_SERVICE_PROTOS = readergateway/v1/sdk.proto readergateway/v1/reader_link.proto readergateway/v1/admin.proto readergateway/v1/replica_link.proto
FUZZ_SECONDS ?= 60
FUZZ_SCRATCH = .build-fuzz

.PHONY: generate-proto wire-drift wire-interop wire-bench fuzz

# Writes the generated Swift for $(1) (product or test protos) into directory $(2).
define wire_generate
	rm -rf $(2) && mkdir -p $(2)
	$(WIRE_PYTHON) proto/tools/generate_swift.py --proto-root proto --out $(2) $(3) $(1)
endef

generate-proto: test-deps
	$(call wire_generate,$(WIRE_PROTOS),Sources/GatewayWire/Generated,)
	$(call wire_generate,$(WIRE_TEST_PROTOS),Sources/Tools/GatewayWireConformance/Generated,--import GatewayWire)
	$(call wire_generate,$(WIRE_SERVICE_PROTOS),Sources/GatewayService/Generated,--routes)

wire-drift: test-deps
	@tmp=$$(mktemp -d); \
	$(WIRE_PYTHON) proto/tools/generate_swift.py --proto-root proto --out $$tmp/product $(WIRE_PROTOS) && \
	$(WIRE_PYTHON) proto/tools/generate_swift.py --proto-root proto --out $$tmp/testing --import GatewayWire $(WIRE_TEST_PROTOS) && \
	$(WIRE_PYTHON) proto/tools/generate_swift.py --proto-root proto --out $$tmp/routes --routes $(WIRE_SERVICE_PROTOS) && \
	if diff -r $$tmp/product Sources/GatewayWire/Generated && diff -r $$tmp/testing Sources/Tools/GatewayWireConformance/Generated \
	   && diff -r $$tmp/routes Sources/GatewayService/Generated; then \
	  echo "wire-drift: generated Swift matches proto/"; rm -rf $$tmp; \
	else \
	  echo "wire-drift: the generated Swift differs from proto/. Run 'make generate-proto' and commit the result."; rm -rf $$tmp; exit 1; \
	fi

wire-interop: test-deps
	$(SWIFT) build --product wire-interop $(SWIFT_FLAGS)
	$(WIRE_PYTHON) -m pytest -q Tests/GatewayWireTests/Interop --swift-bin "$$($(SWIFT) build --show-bin-path $(SWIFT_FLAGS))/wire-interop"

wire-bench: test-deps
	$(SWIFT) build -c release --product wire-bench $(SWIFT_FLAGS)
	@mkdir -p bench-results
	$(WIRE_PYTHON) Tests/GatewayWireTests/Bench/wire_bench.py --swift-bin "$$($(SWIFT) build -c release --show-bin-path $(SWIFT_FLAGS))/wire-bench" | tee bench-results/wire.txt

# libFuzzer build in its own scratch directory, so the normal builds are untouched.
fuzz: test-deps
	$(SWIFT) build -c release --scratch-path $(FUZZ_SCRATCH) --product wire-fuzz \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DWIRE_FUZZ -Xswiftc -parse-as-library $(SWIFT_FLAGS)
	@mkdir -p fuzz-artifacts
	@for target in frame message; do \
	  work=$$(mktemp -d); cp Tests/GatewayWireTests/FuzzCorpus/$$target/* $$work/; \
	  echo "fuzzing the $$target decoder for $(FUZZ_SECONDS) s"; \
	  WIRE_FUZZ_TARGET=$$target $(FUZZ_SCRATCH)/release/wire-fuzz $$work \
	    -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
	    -artifact_prefix=fuzz-artifacts/$$target- -print_final_stats=1 || exit 1; \
	  rm -rf $$work; \
	done
