"""Fixtures for the interop test: the Swift driver and Python modules compiled from proto/."""

import importlib
import os
import subprocess
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PROTO_ROOT = os.path.join(REPO, "proto")
PROTOS = [
    "readergateway/v1/errors.proto",
    "readergateway/v1/common.proto",
    "readergateway/v1/frames.proto",
    "readergateway/v1/sdk.proto",
    "readergateway/v1/reader_link.proto",
    "readergateway/v1/admin.proto",
    "readergateway/testing/v1/conformance.proto",
]


def pytest_addoption(parser):
    parser.addoption("--swift-bin", required=True, help="path of the wire-interop executable")


@pytest.fixture(scope="session")
def swift_bin(request):
    path = request.config.getoption("--swift-bin")
    assert os.access(path, os.X_OK), f"{path} is not an executable; run swift build --product wire-interop"
    return path


@pytest.fixture(scope="session")
def pb(tmp_path_factory):
    """The generated Python modules, keyed by full message name lookup."""
    out = tmp_path_factory.mktemp("python_out")
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTO_ROOT}", f"--python_out={out}"] + PROTOS,
        check=True,
    )
    sys.path.insert(0, str(out))
    from google.protobuf import symbol_database  # noqa: F401
    from google.protobuf.internal import api_implementation

    modules = {}
    for proto in PROTOS:
        name = proto[:-len(".proto")].replace("/", ".") + "_pb2"
        modules[name] = importlib.import_module(name)
    return Runtime(modules, api_implementation.Type())


class Runtime:
    def __init__(self, modules, implementation):
        self.modules = modules
        self.implementation = implementation
        from google.protobuf import message_factory, descriptor_pool

        self.pool = descriptor_pool.Default()
        self.factory = message_factory

    def cls(self, full_name):
        return self.factory.GetMessageClass(self.pool.FindMessageTypeByName(full_name))
