"""Every READER_GATEWAY_* variable the chart and the image set is one the
server reads: the names are taken from the rendered Deployment (its env and
the ConfigMap it loads with envFrom) and from the Dockerfile's ENV lines, and
each must appear in `reader-gateway --help`. A renamed option fails here."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess

import pytest

from conftest import CACHE, DOCKERFILE, ROOT
from test_chart import VALUE_SETS, by_kind, objects, values_for

BINARY_CANDIDATES = [
    pathlib.Path(os.environ["READER_GATEWAY_BINARY"]) if "READER_GATEWAY_BINARY" in os.environ else None,
    CACHE / "swift" / "debug" / "reader-gateway",
    ROOT / ".build" / "debug" / "reader-gateway",
]


def server_environment_names() -> set[str]:
    binary = next((b for b in BINARY_CANDIDATES if b is not None and b.exists()), None)
    if binary is None:
        pytest.fail("no reader-gateway binary: run `make deployment-binary` (or set READER_GATEWAY_BINARY)")
    help_text = subprocess.run([str(binary), "--help"], capture_output=True, text=True, timeout=30, check=True).stdout
    names = set(re.findall(r"\benv (READER_GATEWAY_[A-Z0-9_]+)", help_text))
    assert len(names) > 10, f"--help lists too few variables; its format changed?\n{help_text}"
    return names


def chart_environment_names(value_set: str | None) -> set[str]:
    objs = objects(values_for(value_set))
    (deployment,) = by_kind(objs, "Deployment")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    names = {e["name"] for e in container.get("env", [])}
    config_maps = {c["metadata"]["name"]: c for c in by_kind(objs, "ConfigMap")}
    for source in container.get("envFrom", []):
        names |= set(config_maps[source["configMapRef"]["name"]]["data"])
    return {n for n in names if n.startswith("READER_GATEWAY_")}


@pytest.mark.parametrize("value_set", VALUE_SETS.values(), ids=VALUE_SETS.keys())
def test_chart_sets_only_options_the_server_reads(value_set):
    known = server_environment_names()
    used = chart_environment_names(value_set)
    assert {"READER_GATEWAY_DATABASE_URL", "READER_GATEWAY_PORT", "READER_GATEWAY_TLS_CERT"} <= used
    assert sorted(used - known) == []


def test_chart_extra_settings_are_checked_too():
    # config.extra adds variables by name; a misspelt one shows up here.
    used = chart_environment_names(None) | {"READER_GATEWAY_SESSION_LEASE"}
    assert sorted(used - server_environment_names()) == []


def test_image_sets_only_options_the_server_reads():
    text = DOCKERFILE.read_text()
    used = set(re.findall(r"\b(READER_GATEWAY_[A-Z0-9_]+)=", text))
    assert {"READER_GATEWAY_ADDRESS", "READER_GATEWAY_PORT", "READER_GATEWAY_OPS_PORT"} <= used
    assert sorted(used - server_environment_names()) == []


def help_text() -> str:
    binary = next((b for b in BINARY_CANDIDATES if b is not None and b.exists()), None)
    if binary is None:
        pytest.fail("no reader-gateway binary: run `make deployment-binary` (or set READER_GATEWAY_BINARY)")
    return subprocess.run([str(binary), "--help"], capture_output=True, text=True, timeout=30, check=True).stdout


def help_entry(option: str) -> str:
    """The entry `reader-gateway --help` prints for `option`: its line and the indented lines under it."""
    entries = [e for e in re.split(r"\n(?=  --)", help_text()) if e.startswith(f"  {option} ")]
    assert len(entries) == 1, f"reader-gateway --help lists {len(entries)} entries for {option}"
    return entries[0]


def test_one_tls_port_everywhere():
    # The server's default TLS port, the image's EXPOSE and ENV, and the chart's value agree.
    entry = help_entry("--port")
    assert re.search(r"default:? ?7443\b", entry), entry
    dockerfile = DOCKERFILE.read_text()
    (deployment,) = by_kind(objects(), "Deployment")
    ports = {p["name"]: p["containerPort"] for p in deployment["spec"]["template"]["spec"]["containers"][0]["ports"]}
    assert "EXPOSE 7443 7444 9090" in dockerfile and "READER_GATEWAY_PORT=7443" in dockerfile
    assert ports["tls"] == 7443


def test_one_internal_port_everywhere():
    # The server's default internal port, the image's EXPOSE and ENV, and the chart's value agree.
    entry = help_entry("--internal-port")
    assert re.search(r"default:? ?7444\b", entry), entry
    dockerfile = DOCKERFILE.read_text()
    assert "EXPOSE 7443 7444 9090" in dockerfile and "READER_GATEWAY_INTERNAL_PORT=7444" in dockerfile
    (deployment,) = by_kind(objects(), "Deployment")
    ports = {p["name"]: p["containerPort"] for p in deployment["spec"]["template"]["spec"]["containers"][0]["ports"]}
    assert ports["internal"] == 7444
