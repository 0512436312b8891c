#!/usr/bin/env bash
# The registry is closed: the service reaches it through its named events only.
# `Registry`'s primitives (act, apply, feed, query, state) and the machine inside it
# belong to the shell's own files, Sources/GatewayService/Registry/; any other file
# reaching them fails `make lint` with the lines that do.
set -euo pipefail
cd "$(dirname "$0")/../.."

shell=Sources/GatewayService/Registry
found=$(grep -rnE '\bregistry\.(act|apply|feed|query|state)\b|\.machine\b' Sources/GatewayService --include='*.swift' | grep -v "^$shell/" || true)
if [[ -n "$found" ]]; then
    echo "check-encapsulation: these lines reach the registry's machine or its primitives from outside $shell/;"
    echo "add a named event to the shell (a method in $shell/) and call that instead:"
    echo "$found"
    exit 1
fi
echo "check-encapsulation: the registry is reached through its named events only"
