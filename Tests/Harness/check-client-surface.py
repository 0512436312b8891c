#!/usr/bin/env python3
"""The client core's public surface speaks the library's models: no public or open declaration
of Sources/GatewayClientCore (nor a public protocol's requirement, a public enum's case, or a
public member of an extension of a wire type, all public without saying so or on the wire's
own type) names a `ReaderGatewayV1` type, except the wire escape hatches that
docs/client.md lists ("The wire's types: the one escape hatch"), listed here too. A listed
declaration that no longer names one must leave the list (and the page), so it only shrinks.

The calls that are the wire by design live apart, in the module GatewayWireClients: the fleet
admin and reader-side calls, on the protocol's messages (`AdminClient`, `ReaderLinkClient`),
for the package's own programs (gatewayctl, reader-sim, the simulators) and for an app that
means to speak the wire. It is a library product of its own so that `import GatewayClient`
(the point-of-sale SDK) gives no protobuf type: this check also fails when GatewayClient or the
core imports or re-exports it, or when Package.swift makes GatewayClient depend on it.

    python3 Tests/Harness/check-client-surface.py     (make lint)
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORE = ROOT / "Sources" / "GatewayClientCore"
WIRE_MODULE = "GatewayWireClients"
# The modules an app imports for the point-of-sale SDK: none may import the wire module.
SDK_MODULES = ["GatewayClientCore", "GatewayClient"]
# Single declarations still on the wire's types: "file relative to the core: name".
WIRE_DECLARATIONS = {
    "Connection/GatewayConnection.swift: unary": "the call layer: any method of the protocol with its messages",
    "Bluetooth/BluetoothRadio.swift: run": "the radio seam: the device relays the gateway's command to the reader and its result back",
}

DECLARATION = re.compile(
    r"^[ \t]*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:static|final|mutating|nonisolated|override|convenience|required|private\(set\)|package\(set\))\s+)*"
    r"(func|init|var|let|case|subscript|typealias)\b\s*(\w*)",
    re.M,
)


# A public protocol's requirements and a public enum's cases are public without saying so.
IMPLICITLY_PUBLIC = re.compile(r"^[ \t]*(?:@\w+(?:\([^)]*\))?\s+)*public\s+(?:indirect\s+)?(protocol|enum)\s+\w+[^{]*\{", re.M)
MEMBER = re.compile(r"^[ \t]*(?:(?:static|mutating|nonisolated|indirect)\s+)*(func|init|var|case|subscript)\b\s*(\w*)")


def implicit_members(text):
    """(name, line, signature) of each requirement of a public protocol and each case of a
    public enum: the members at the top level of its braces."""
    for opening in IMPLICITLY_PUBLIC.finditer(text):
        depth, start = 1, opening.end()
        position = start
        while depth and position < len(text):
            depth += {"{": 1, "}": -1}.get(text[position], 0)
            position += 1
        body, level, offset = text[start:position - 1], 0, start
        for line in body.splitlines(keepends=True):
            if level == 0:
                match = MEMBER.match(line)
                if match and (opening.group(1) == "protocol" or match.group(1) == "case"):
                    yield match.group(2) or match.group(1), text.count("\n", 0, offset) + 1, line.split("{", 1)[0]
            level += line.count("{") - line.count("}")
            offset += len(line)


# An extension of a wire type: each of its public members is public API on that type.
WIRE_EXTENSION = re.compile(r"^extension\s+ReaderGatewayV1\.[\w.]+[^{]*\{", re.M)


def wire_extension_members(text):
    """(name, line, signature) of each public member of an extension of a `ReaderGatewayV1`
    type, the extended type written into the signature."""
    for opening in WIRE_EXTENSION.finditer(text):
        depth, position = 1, opening.end()
        while depth and position < len(text):
            depth += {"{": 1, "}": -1}.get(text[position], 0)
            position += 1
        for match in DECLARATION.finditer(text, opening.end(), position):
            line = text.count("\n", 0, match.start()) + 1
            yield match.group(2) or match.group(1), line, opening.group(0) + " " + match.group(0)


def declarations(path):
    text = path.read_text()
    yield from implicit_members(text)
    yield from wire_extension_members(text)
    for match in DECLARATION.finditer(text):
        kind, name = match.group(1), match.group(2) or match.group(1)
        rest = text[match.start():]
        if kind in ("func", "init", "subscript"):
            ends = [i for i in (rest.find("{"), rest.find("\n\n"), rest.find("\n    ///")) if i >= 0]
            signature = rest[: min(ends)] if ends else rest
        else:
            signature = rest.split("\n", 1)[0]
            signature = signature.split("{", 1)[0]
        line = text.count("\n", 0, match.start()) + 1
        yield name, line, signature


def wire_module_apart():
    """The SDK's modules neither import nor depend on the wire module (a re-export would put the
    protobuf types back into `import GatewayClient`)."""
    errors = []
    importing = re.compile(rf"^\s*(?:@\w+\s+)*import\s+{WIRE_MODULE}\b", re.M)
    for module in SDK_MODULES:
        for path in sorted((ROOT / "Sources" / module).rglob("*.swift")):
            text = path.read_text()
            for match in importing.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                errors.append(f"{path.relative_to(ROOT)}:{line}: {module} imports {WIRE_MODULE}: the point-of-sale SDK gives no wire type; "
                              f"what a lane needs stays in GatewayClientCore (package if the wire module builds on it)")
    manifest = (ROOT / "Package.swift").read_text()
    for module in SDK_MODULES:
        target = re.search(rf'\.target\(\s*name:\s*"{module}"[^)]*\)', manifest, re.S)
        if target is None:
            errors.append(f"Package.swift: no target {module}")
        elif f'"{WIRE_MODULE}"' in target.group(0):
            errors.append(f"Package.swift: {module} depends on {WIRE_MODULE}: the SDK must not reach the wire module")
    if f'.library(name: "{WIRE_MODULE}"' not in manifest:
        errors.append(f"Package.swift: {WIRE_MODULE} is no library product: an app that speaks the wire depends on it by name")
    return errors


def main():
    found, errors = set(), []
    for path in sorted(CORE.rglob("*.swift")):
        relative = path.relative_to(CORE).as_posix()
        for name, line, signature in declarations(path):
            if "ReaderGatewayV1" not in signature:
                continue
            key = f"{relative}: {name}"
            if key in WIRE_DECLARATIONS:
                found.add(key)
                continue
            errors.append(
                f"Sources/GatewayClientCore/{relative}:{line}: public `{name}` names a ReaderGatewayV1 type: "
                "give it the library's models (Sources/GatewayClientCore/Models), or make it package; "
                "a new wire escape hatch goes in this script and in docs/client.md"
            )
    errors += wire_module_apart()
    for key in sorted(set(WIRE_DECLARATIONS) - found):
        errors.append(f"{key}: listed as a wire escape hatch but names no ReaderGatewayV1 type now: take it off the list here and in docs/client.md")
    if errors:
        print("\n".join(f"check-client-surface: {error}" for error in errors), file=sys.stderr)
        return 1
    print(
        f"check-client-surface: GatewayClientCore's public declarations speak its models; the wire's types only in "
        f"{len(WIRE_DECLARATIONS)} listed escape hatches, and in {WIRE_MODULE}, which the SDK does not import"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
