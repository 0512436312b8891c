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
    the target WireFuzz; the executable's command name is its product's).

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

    for finding in findings:
        print(finding)
    if findings:
        print(f"check-layers: {len(findings)} finding(s) against the module lines of {TABLE}")
        return 1
    print(f"check-layers: {len(rank)} layered targets (executables included) declare and import only the layers above them; "
          f"{sum(1 for t in targets.values() if is_tool(t))} tools named as their folders")
    return 0


if __name__ == "__main__":
    sys.exit(main())
