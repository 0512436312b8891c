"""Fixtures for the JavaScript codec conformance test."""

import os

import pytest


def pytest_addoption(parser):
    parser.addoption("--node", default="node", help="the node executable")


@pytest.fixture(scope="session")
def node(request):
    return request.config.getoption("--node")
