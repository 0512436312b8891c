#!/usr/bin/env bash
# Checks the module lines: every module named in the layer table of docs/architecture.md
# imports only modules of the rows above its own. Run by `make lint`.
#
# Usage: check-layers.sh [REPOSITORY_ROOT]
set -euo pipefail
cd "${1:-.}"

table=docs/architecture.md
declare -A rank
row=0
# The rows of the table under "## Layers" (after its header; the separator has no "| "); each
# module is named in backticks in the second column.
while IFS= read -r modules; do
  row=$((row + 1))
  for module in $(grep -oE '`[A-Za-z][A-Za-z0-9]*`' <<<"$modules" | tr -d '`'); do
    rank[$module]=$row
  done
done < <(awk '/^## Layers/ { inside = 1; next } /^## / { inside = 0 } inside && /^\| / { print }' "$table" |
  tail -n +2 | awk -F'|' '{ print $3 }')

[ "${#rank[@]}" -gt 5 ] || { echo "check-layers: no layer table found in $table"; exit 1; }

failures=0
for module in "${!rank[@]}"; do
  [ -d "Sources/$module" ] || continue
  while IFS=: read -r file imported; do
    if [ -z "${rank[$imported]+set}" ]; then
      if [ -d "Sources/$imported" ]; then
        echo "$file: imports $imported, which is not a layer in $table"
        failures=$((failures + 1))
      fi
    elif [ "${rank[$imported]}" -ge "${rank[$module]}" ]; then
      echo "$file: $module imports $imported, which is not above it in $table"
      failures=$((failures + 1))
    fi
  done < <(grep -rEo --include='*.swift' '^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*import[[:space:]]+[A-Za-z0-9_]+' "Sources/$module" |
    sed -E 's/:.*import[[:space:]]+/:/')
done

if [ "$failures" -gt 0 ]; then
  echo "check-layers: $failures import(s) cross the module lines of $table"
  exit 1
fi
echo "check-layers: every layer imports only the layers above it (${#rank[@]} modules)"
