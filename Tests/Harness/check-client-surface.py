#!/usr/bin/env python3
"""The client core's public surface speaks the library's models: no public or open declaration
of Sources/GatewayClientCore names a `ReaderGatewayV1` type, except the wire escape hatches that
docs/client.md lists ("The wire's types: the one escape hatch"), listed here too. A listed
declaration that no longer names one must leave the list (and the page), so it only shrinks.

    python3 Tests/Harness/check-client-surface.py     (make lint)
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORE = ROOT / "Sources" / "GatewayClientCore"

# Folders whose whole public surface is the wire's, by design.
WIRE_FOLDERS = {
    "Admin": "AdminClient: the fleet admin calls on the wire's messages",
    "ReaderLink": "ReaderLinkClient and PresentedCard: the reader's side of the protocol (reader-sim)",
}
# Single declarations still on the wire's types: "file relative to the core: name".
WIRE_DECLARATIONS = {
    "Connection/GatewayConnection.swift: unary": "the call layer: any method of the protocol with its messages",
    "Terminal/TerminalClient+TapToPay.swift: connectTapToPayReader": "Tap to Pay: no model yet",
    "Terminal/TerminalEvent.swift: terminal": "didStartReconnect(reason: MobileDisconnectReason)",
    "Bluetooth/BluetoothDiscoveryStateMachine.swift: deviceType": "Bluetooth discovery's reader kind",
    "Bluetooth/BluetoothDiscoveryStateMachine.swift: init": "Bluetooth discovery's reader kind",
    "Bluetooth/BluetoothAdvertisement.swift: deviceType": "Bluetooth advertisement's reader kind",
    "Bluetooth/BluetoothAdvertisement.swift: init": "Bluetooth advertisement's reader kind",
    "Bluetooth/BluetoothReaderConnection.swift: reader": "Bluetooth connection's reader",
    "Bluetooth/BluetoothReaderConnection.swift: requiredUpdateFailure": "Bluetooth connection's update failure",
    "Bluetooth/MobileReconnectStateMachine.swift: linkLost": "the reconnect state machine's input",
    "Bluetooth/PairingStateMachine.swift: begin": "the pairing state machine's input",
}

DECLARATION = re.compile(
    r"^[ \t]*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:static|final|mutating|nonisolated|override|convenience|required|private\(set\)|package\(set\))\s+)*"
    r"(func|init|var|let|case|subscript|typealias)\b\s*(\w*)",
    re.M,
)


def declarations(path):
    text = path.read_text()
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


def main():
    found, errors = set(), []
    for path in sorted(CORE.rglob("*.swift")):
        relative = path.relative_to(CORE).as_posix()
        for name, line, signature in declarations(path):
            if "ReaderGatewayV1" not in signature:
                continue
            key = f"{relative}: {name}"
            if relative.split("/", 1)[0] in WIRE_FOLDERS:
                continue
            if key in WIRE_DECLARATIONS:
                found.add(key)
                continue
            errors.append(
                f"Sources/GatewayClientCore/{relative}:{line}: public `{name}` names a ReaderGatewayV1 type: "
                "give it the library's models (Sources/GatewayClientCore/Models), or make it package; "
                "a new wire escape hatch goes in this script and in docs/client.md"
            )
    for key in sorted(set(WIRE_DECLARATIONS) - found):
        errors.append(f"{key}: listed as a wire escape hatch but names no ReaderGatewayV1 type now: take it off the list here and in docs/client.md")
    if errors:
        print("\n".join(f"check-client-surface: {error}" for error in errors), file=sys.stderr)
        return 1
    print(
        f"check-client-surface: GatewayClientCore's public declarations speak its models; the wire's types only in "
        f"{', '.join(sorted(WIRE_FOLDERS))} and {len(WIRE_DECLARATIONS)} listed escape hatches"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
