# Browser tests: lane pages in headless Chromium (Selenium, chromium-driver) against a real
# reader-gateway and reader-sim over the WebSocket binding (Tests/GatewayWebClientTests/browser).
#
#   make browser-test     the four failIfInUse cells, who took the reader, the reader lost within
#                         the offline bound, a foreign origin refused; then the console's webhook
#                         endpoints against the tests' HTTPS receiver; screenshots in test-artifacts/browser/
#   make browser-webhooks-test   the console's webhook endpoints alone

TEST_APT_PACKAGES += chromium chromium-driver openssl
TEST_PIP_PACKAGES += selenium
TEST_SUITES += browser-test

.PHONY: browser-test browser-webhooks-test

browser-test: test-deps
	$(SWIFT) build --product reader-gateway $(SWIFT_FLAGS)
	$(SWIFT) build --product reader-sim $(SWIFT_FLAGS)
	$(SWIFT) build --product gatewayctl $(SWIFT_FLAGS)
	$(VENV)/bin/python Tests/GatewayWebClientTests/browser/run_browser_tests.py \
	  --bin-dir "$$($(SWIFT) build --show-bin-path $(SWIFT_FLAGS))" --artifacts test-artifacts/browser
	$(MAKE) --no-print-directory browser-webhooks-test

browser-webhooks-test: test-deps
	$(SWIFT) build --product reader-gateway $(SWIFT_FLAGS)
	$(SWIFT) build --product reader-sim $(SWIFT_FLAGS)
	$(SWIFT) build --product gatewayctl $(SWIFT_FLAGS)
	$(VENV)/bin/python Tests/GatewayWebClientTests/browser/run_console_webhooks_test.py \
	  --bin-dir "$$($(SWIFT) build --show-bin-path $(SWIFT_FLAGS))" --artifacts test-artifacts/browser
