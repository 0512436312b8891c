# ReaderGateway — the two commands are `make run` and `make test`; see README.md.
#
# Every target installs what it needs: system packages with apt-get (as root;
# otherwise it prints the one apt-get line to run and stops) and test-only
# Python tools with pip into a private virtualenv under .build-venv/.

SHELL := /bin/bash
SWIFT ?= swift
CONFIGURATION ?= debug
SWIFT_FLAGS ?=

# Packages the gateway needs to build and run.
APT_PACKAGES := pkg-config libssl-dev libpq-dev postgresql
# Packages only the tests, benchmarks and linters need (extended by each layer).
TEST_APT_PACKAGES := python3-venv
# Python tools only the tests need, installed into $(VENV).
TEST_PIP_PACKAGES :=
VENV := .build-venv
# Suites beyond `swift test` (interop, deployment, scans): make targets added by
# the fragments below, run by `make test` after the Swift tests.
TEST_SUITES :=
# Benchmarks: make targets added by the fragments below, run by `make bench`.
BENCH_SUITES :=

# Each test folder may bring a make fragment with its own tools and suites.
include $(wildcard Tests/*/*.mk)

.PHONY: help run build test test-repeat deps test-deps bench lint clean

help:
	@echo "make run    build and start the gateway on its embedded default"
	@echo "make test   install what is missing, build, run every test (SKIP_SUITES=\"container ...\" leaves suites out by name)"
	@echo "make test-repeat RUNS=10 [LOAD=1]   the Swift suite N times (under CPU load), failures per test"
	@echo "make bench  benchmarks, each beside a peer measured in the same run"
	@echo "make bench-fleet   fleet scale: 15,000 readers, three replicas, a reconnect storm (about 15 min; not in make bench)"
	@echo "make upgrade-test   the previous release (CHANGELOG.md) and this one side by side, rolled forward, back and forward under load"
	@echo "make fuzz   fuzz the decoders for a bounded time"
	@echo "make lint   strict compile (warnings are errors), module lines, tests that cannot fail"

# --- installation -----------------------------------------------------------

define apt_install
	@missing=""; \
	for package in $(1); do \
	  dpkg-query -W -f='$${Status}' "$$package" 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else \
	    echo "missing system packages. Run this once, then try again:"; \
	    echo "  sudo apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi
endef

deps:
	$(call apt_install,$(APT_PACKAGES))

test-deps: deps
	$(call apt_install,$(TEST_APT_PACKAGES))
	@if [ -n "$(strip $(TEST_PIP_PACKAGES))" ]; then \
	  [ -x $(VENV)/bin/python ] || python3 -m venv $(VENV); \
	  $(VENV)/bin/python -m pip install -q --disable-pip-version-check $(TEST_PIP_PACKAGES); \
	fi

# --- the two commands ---------------------------------------------------------

build: deps
	$(SWIFT) build -c $(CONFIGURATION) $(SWIFT_FLAGS)

# Development only: pages served from any localhost port may use the gateway (never the
# production default, which allows no page origin; docs/operations.md). ARGS may name others.
RUN_ORIGINS ?= http://localhost:*,http://127.0.0.1:*
run: build
	@echo "make run: browser pages allowed from $(RUN_ORIGINS) (development; set --websocket-origins in production)"
	$(SWIFT) run -c $(CONFIGURATION) --skip-build reader-gateway $(if $(findstring --websocket-origins,$(ARGS)),,--websocket-origins '$(RUN_ORIGINS)') $(ARGS)

# Every suite runs even when an earlier one fails; the last line names those that failed and
# those skipped. A suite that cannot run fails; SKIP_SUITES="container ..." leaves suites out by name.
SKIP_SUITES ?=
# Tests of the Swift suite in flight at once. Unbounded (plain `swift test`), all 1,140 start
# together and share the cooperative pool's threads (two here): every await of every test waits
# behind the whole suite's queue, so a test's wall clock is the suite's, and a 50-message echo
# over memory took more than 30 s. At 8 a test's time is its own, and the whole suite took
# 311 s here against 337 s unbounded (one run each, same machine).
SWIFT_TEST_WIDTH ?= 8
ALL_SUITES := swift-test $(TEST_SUITES)
UNKNOWN_SKIPS := $(filter-out $(ALL_SUITES),$(SKIP_SUITES))
SKIPPED_NOTE := $(if $(strip $(SKIP_SUITES)),; skipped because SKIP_SUITES names them: $(strip $(SKIP_SUITES)))

test: test-deps
	@if [ -n "$(strip $(UNKNOWN_SKIPS))" ]; then \
	  echo "make test: SKIP_SUITES names$(addprefix " ",$(UNKNOWN_SKIPS)), not a suite; the suites: $(ALL_SUITES)"; exit 1; \
	fi
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	@failed=""; ran=""; took=""; \
	for suite in $(filter-out $(SKIP_SUITES),$(ALL_SUITES)); do \
	  ran="$$ran $$suite"; started=$$(date +%s); \
	  if [ "$$suite" = swift-test ]; then SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(SWIFT_TEST_WIDTH) $(SWIFT) test --skip-build $(SWIFT_FLAGS) || failed="$$failed $$suite"; \
	  else $(MAKE) --no-print-directory "$$suite" || failed="$$failed $$suite"; fi; \
	  took="$$took $$suite $$(( $$(date +%s) - started )) s,"; \
	done; \
	echo "make test: time per suite:$${took%,}"; \
	if [ -n "$$failed" ]; then echo "make test: FAILED:$$failed (of:$$ran)$(SKIPPED_NOTE)"; exit 1; fi; \
	echo "make test: every suite passed ($${ran# })$(SKIPPED_NOTE)"

# The Swift suite RUNS times in a row, then how many runs each test failed (Tests/Harness/test_repeat.py).
# LOAD=1 keeps every core busy with stress-ng meanwhile.
RUNS ?= 5
LOAD ?= 0
test-repeat: test-deps
	$(call apt_install,stress-ng)
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	python3 Tests/Harness/test_repeat.py --runs $(RUNS) $(if $(filter 1,$(LOAD)),--load) --test-width $(SWIFT_TEST_WIDTH) --swift $(SWIFT) -- $(SWIFT_FLAGS)

# --- everything else ----------------------------------------------------------

bench: test-deps
	$(SWIFT) build -c release $(SWIFT_FLAGS)
	@mkdir -p bench-results
	@for suite in $(BENCH_SUITES); do $(MAKE) --no-print-directory "$$suite" || exit 1; done

# Strict compile, then the module lines: each layer of docs/architecture.md imports only those above it;
# then the tests: each can fail, none ends or skips quietly (Tests/Harness/check-tests.py);
# then the links between the Markdown files, anchors included (Tests/Harness/check-doc-links.py);
# then the client core's public surface: no wire type outside its listed escape hatches (Tests/Harness/check-client-surface.py).
lint: deps
	$(call apt_install,python3)
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors $(SWIFT_FLAGS)
	@python3 Tests/Harness/check-layers.py . --swift $(SWIFT)
	@Tests/Harness/check-encapsulation.sh
	@python3 Tests/Harness/check-tests.py
	@python3 Tests/Harness/check-doc-links.py
	@python3 Tests/Harness/check-client-surface.py

clean:
	rm -rf .build .build-* $(VENV) test-results test-artifacts
