#!/usr/bin/env bash
# The registry is closed: the service reaches it through its named events only.
# `LiveRegistry`'s entry (handle), its state and the machine inside it belong to the shell's own
# files, Sources/GatewayService/Registry/; any other file reaching them fails `make lint`
# with the lines that do.
#
# What a shell feeds under its lock builds no wire message: the state values below decide on
# plain values, and the shell builds the protobuf messages (a status included) after the lock.
#
# Shells have one entry: each state-machine shell below takes its lock in one place only
# (lock, feed the event, act after the lock), so a second `withLock` in it, a method
# reaching around the entry, fails `make lint` with the lines that do.
set -euo pipefail
cd "$(dirname "$0")/../.."

shell=Sources/GatewayService/Registry
found=$(grep -rnE '\bregistry\.(handle|state)\b|\.machine\b' Sources/GatewayService --include='*.swift' | grep -v "^$shell/" || true)
if [[ -n "$found" ]]; then
    echo "check-encapsulation: these lines reach the registry's machine or its entry from outside $shell/;"
    echo "add a named event to the shell (a method in $shell/) and call that instead:"
    echo "$found"
    exit 1
fi
echo "check-encapsulation: the registry is reached through its named events only"

# Each shell: the files it spans (one lock site among them all).
one_entry=(
    "LiveRegistry:$shell/LiveRegistry*.swift"
    "SessionEventStream:$shell/SessionEventStream.swift"
    "FleetWatchHub:Sources/GatewayService/FleetWatch/*.swift"
    "SoftwareUpdateCatalog:Sources/GatewayService/SoftwareUpdates/SoftwareUpdateCatalog*.swift"
    "ReplicaChannels:Sources/GatewayService/Cluster/ReplicaChannels.swift"
    "NodeHealth:Sources/GatewayService/Cluster/NodeHealth.swift"
    "RegistrationMailbox:Sources/GatewayService/ReaderLink/RegistrationMailbox.swift"
)
failed=0
for entry in "${one_entry[@]}"; do
    name=${entry%%:*}
    # shellcheck disable=SC2086
    sites=$(grep -nE '\.withLock\b' ${entry#*:} /dev/null || true)
    count=$(grep -c . <<<"$sites" || true)
    if (( count > 1 )); then
        echo "check-encapsulation: $name takes its lock in $count places; feed an event through its one entry instead:"
        echo "$sites"
        failed=1
    fi
done
(( failed == 0 )) || exit 1
echo "check-encapsulation: each state-machine shell takes its lock in one place"

# The state values fed under a lock (files of their own) build no protobuf message.
under_lock=(
    "$shell/LiveRegistry+State.swift"
    Sources/GatewayService/FleetWatch/FleetWatchState.swift
    Sources/GatewayService/SoftwareUpdates/SoftwareUpdateCatalog+State.swift
)
built=$(grep -nE 'ReaderGatewayV1\.[A-Z][A-Za-z.]*\(|\.status\b' "${under_lock[@]}" || true)
if [[ -n "$built" ]]; then
    echo "check-encapsulation: these lines build a wire message in a state fed under its shell's lock;"
    echo "answer with plain values and build the message in the shell after the lock:"
    echo "$built"
    exit 1
fi
echo "check-encapsulation: the states fed under a lock build no wire message"
