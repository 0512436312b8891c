"""docker/Dockerfile lints clean with hadolint and has the shape the
operations guide promises: a Swift build stage, a slim runtime with only
libssl3, libpq5 and ca-certificates, a non-root user, the three ports, a
HEALTHCHECK, and a runtime-only target for host-built binaries."""

from __future__ import annotations

import pathlib
import re
import shutil
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
    assert ("EXPOSE", "7443 7444 9090") in keywords
    healthcheck = next(rest for keyword, rest in keywords if keyword == "HEALTHCHECK")
    assert "/healthz" in healthcheck
    assert any(keyword == "VOLUME" and "/var/lib/reader-gateway" in rest for keyword, rest in keywords)


def test_lone_container_keeps_the_internal_port_on_loopback():
    """A container started by hand is a cluster of one: its replica-to-replica
    listener stays on loopback, so it needs no advertise address. Several
    replicas set READER_GATEWAY_INTERNAL_ADDRESS and _ADVERTISE_ADDRESS (the chart does)."""
    env = " ".join(rest for keyword, rest in instructions() if keyword == "ENV")
    assert "READER_GATEWAY_INTERNAL_ADDRESS=127.0.0.1" in env
    assert "READER_GATEWAY_INTERNAL_PORT=7444" in env
    assert "READER_GATEWAY_ADVERTISE_ADDRESS" not in env


def build_stage_copies() -> list[str]:
    text = DOCKERFILE.read_text()
    build = text.split(" AS build\n", 1)[1].split("\nFROM ", 1)[0]
    return [line.split()[1] for line in build.splitlines() if line.startswith("COPY ") and "--from" not in line]


def test_build_context_is_a_loadable_package(tmp_path):
    """What .dockerignore lets through and the build stage copies is a
    package SwiftPM can load (it wants every target's folder present)."""
    rules = [l.strip() for l in (ROOT / ".dockerignore").read_text().splitlines() if l.strip() and not l.startswith("#")]
    assert rules[0] == "*", "the context starts empty and names what it needs"
    allowed = {r[1:].rstrip("/") for r in rules if r.startswith("!")}
    excluded = {r.rstrip("/") for r in rules[1:] if not r.startswith("!")}
    copies = build_stage_copies()
    assert set(copies) <= allowed, f"the build stage copies {copies}, .dockerignore allows {allowed}"
    for source in copies:
        origin = ROOT / source
        if origin.is_dir():
            shutil.copytree(origin, tmp_path / source, ignore=lambda d, names: [
                n for n in names if str((pathlib.Path(d) / n).relative_to(ROOT)) in excluded
            ])
        else:
            shutil.copy2(origin, tmp_path / source)
    assert not (tmp_path / "Tests" / "Deployment").exists()
    result = subprocess.run(
        ["swift", "package", "--scratch-path", str(tmp_path / ".build"), "describe", "--type", "json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "reader-gateway" in result.stdout
