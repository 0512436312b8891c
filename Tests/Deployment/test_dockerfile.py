"""docker/Dockerfile lints clean with hadolint and has the shape the
operations guide promises: a Swift build stage, a slim runtime with only
libssl3, libpq5 and ca-certificates, a non-root user, both ports, a
HEALTHCHECK, and a runtime-only target for host-built binaries."""

from __future__ import annotations

import re
import subprocess

from conftest import DOCKERFILE, ROOT


def instructions() -> list[tuple[str, str]]:
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            found.append((keyword.upper(), rest.strip()))
    return found


def test_hadolint_reports_nothing(venv_bin):
    result = subprocess.run(
        [str(venv_bin / "hadolint"), "--no-color", str(DOCKERFILE)],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == ""


def test_stages_and_targets():
    stages = [re.split(r"\s+", rest)[-1] for keyword, rest in instructions() if keyword == "FROM"]
    assert stages == ["runtime-base", "runtime-prebuilt", "build", "runtime"]
    args = dict(rest.split("=", 1) for keyword, rest in instructions() if keyword == "ARG" and "=" in rest)
    assert args["SWIFT_IMAGE"].startswith("swift:6")
    assert args["RUNTIME_IMAGE"] == "debian:bookworm-slim"
    runs = [rest for keyword, rest in instructions() if keyword == "RUN"]
    assert any("swift build -c release --product reader-gateway" in run for run in runs)


def test_runtime_is_slim_non_root_and_healthchecked():
    text = DOCKERFILE.read_text()
    runtime_base = text.split("AS runtime-base", 1)[1].split("\nFROM ", 1)[0]
    assert "for package in libssl3 libpq5 ca-certificates" in runtime_base
    assert "postgresql" not in runtime_base
    keywords = instructions()
    assert ("USER", "10001:10001") in keywords
    assert ("EXPOSE", "8443 9090") in keywords
    healthcheck = next(rest for keyword, rest in keywords if keyword == "HEALTHCHECK")
    assert "/healthz" in healthcheck
    assert any(keyword == "VOLUME" and "/var/lib/reader-gateway" in rest for keyword, rest in keywords)


def test_dockerignore_keeps_the_context_small():
    lines = [l.strip() for l in (ROOT / ".dockerignore").read_text().splitlines() if l.strip() and not l.startswith("#")]
    assert lines[0] == "*"
    assert set(lines[1:]) == {"!Package.swift", "!Sources/"}
