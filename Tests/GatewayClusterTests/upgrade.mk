# Upgrades and rollbacks: the previous release (the commit CHANGELOG.md records for it, built
# once and cached under .build-previous/<commit>/) and this one side by side on one PostgreSQL
# under lane load, rolled forward, back and forward again (Tests/GatewayClusterTests/UpgradeTests.swift).
#
#   make upgrade-test   about 5 minutes, plus the previous release's build the first time
#                       for a commit (a debug build of reader-gateway: 10-20 minutes on 2 busy cores)

TEST_SUITES += upgrade-test

.PHONY: upgrade-test

upgrade-test: test-deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	@previous=$$(SWIFT=$(SWIFT) Tests/GatewayClusterTests/build-previous-release.sh) || exit 1; \
	set -- $$previous; \
	UPGRADE_PREVIOUS_VERSION=$$1 UPGRADE_PREVIOUS_BINARY=$$2 $(SWIFT) test --skip-build $(SWIFT_FLAGS) --filter 'GatewayClusterTests.UpgradeTests'
