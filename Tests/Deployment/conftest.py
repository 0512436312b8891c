"""Shared fixtures of the deployment tests: paths, chart rendering, timings."""

from __future__ import annotations

import pathlib
import time
from contextlib import contextmanager

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHART = ROOT / "helm" / "reader-gateway"
DOCKERFILE = ROOT / "docker" / "Dockerfile"
PRODUCTION_VALUES = pathlib.Path(__file__).resolve().parent / "values-production.yaml"
CACHE = ROOT / ".build-deployment"

_timings: list[tuple[str, float]] = []


@contextmanager
def timed(step: str):
    """Records how long `step` took, for the summary at the end of the run."""
    start = time.monotonic()
    try:
        yield
    finally:
        _timings.append((step, time.monotonic() - start))


def pytest_terminal_summary(terminalreporter):
    if not _timings:
        return
    terminalreporter.section("deployment timings")
    for step, seconds in _timings:
        terminalreporter.write_line(f"{seconds:8.1f} s  {step}")


@pytest.fixture(scope="session")
def venv_bin() -> pathlib.Path:
    import sys

    return pathlib.Path(sys.executable).parent
