# GatewayWebClient: the browser library (plain ES modules) and its generated codecs.
#
#   make generate-js      regenerate the JavaScript codecs from proto/
#   make js-drift         fail when the committed generated JavaScript differs from proto/
#   make js-conformance   the JavaScript codecs against Python's official protobuf runtime, both ways
#   make js-client-test   the client library under node against a Python WebSocket test server
#   make js-types         `tsc --noEmit` on an example page that uses every method, against readergateway.d.ts
#   make js-live-test     the library, imported from a real reader-gateway, drives two lanes and a reader-sim over WebSocket

TEST_APT_PACKAGES += nodejs
TEST_PIP_PACKAGES += websockets
TEST_SUITES += js-drift js-conformance js-client-test js-types js-live-test

JS_OUT = Sources/GatewayWebClient/generated
JS_PROTOS = readergateway/v1/errors.proto readergateway/v1/common.proto readergateway/v1/frames.proto \
	readergateway/v1/sdk.proto readergateway/v1/admin.proto
NODE ?= node

.PHONY: generate-js js-drift js-conformance js-client-test js-types js-live-test

generate-js: test-deps
	rm -rf $(JS_OUT) && mkdir -p $(JS_OUT)
	$(VENV)/bin/python proto/tools/generate_js.py --proto-root proto --out $(JS_OUT) $(JS_PROTOS)

js-drift: test-deps
	@tmp=$$(mktemp -d); \
	$(VENV)/bin/python proto/tools/generate_js.py --proto-root proto --out $$tmp $(JS_PROTOS) && \
	if diff -r $$tmp $(JS_OUT); then \
	  echo "js-drift: generated JavaScript matches proto/"; rm -rf $$tmp; \
	else \
	  echo "js-drift: the generated JavaScript differs from proto/. Run 'make generate-js' and commit the result."; rm -rf $$tmp; exit 1; \
	fi

js-conformance: test-deps
	$(VENV)/bin/python -m pytest -q Tests/GatewayWebClientTests/conformance --node $(NODE)

# node 20 has WebSocket behind a flag (on by default from node 22).
js-client-test: test-deps
	$(VENV)/bin/python Tests/GatewayWebClientTests/client/run_client_tests.py --node $(NODE)

# Debian's node-typescript provides tsc; the example page imports the library by its
# relative path, so tsc reads readergateway.d.ts beside readergateway.js.
js-types:
	$(call apt_install,node-typescript)
	tsc -p Tests/GatewayWebClientTests/types/tsconfig.json
	@echo "js-types: the example page type-checks against readergateway.d.ts"

js-live-test: test-deps
	$(SWIFT) build --product reader-gateway $(SWIFT_FLAGS)
	$(SWIFT) build --product reader-sim $(SWIFT_FLAGS)
	$(VENV)/bin/python Tests/GatewayWebClientTests/live/run_live_tests.py --bin-dir "$$($(SWIFT) build --show-bin-path $(SWIFT_FLAGS))" --node $(NODE)
