# GatewayWebSocket: interop with independent WebSocket clients, fuzzing the upgrade parser
# and the frame decoder.
#
#   make websocket-interop       the binding on a real socket (websocket-echo) against Python's
#                                `websockets` client, raw bytes and node's `ws` client (Debian's
#                                node-ws, which runs on Debian's own node 18) (in `make test`)
#   make websocket-fuzz          libFuzzer on the handshake parser, then on the frame decoder
#                                and connection state machine (FUZZ_SECONDS each); part of `make fuzz`
#   make websocket-fuzz-replay   the committed corpus through the same checks, without libFuzzer (in `make test`)
#   make websocket-bench         relayed round trips with WebSocket lanes beside raw lanes and beside
#                                nginx proxying WebSocket, CPU per round trip (in `make bench`)
#   make relay-instructions      instructions per relayed round trip under callgrind, raw and WebSocket
#                                lanes, the gateway's loops apart from the load's, and the relay's steps

TEST_PIP_PACKAGES += websockets pytest
TEST_SUITES += websocket-interop websocket-fuzz-replay
TEST_APT_PACKAGES += nginx-light nodejs node-ws
# Where Debian's node-ws puts the `ws` module (Debian's node looks there; other builds need NODE_PATH).
NODE_MODULES ?= /usr/share/nodejs
BENCH_SUITES += websocket-bench
WEBSOCKET_FUZZ_CORPUS = Tests/GatewayWebSocketTests/FuzzCorpus

.PHONY: websocket-interop websocket-fuzz websocket-fuzz-replay websocket-bench relay-instructions

websocket-interop: test-deps
	$(SWIFT) build --product websocket-echo $(SWIFT_FLAGS)
	$(VENV)/bin/python -m pytest -q Tests/GatewayWebSocketTests/Interop --echo-bin "$$($(SWIFT) build --show-bin-path $(SWIFT_FLAGS))/websocket-echo" \
	  --node $(NODE) --node-modules $(NODE_MODULES)

# `make fuzz` (Tests/GatewayWireTests/wire.mk) runs this first.
fuzz: websocket-fuzz

websocket-fuzz: test-deps
	$(SWIFT) build -c release --scratch-path $(FUZZ_SCRATCH) --product websocket-fuzz \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DWEBSOCKET_FUZZ -Xswiftc -parse-as-library $(SWIFT_FLAGS)
	@mkdir -p fuzz-artifacts
	@for target in handshake frames; do \
	  work=$$(mktemp -d); cp $(WEBSOCKET_FUZZ_CORPUS)/$$target/* $$work/; \
	  echo "fuzzing the WebSocket $$target decoder for $(FUZZ_SECONDS) s"; \
	  WEBSOCKET_FUZZ_TARGET=$$target $(FUZZ_SCRATCH)/release/websocket-fuzz $$work \
	    -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -max_len=16384 -timeout=10 \
	    -artifact_prefix=fuzz-artifacts/websocket-$$target- -print_final_stats=1 || exit 1; \
	  rm -rf $$work; \
	done

websocket-fuzz-replay:
	$(SWIFT) build --product websocket-fuzz $(SWIFT_FLAGS)
	@bin="$$($(SWIFT) build --show-bin-path $(SWIFT_FLAGS))/websocket-fuzz"; \
	for target in handshake frames; do \
	  WEBSOCKET_FUZZ_TARGET=$$target $$bin replay $(WEBSOCKET_FUZZ_CORPUS)/$$target/* >/dev/null || exit 1; \
	done; \
	echo "websocket-fuzz-replay: the corpus passes the fuzz checks"

# Lane ─WebSocket on TLS─▶ gateway ─TLS─▶ reader and back, 16 and 256 pairs, beside the same relay
# with raw lanes and beside nginx proxying WebSocket (proxy_pass with Upgrade, TLS both legs) to
# transport-echo --websocket; interleaved rounds, medians, gateway CPU per round trip.
# Results: bench-results/websocket.md and bench-results/websocket.jsonl.
websocket-bench: test-deps
	@$(SWIFT) build -c release --product service-bench $(SWIFT_FLAGS) >/dev/null
	@$(SWIFT) build -c release --product transport-echo $(SWIFT_FLAGS) >/dev/null
	@$(SWIFT) build -c release --product transport-load $(SWIFT_FLAGS) >/dev/null
	@Tests/GatewayWebSocketTests/bench/websocket-bench.sh "$$($(SWIFT) build -c release --show-bin-path $(SWIFT_FLAGS))" bench-results

# The relay's instructions per round trip, apart from the machine's load (callgrind at two lengths;
# PAIRS, SHORT, LONG, LANES). Results: bench-results/relay-instructions.md.
relay-instructions: deps
	$(call apt_install,valgrind binutils)
	@$(SWIFT) build -c release --product service-bench $(SWIFT_FLAGS) >/dev/null
	@Tests/GatewayWebSocketTests/bench/relay-instructions.sh "$$($(SWIFT) build -c release --show-bin-path $(SWIFT_FLAGS))" bench-results
