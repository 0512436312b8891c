"""Fixtures for the JavaScript codec conformance test."""

import importlib
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(__file__)
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
PROTO_ROOT = os.path.join(REPO, "proto")
RUNTIME = os.path.join(REPO, "Sources", "GatewayWebClient", "protobuf.js")
TESTING_PROTO = "readergateway/testing/v1/conformance.proto"


def pytest_addoption(parser):
    parser.addoption("--node", default="node", help="the node executable")


@pytest.fixture(scope="session")
def node(request):
    return request.config.getoption("--node")


@pytest.fixture(scope="session")
def testing_js(tmp_path_factory):
    """The JavaScript codec of the test-only conformance.proto (every kind of field, a packed
    and an unpacked repeated int32), generated beside a link to the library's own protobuf.js."""
    out = tmp_path_factory.mktemp("testing_js")
    subprocess.run(
        [sys.executable, os.path.join(PROTO_ROOT, "tools", "generate_js.py"), "--proto-root", PROTO_ROOT,
         "--out", str(out / "generated"), "readergateway/v1/errors.proto", "readergateway/v1/common.proto", TESTING_PROTO],
        check=True,
    )
    # The generated modules import "../protobuf.js" relative to their --out folder.
    os.symlink(RUNTIME, out / "protobuf.js")
    return str(out / "generated" / "readergateway" / "testing" / "v1" / "conformance.js")


@pytest.fixture(scope="session")
def testing_pb(modules, tmp_path_factory):
    """Python's module for conformance.proto (its import of common.proto resolves to `modules`')."""
    out = tmp_path_factory.mktemp("testing_python")
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTO_ROOT}", f"--python_out={out}", TESTING_PROTO],
        check=True,
    )
    sys.path.insert(0, str(out))
    return importlib.import_module(TESTING_PROTO[:-len(".proto")].replace("/", ".") + "_pb2")
