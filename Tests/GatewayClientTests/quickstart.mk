# GatewayClient: the Swift quickstart of docs/client.md, built as a package of its own.
#
#   make quickstart-test   copy the page's Package.swift and sources into a new package beside
#                          the checkout, build it (no warnings) and run it against a gateway and reader-sim

TEST_SUITES += quickstart-test

.PHONY: quickstart-test

quickstart-test: build
	Tests/GatewayClientTests/quickstart-test.sh $$($(SWIFT) build -c $(CONFIGURATION) $(SWIFT_FLAGS) --show-bin-path)
