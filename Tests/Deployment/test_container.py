"""Builds the runtime-only image from the host-built binary with a real
container engine (podman with runc) on a base image made here with
debootstrap, and runs it: as a non-root user on a read-only root
filesystem, and against a PostgreSQL started for the test on loopback,
until /readyz answers 200.

No registry is reachable, so the base image is Debian bookworm (minbase
with libssl3, libpq5 and ca-certificates) from the Debian mirror apt
already uses, cached under .build-deployment/. If the engine cannot run a
container on this machine, these tests fail saying why; `make test
SKIP_SUITES=container` leaves the suite out by name."""

from __future__ import annotations

import json
import os
import pathlib
import pwd
import resource
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from conftest import CACHE, DOCKERFILE, timed

BASE_IMAGE = "localhost/reader-gateway-base:bookworm"
IMAGE = "localhost/reader-gateway:deployment-test"
BASE_PACKAGES = "libssl3,libpq5,ca-certificates"
BINARY = pathlib.Path(os.environ.get("READER_GATEWAY_BINARY", CACHE / "swift" / "debug" / "reader-gateway"))
POSTGRES_BIN = pathlib.Path("/usr/lib/postgresql/15/bin")
DRAIN_WINDOW_SECONDS = 2


def run(command: list[str], timeout: float = 300, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


def engine_flags() -> list[str]:
    """runc, and rlimits no higher than this process has: the engine's
    defaults (1048576 descriptors) cannot be set where CAP_SYS_RESOURCE is missing."""
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    nproc_hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    nproc = 4096 if nproc_hard == resource.RLIM_INFINITY else min(4096, nproc_hard - 1)
    return ["--runtime", "runc", "--ulimit", f"nofile={nofile}:{nofile}", "--ulimit", f"nproc={nproc}:{nproc}"]


def debian_mirror() -> str:
    """The Debian mirror apt is configured with (deb822 or one-line format)."""
    sources = pathlib.Path("/etc/apt/sources.list.d/debian.sources")
    if sources.exists():
        for line in sources.read_text().splitlines():
            if line.startswith("URIs:") and "security" not in line:
                return line.split()[1]
    listing = pathlib.Path("/etc/apt/sources.list")
    if listing.exists():
        for line in listing.read_text().splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[0] == "deb" and "security" not in parts[1]:
                return parts[1]
    return "http://deb.debian.org/debian"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def http_get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.fixture(scope="module")
def base_image() -> str:
    if shutil.which("podman") is None:
        cannot_run("podman is not installed (make test-deps installs it)")
    info = run(["podman", "info"], check=False, timeout=120)
    if info.returncode != 0:
        cannot_run("the container engine does not work on this machine (podman info failed):\n" + info.stderr.strip())
    exists = run(["podman", "image", "exists", BASE_IMAGE], check=False).returncode == 0
    if not exists:
        archive = CACHE / "base" / "bookworm-minbase.tar"
        if not archive.exists():
            rootfs = CACHE / "base" / "rootfs"
            shutil.rmtree(rootfs, ignore_errors=True)
            rootfs.parent.mkdir(parents=True, exist_ok=True)
            with timed("debootstrap bookworm minbase (cold cache)"):
                run(["debootstrap", "--variant=minbase", f"--include={BASE_PACKAGES}", "bookworm", str(rootfs), debian_mirror()], timeout=900)
            for cached in (rootfs / "var" / "cache" / "apt" / "archives").glob("*.deb"):
                cached.unlink()
            partial = archive.with_suffix(".partial")
            run(["tar", "-C", str(rootfs), "-cf", str(partial), "."], timeout=300)
            partial.rename(archive)
            shutil.rmtree(rootfs, ignore_errors=True)
        with timed("import base image"):
            run(["podman", "import", str(archive), BASE_IMAGE], timeout=300)
    probe = run(["podman", "run", "--rm", "--network", "none", *engine_flags(), BASE_IMAGE, "true"], check=False, timeout=120)
    if probe.returncode != 0:
        cannot_run("the container engine cannot start a container on this machine:\n" + probe.stderr.strip())
    return BASE_IMAGE


def cannot_run(reason: str):
    """Fails the container suite: it did not run, so it did not pass."""
    pytest.fail(f"the container suite cannot run: {reason}\n(`make test SKIP_SUITES=container` leaves it out by name)", pytrace=False)


@pytest.fixture(scope="module")
def image(base_image) -> str:
    assert BINARY.exists(), f"{BINARY} is missing: the make target builds it with --static-swift-stdlib"
    with tempfile.TemporaryDirectory(prefix="reader-gateway-image-") as context:
        shutil.copy2(BINARY, pathlib.Path(context) / "reader-gateway")
        with timed("podman build --target runtime-prebuilt"):
            run([
                "podman", "build", "--format", "docker", "--network", "none", *engine_flags(),
                "-f", str(DOCKERFILE), "--target", "runtime-prebuilt",
                "--build-arg", f"RUNTIME_IMAGE={base_image}", "-t", IMAGE, context,
            ], timeout=600)
    return IMAGE


def test_image_runs_non_root_on_a_read_only_root(image):
    config = json.loads(run(["podman", "image", "inspect", image]).stdout)[0]["Config"]
    assert config["User"] == "10001:10001"
    assert {"7443/tcp", "7444/tcp", "9090/tcp"} <= set(config["ExposedPorts"])
    assert config["Entrypoint"] == ["/usr/local/bin/reader-gateway"]

    flags = ["podman", "run", "--rm", "--network", "none", "--read-only", *engine_flags()]
    identity = run([*flags, "--entrypoint", "/usr/bin/id", image, "-u"])
    assert identity.stdout.strip() == "10001"
    cannot_write = run([*flags, "--entrypoint", "/usr/bin/touch", image, "/usr/local/bin/x"], check=False)
    assert cannot_write.returncode != 0 and "Read-only file system" in cannot_write.stderr

    # The binary starts in the slim image: every shared library it needs is there.
    help_text = run([*flags, image, "--help"])
    assert "reader-gateway" in help_text.stdout
    assert "not found" not in run([*flags, "--entrypoint", "/usr/bin/ldd", image, "/usr/local/bin/reader-gateway"]).stdout


class ThrowawayPostgres:
    """A PostgreSQL on a loopback TCP port, run as the postgres user, that a
    test can stop and start again."""

    def __init__(self):
        user = pwd.getpwnam("postgres")
        self.directory = pathlib.Path(tempfile.mkdtemp(prefix="reader-gateway-pg-"))
        os.chown(self.directory, user.pw_uid, user.pw_gid)
        self.as_postgres = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups"]
        self.port = free_port()
        self.data = self.directory / "data"
        run([*self.as_postgres, str(POSTGRES_BIN / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8"], timeout=120)
        self.start()
        run([*self.as_postgres, str(POSTGRES_BIN / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "reader_gateway"])
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/reader_gateway"

    def start(self):
        run([
            *self.as_postgres, str(POSTGRES_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.directory / "log"), "-w", "-t", "60",
            "-o", f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.directory}", "start",
        ], timeout=90)

    def stop(self, mode: str = "fast", check: bool = True):
        run([*self.as_postgres, str(POSTGRES_BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"], check=check, timeout=90)


@pytest.fixture(scope="module")
def postgres():
    if not (POSTGRES_BIN / "initdb").exists():
        pytest.fail("PostgreSQL 15 is not installed (make deps installs it)")
    server = ThrowawayPostgres()
    try:
        yield server
    finally:
        server.stop("immediate", check=False)
        shutil.rmtree(server.directory, ignore_errors=True)


def mint_server_certificate(directory: pathlib.Path) -> pathlib.Path:
    """A throwaway CA and a server certificate for 127.0.0.1, made with the
    openssl CLI, readable by the image's user (as a Secret volume is).
    Returns the CA's path; tls.crt and tls.key sit beside it."""
    ca_key, ca, key, csr, crt = (directory / n for n in ("ca.key", "ca.pem", "tls.key", "tls.csr", "tls.crt"))
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    run(["openssl", "req", "-x509", *ec, "-keyout", str(ca_key), "-out", str(ca), "-days", "2", "-subj", "/CN=deployment test CA"])
    run(["openssl", "req", *ec, "-keyout", str(key), "-out", str(csr), "-subj", "/CN=127.0.0.1"])
    extensions = directory / "server.ext"
    extensions.write_text("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
    run(["openssl", "x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
         "-out", str(crt), "-days", "2", "-extfile", str(extensions)])
    for path in (crt, key, ca):
        os.chown(path, 10001, 10001)
        path.chmod(0o440)
    directory.chmod(0o755)
    return ca


def open_session_through(tls_port: int, ca: pathlib.Path, database_url: str):
    """What an operator does first: an account straight in PostgreSQL
    (gatewayctl accounts create), then a lane (pos-lane, on the client
    library) mints a connection token and opens a session over TLS."""
    tools = BINARY.parent
    created = run([str(tools / "gatewayctl"), "accounts", "create", "--database-url", database_url, "--name", "container test", "--json"], timeout=60)
    secret_key = json.loads(created.stdout)["secret_key"]
    lane = run(
        [str(tools / "pos-lane"), "--gateway", f"127.0.0.1:{tls_port}", "--ca", str(ca), "--secret-key", secret_key, "--lane", "Container lane"],
        input="quit\n", timeout=60, check=False,
    )
    assert lane.returncode == 0 and "session" in lane.stdout, f"pos-lane exited {lane.returncode}:\n{lane.stdout}\n{lane.stderr}"


def wait_for_status(port: int, path: str, wanted: int, seconds: float, container: str) -> tuple[int, str]:
    """Polls until `path` answers `wanted` (bounded in time); returns the last answer."""
    deadline = time.monotonic() + seconds
    status, body = 0, ""
    while time.monotonic() < deadline:
        state = run(["podman", "inspect", "-f", "{{.State.Running}}", container]).stdout.strip()
        if state != "true":
            logs = run(["podman", "logs", container], check=False)
            raise AssertionError("container exited:\n" + logs.stdout + logs.stderr)
        try:
            status, body = http_get(port, path)
        except OSError:
            status = 0
        if status == wanted:
            break
        time.sleep(0.2)
    return status, body


def test_container_turns_ready_against_postgres(image, postgres):
    ops_port, tls_port, internal_port = free_port(), free_port(), free_port()
    name = f"reader-gateway-test-{os.getpid()}"
    # The data directory is a volume owned by the image's user, as an emptyDir with fsGroup is.
    data = pathlib.Path(tempfile.mkdtemp(prefix="reader-gateway-data-"))
    os.chown(data, 10001, 10001)
    certificates = pathlib.Path(tempfile.mkdtemp(prefix="reader-gateway-tls-"))
    ca = mint_server_certificate(certificates)
    run(["podman", "rm", "-f", name], check=False)  # a leftover of an interrupted run with this name
    # Host networking: the container reaches PostgreSQL and is reached on
    # loopback only, so every listener is bound to 127.0.0.1.
    run([
        "podman", "run", "-d", "--name", name, "--network", "host", "--read-only", *engine_flags(),
        "-v", f"{data}:/var/lib/reader-gateway",
        # Mounted where the chart mounts its TLS Secret, named by the same variables.
        "-v", f"{certificates}:/etc/reader-gateway/tls:ro",
        "-e", "READER_GATEWAY_TLS_CERT=/etc/reader-gateway/tls/tls.crt",
        "-e", "READER_GATEWAY_TLS_KEY=/etc/reader-gateway/tls/tls.key",
        "-e", f"READER_GATEWAY_DATABASE_URL={postgres.url}",
        "-e", "READER_GATEWAY_OPS_ADDRESS=127.0.0.1", "-e", f"READER_GATEWAY_OPS_PORT={ops_port}",
        "-e", "READER_GATEWAY_ADDRESS=127.0.0.1", "-e", f"READER_GATEWAY_PORT={tls_port}",
        # The image keeps the replica-to-replica listener on loopback (a cluster of one).
        "-e", f"READER_GATEWAY_INTERNAL_PORT={internal_port}",
        "-e", f"READER_GATEWAY_DRAIN_LOAD_BALANCER_SECONDS={DRAIN_WINDOW_SECONDS}",
        image,
    ])
    try:
        with timed("container start until /readyz is 200"):
            status, body = wait_for_status(ops_port, "/readyz", 200, 60, name)
        assert status == 200, f"/readyz never turned 200 within 60 s (last {status}: {body})"
        assert http_get(ops_port, "/healthz")[0] == 200
        metrics_status, metrics = http_get(ops_port, "/metrics")
        assert metrics_status == 200
        from prometheus_client.parser import text_string_to_metric_families

        names = {family.name for family in text_string_to_metric_families(metrics)}
        assert {"reader_gateway_claims", "reader_gateway_connections"} <= names
        # The image's HEALTHCHECK (bash /dev/tcp, no curl) passes.
        health = run(["podman", "healthcheck", "run", name], check=False)
        assert health.returncode == 0, health.stdout + health.stderr

        # The replica registered itself (a cluster of one) and listens on its internal port.
        logs = run(["podman", "logs", name], check=False)
        assert "node registered" in logs.stdout + logs.stderr, logs.stdout + logs.stderr
        with socket.create_connection(("127.0.0.1", internal_port), timeout=5):
            pass

        # A TLS client opens a session through the published port.
        with timed("account, token and session through the container's TLS port"):
            open_session_through(tls_port, ca, postgres.url)

        # PostgreSQL down after the first start: the probe stays 200 (a shared
        # dependency must not take every replica out of the Service at once) and
        # its body and reader_gateway_store_reachable report the outage;
        # PostgreSQL back turns the body plain "ready" again.
        with timed("PostgreSQL stopped until /readyz reports a degraded store"):
            postgres.stop()
            deadline = time.monotonic() + 30
            status, body = http_get(ops_port, "/readyz")
            while "degraded store" not in body and time.monotonic() < deadline:
                assert status == 200, f"/readyz turned {status} with PostgreSQL down: {body}"
                time.sleep(0.2)
                status, body = http_get(ops_port, "/readyz")
        assert status == 200 and "degraded store" in body, f"/readyz with PostgreSQL down: {status} {body}"
        assert "\nreader_gateway_store_reachable 0" in http_get(ops_port, "/metrics")[1]
        assert http_get(ops_port, "/healthz")[0] == 200, "liveness must not follow the database"
        with timed("PostgreSQL started until /readyz is plain ready"):
            postgres.start()
            deadline = time.monotonic() + 30
            status, body = http_get(ops_port, "/readyz")
            while not body.startswith("ready\n") and time.monotonic() < deadline:
                time.sleep(0.2)
                status, body = http_get(ops_port, "/readyz")
        assert status == 200 and body.startswith("ready\n"), f"/readyz did not recover with PostgreSQL back: {status} {body}"

        # SIGTERM (what Kubernetes sends after preStop): /readyz fails at once
        # while the replica keeps serving for the load balancer window, then
        # the process exits with status 0.
        with timed(f"SIGTERM until the container exits (window {DRAIN_WINDOW_SECONDS} s)"):
            signalled = time.monotonic()
            run(["podman", "kill", "--signal", "TERM", name])
            status, body = wait_for_status(ops_port, "/readyz", 503, DRAIN_WINDOW_SECONDS, name)
            assert status == 503 and "failing draining" in body, f"/readyz during the drain: {status} {body}"
            assert http_get(ops_port, "/healthz")[0] == 200, "still alive during the load balancer window"
            exit_code = run(["podman", "wait", name], timeout=60).stdout.strip()
            drained_after = time.monotonic() - signalled
        assert exit_code == "0", run(["podman", "logs", name], check=False).stderr
        assert drained_after >= DRAIN_WINDOW_SECONDS - 0.5, f"exited {drained_after:.1f} s after SIGTERM, inside the window"
    finally:
        run(["podman", "rm", "-f", "-t", "5", name], check=False)
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(certificates, ignore_errors=True)
