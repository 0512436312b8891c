#!/usr/bin/env bash
# Builds the previous release's reader-gateway once per commit and prints "VERSION PATH".
#
# The previous release is the newest entry of CHANGELOG.md that records a commit and is not
# this tree's version (Sources/GatewayCore/Version/GatewayVersion.swift). Its commit is checked
# out as a git worktree, built (debug, the reader-gateway product only) and the binary kept
# under .build-previous/<commit>/; the worktree and the build's intermediate files are removed.
# A later run with the same commit reuses the binary. A clone that lacks the commit (shallow,
# or without the release's history) fetches it from origin, or says what to run.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
swift=${SWIFT:-swift}
current=$(sed -n 's/.*static let current = GatewayVersion(\([0-9]*\), \([0-9]*\), \([0-9]*\)).*/\1.\2.\3/p' "$root/Sources/GatewayCore/Version/GatewayVersion.swift")
[ -n "$current" ] || { echo "build-previous-release: cannot read this tree's version from GatewayVersion.swift" >&2; exit 1; }
previous=$(awk -v current="$current" '
    /^## [0-9]+\.[0-9]+\.[0-9]+/ { version = $2 }
    /^Commit: `[0-9a-f]+`/ { if (version != "" && version != current) { gsub(/`/, "", $2); print version, $2; exit } }
' "$root/CHANGELOG.md")
[ -n "$previous" ] || { echo "build-previous-release: CHANGELOG.md records no release before $current with a commit" >&2; exit 1; }
read -r version commit <<<"$previous"

cache="$root/.build-previous/$commit"
binary="$cache/reader-gateway"
if [ -x "$binary" ] && "$binary" --version | grep -q "^reader-gateway $version "; then
    echo "build-previous-release: reusing $version ($commit) from $binary" >&2
    echo "$version $binary"
    exit 0
fi
if ! git -C "$root" cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "build-previous-release: fetching commit $commit of release $version" >&2
    if ! git -C "$root" fetch --quiet origin "$commit" >&2; then
        echo "build-previous-release: this clone lacks commit $commit of release $version (shallow, or without the release's history) and could not fetch it; run 'git fetch --unshallow' or 'git fetch origin $commit' and try again" >&2
        exit 1
    fi
fi
started=$(date +%s)
mkdir -p "$cache"
git -C "$root" worktree remove --force "$cache/src" >/dev/null 2>&1 || rm -rf "$cache/src"
git -C "$root" worktree prune
git -C "$root" worktree add --quiet --detach "$cache/src" "$commit" >&2
trap 'git -C "$root" worktree remove --force "$cache/src" >/dev/null 2>&1 || true' EXIT
echo "build-previous-release: building reader-gateway $version from $commit (once; cached in $cache)" >&2
"$swift" build --package-path "$cache/src" --scratch-path "$cache/build" --product reader-gateway >&2
cp "$cache/build/debug/reader-gateway" "$binary.partial"
mv "$binary.partial" "$binary"
rm -rf "$cache/build"
said=$("$binary" --version)
case "$said" in
    "reader-gateway $version "*) ;;
    *) echo "build-previous-release: the binary built from $commit says \"$said\", not release $version" >&2; exit 1 ;;
esac
echo "build-previous-release: built $version in $(( $(date +%s) - started )) s" >&2
echo "$version $binary"
