#!/usr/bin/env python3
"""Checks the module lines against docs/architecture.md. Run by `make lint`.

    check-layers.py [REPOSITORY_ROOT] [--swift SWIFT]

The layer table under "## Layers" names every shipped module, one row per layer, bottom row
last (the executables row names products, as users know them). Each row may use only the rows
above it. Checked against the package's target graph (`swift package dump-package`) and
against the sources:

  - every table entry is a target (an executable product maps to its target), and every
    target that is neither a test, a test helper (the ones the text calls "test helpers")
    nor a tool (under Sources/Tools) is in the table;
  - each layered target's declared dependencies are in rows above its own;
  - each layered target (executables included) imports only modules of rows above, and
    declares every package module it imports;
  - no layered target depends on a test helper or a tool, and test helpers depend on no tool;
  - every target that names its folder is named as that folder (Sources/Tools/WireFuzz holds
    the target WireFuzz; the executable's command name is its product's);
  - the platform-neutral client core and wire clients (PORTABLE below) stay so: each transitive target graph
    holds no Linux-only module (LINUX_ONLY, and any system library: pkg-config's OpenSSL and
    libpq), and no Swift file of that graph imports one, nor a C shim (`CGateway...`), nor
    Linux's C library (`Glibc`, `Musl`) unless under `#if canImport(...)` with a Darwin branch.

Exit status 1 when anything is found, each finding on a line of its own.
"""
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else ".")
SWIFT = sys.argv[sys.argv.index("--swift") + 1] if "--swift" in sys.argv else "swift"
TABLE = "docs/architecture.md"
# The modules an app on an Apple platform builds: the client core and all it depends on, and
# the wire-level clients beside it (GatewayWireClients: the fleet admin and reader-side calls on
# the protocol's messages); and the core's tests, which run it over a transport in memory with
# nothing Linux-only either.
PORTABLE = ["GatewayClientCore", "GatewayWireClients", "GatewayClientCoreTests"]
# What builds on Linux only: the C shims (epoll and Linux calls; OpenSSL and libpq through
# pkg-config), the epoll event loop and everything over it (the TLS transport, the client's
# Linux transport, the server's call layer, the PostgreSQL driver, the ops endpoint).
LINUX_ONLY = {
    "CGatewayLinux", "CGatewayOpenSSL", "CGatewayPostgres",
    "GatewayEventLoop", "GatewayTransport", "GatewayLinuxTransport", "GatewayRPC",
    "GatewayPostgres", "GatewayOperations",
}
LINUX_LIBC = {"Glibc", "Musl"}
IMPORT = re.compile(r"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z0-9_]+)", re.M)


def layer_rows(text):
    """The modules of each row of the table under "## Layers", top row first."""
    rows, inside = [], False
    for line in text.splitlines():
        if line.startswith("## "):
            inside = line.startswith("## Layers")
            continue
        if inside and line.startswith("| "):
            cells = line.split("|")
            rows.append(re.findall(r"`([A-Za-z][A-Za-z0-9-]*)`", cells[2]) if len(cells) > 2 else [])
    return rows[1:]  # the header row; the separator does not start with "| "


def test_helpers(text):
    """The modules the text names as test helpers: "the test helpers (`A`, `B`)"."""
    match = re.search(r"test helpers\s*\(([^)]*)\)", text)
    return set(re.findall(r"`([A-Za-z][A-Za-z0-9]*)`", match.group(1))) if match else set()


def dependencies(target):
    names = []
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.append(dependency[kind][0])
    return names


def source_folder(target):
    if target.get("path"):
        return ROOT / target["path"]
    return ROOT / ("Tests" if target["type"] == "test" else "Sources") / target["name"]


def imports(folder):
    """(file, module) for every import in the Swift files under `folder`."""
    for path in sorted(folder.rglob("*.swift")):
        for module in IMPORT.findall(path.read_text()):
            yield path.relative_to(ROOT), module


def guarded_libc_imports(text):
    """Line numbers of Linux libc imports inside an `#if canImport(Glibc)` (or Musl) branch of a
    file that also has a `canImport(Darwin)` branch: the portable idiom, not a Linux tie."""
    if "canImport(Darwin)" not in text:
        return set()
    guarded, stack = set(), []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("#if "):
            stack.append(stripped[4:])
        elif stripped.startswith("#elseif ") and stack:
            stack[-1] = stripped[8:]
        elif stripped.startswith("#else") and stack:
            stack[-1] = ""
        elif stripped.startswith("#endif") and stack:
            stack.pop()
        elif any(f"canImport({libc})" in condition for condition in stack for libc in LINUX_LIBC):
            guarded.add(number)
    return guarded


def portable_findings(targets):
    """What ties a PORTABLE module to Linux: a Linux-only module in its target graph (with the
    path that reaches it), or an import of one in the graph's sources."""
    findings, graph = [], {}
    for root in PORTABLE:
        if root not in targets:
            findings.append(f"Package.swift: the platform-neutral client core {root} is no target")
            continue
        paths = {root: [root]}
        queue = [root]
        while queue:
            name = queue.pop(0)
            for dependency in dependencies(targets[name]):
                if dependency in targets and dependency not in paths:
                    paths[dependency] = paths[name] + [dependency]
                    queue.append(dependency)
        for name, path in sorted(paths.items()):
            if name in LINUX_ONLY or targets[name]["type"] == "system":
                findings.append(f"Package.swift: {root} must build on Apple platforms, but its target graph reaches the Linux-only {name} ({' -> '.join(path)}); "
                                "move what needs it behind the `ClientTransport` protocol, into GatewayLinuxTransport")
        graph[root] = sorted(paths)
    for name in sorted({module for modules in graph.values() for module in modules}):
        target = targets[name]
        if target["type"] == "system":
            continue
        for path in sorted(source_folder(target).rglob("*.swift")):
            text = path.read_text()
            guarded = guarded_libc_imports(text)
            for number, line in enumerate(text.splitlines(), start=1):
                match = IMPORT.match(line)
                if not match:
                    continue
                module = match.group(1)
                tied = module in LINUX_ONLY or module.startswith("CGateway") or (module in LINUX_LIBC and number not in guarded)
                if tied:
                    findings.append(f"{path.relative_to(ROOT)}:{number}: {name} is in the platform-neutral client core's graph but imports {module}, which exists on Linux only; "
                                    + ("guard it with `#if canImport(Glibc)` and add a `#elseif canImport(Darwin)` branch" if module in LINUX_LIBC else "move the code that needs it into GatewayLinuxTransport"))
    return findings, graph


def main():
    text = (ROOT / TABLE).read_text()
    rows = layer_rows(text)
    if len(rows) < 5:
        print(f"check-layers: no layer table found in {TABLE}")
        return 1
    dumped = subprocess.run([SWIFT, "package", "dump-package"], cwd=ROOT, capture_output=True, text=True)
    if dumped.returncode != 0:
        print(f"check-layers: `{SWIFT} package dump-package` failed; fix Package.swift first:\n{dumped.stderr}")
        return 1
    package = json.loads(dumped.stdout)
    targets = {target["name"]: target for target in package["targets"]}
    product_targets = {product["name"]: product["targets"] for product in package["products"]}
    findings = []

    rank = {}
    for row, names in enumerate(rows, start=1):
        for name in names:
            mapped = product_targets.get(name, [name]) if name not in targets else [name]
            for target in mapped:
                if target not in targets:
                    findings.append(f"{TABLE}: `{name}` in the layer table is no target or product of Package.swift")
                else:
                    rank[target] = row
    helpers = test_helpers(text)
    for name in sorted(helpers - set(targets)):
        findings.append(f"{TABLE}: test helper `{name}` is no target of Package.swift")

    def is_tool(target):
        return (target.get("path") or "").startswith("Sources/Tools/")

    for name, target in sorted(targets.items()):
        folder = target.get("path")
        # The tools live in folders of their own under Sources/Tools/: each target is named as
        # its folder (the web files' generated codecs sit in a subfolder the library imports by path).
        if folder and is_tool(target) and pathlib.PurePosixPath(folder).name != name:
            findings.append(f"Package.swift: target {name} lives in {folder}: name the target as its folder ({pathlib.PurePosixPath(folder).name}); the command name belongs to a product")
        if target["type"] == "test" or is_tool(target) or name in helpers:
            continue
        if name not in rank:
            findings.append(f"Package.swift: target {name} is not in the layer table of {TABLE} (nor a test helper or a tool under Sources/Tools)")

    for name, target in sorted(targets.items()):
        declared = dependencies(target)
        if name in rank:
            for dependency in declared:
                if dependency in helpers or (dependency in targets and is_tool(targets[dependency])):
                    findings.append(f"Package.swift: {name} depends on {dependency}, which is not shipped (a test helper or a tool)")
                elif dependency not in rank:
                    findings.append(f"Package.swift: {name} depends on {dependency}, which is not a layer in {TABLE}")
                elif rank[dependency] >= rank[name]:
                    findings.append(f"Package.swift: {name} depends on {dependency}, which is not above it in {TABLE}")
        elif name in helpers:
            for dependency in declared:
                if dependency in targets and is_tool(targets[dependency]):
                    findings.append(f"Package.swift: test helper {name} depends on the tool {dependency}")

        if name not in rank or targets[name]["type"] == "system":
            continue
        for file, module in imports(source_folder(target)):
            if module not in targets:
                continue  # the toolchain's modules (Foundation, Glibc, Synchronization, ...)
            if module not in rank:
                findings.append(f"{file}: {name} imports {module}, which is not a layer in {TABLE}")
            elif rank[module] >= rank[name]:
                findings.append(f"{file}: {name} imports {module}, which is not above it in {TABLE}")
            elif module not in declared:
                findings.append(f"{file}: {name} imports {module} without declaring it in Package.swift")

    portable, graph = portable_findings(targets)
    findings += portable

    for finding in findings:
        print(finding)
    if findings:
        print(f"check-layers: {len(findings)} finding(s) against the module lines of {TABLE}")
        return 1
    print(f"check-layers: {len(rank)} layered targets (executables included) declare and import only the layers above them; "
          f"{sum(1 for t in targets.values() if is_tool(t))} tools named as their folders")
    for root, modules in graph.items():
        print(f"check-layers: {root}'s target graph ({', '.join(modules)}) holds no Linux-only module, and its sources import none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
