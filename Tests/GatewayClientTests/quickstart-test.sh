#!/usr/bin/env bash
# The Swift quickstart of docs/client.md, as an application developer runs it: its
# Package.swift and sources (every `<!-- quickstart: PATH -->` block: the lane's main.swift,
# which imports GatewayClient alone, and the demo backend's), copied exactly as the page shows them, in a new
# package beside a checkout named reader-gateway (a link to this one), built on its own and
# run against a reader-gateway (embedded PostgreSQL) and a reader-sim registered by its code.
#
#   Tests/GatewayClientTests/quickstart-test.sh BIN_DIR     (make quickstart-test)
set -euo pipefail
bin=$(cd "${1:?usage: quickstart-test.sh BIN_DIR}" && pwd)
checkout=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
chmod 755 "$work"   # the embedded PostgreSQL runs as its own account, which must reach data/
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "quickstart-test: $*" >&2; for log in "$work"/*.log; do echo "--- $log" >&2; tail -n 30 "$log" >&2; done; exit 1; }

# Waits up to 120 s for a line of FILE matching PATTERN and prints it.
wait_for() {
  for _ in $(seq 1 1200); do
    if line=$(grep -m1 -E "$2" "$1" 2>/dev/null); then echo "$line"; return 0; fi
    sleep 0.1
  done
  fail "no line matching '$2' in $1"
}

# The package, from the page.
ln -s "$checkout" "$work/reader-gateway"
mkdir -p "$work/Lane"
python3 - "$checkout/docs/client.md" "$work/Lane" <<'PY'
import pathlib, re, sys
page, package = pathlib.Path(sys.argv[1]).read_text(), pathlib.Path(sys.argv[2])
blocks = dict(re.findall(r"<!-- quickstart: (\S+) -->\n```swift\n(.*?)\n```\n", page, re.S))
for name in ("Package.swift", "Sources/Lane/main.swift", "Sources/DemoBackend/DemoBackend.swift"):
    if name not in blocks:
        sys.exit(f"quickstart-test: docs/client.md has no quickstart block for {name}")
for name, text in blocks.items():
    (package / name).parent.mkdir(parents=True, exist_ok=True)
    (package / name).write_text(text + "\n")
# The lane speaks the point-of-sale SDK alone: the wire module only in the demo backend.
lane = blocks["Sources/Lane/main.swift"]
if re.search(r"^import Gateway(?!Client$)\w*$", lane, re.M):
    sys.exit("quickstart-test: the lane's main.swift imports more of the gateway than GatewayClient")
PY
echo "quickstart-test: building the quickstart package (its own .build)"
(cd "$work/Lane" && swift build 2>&1 | tee "$work/build.log" | grep -E "warning:|error:" || true)
[ -x "$work/Lane/.build/debug/Lane" ] || fail "the quickstart did not build"
grep -q "warning:" "$work/build.log" && fail "the quickstart builds with warnings"

# A gateway, a location, a reader.
"$bin/reader-gateway" --data-dir "$work/data" --port 0 --internal-port 0 > "$work/gateway.log" 2>&1 &
pids+=($!)
listening=$(wait_for "$work/gateway.log" 'msg="gateway listening"')
port=$(echo "$listening" | sed -E 's/.* address=127\.0\.0\.1:([0-9]+).*/\1/')
secret=$(wait_for "$work/gateway.log" 'secret key: sk_' | sed -E 's/.*(sk_[A-Za-z0-9]+).*/\1/')
ca="$work/data/tls/ca.pem"
export GATEWAYCTL_GATEWAY="127.0.0.1:$port" GATEWAYCTL_CA="$ca" GATEWAYCTL_SECRET_KEY="$secret"
location=$("$bin/gatewayctl" locations create "Front Store")
"$bin/reader-sim" --gateway "127.0.0.1:$port" --ca "$ca" --serial WSQ-QUICK-1 > "$work/reader-sim.log" 2>&1 &
pids+=($!)
code=$(wait_for "$work/reader-sim.log" '^registration_code ' | sed -E 's/.* code=([A-Z0-9-]+).*/\1/')
"$bin/gatewayctl" readers register --code "$code" --label "Counter 1" --location "$location" > /dev/null
wait_for "$work/reader-sim.log" '^online ' > /dev/null

# The quickstart, as the page runs it.
(cd "$work/Lane" && GATEWAY_PORT="$port" GATEWAY_CA="$ca" SECRET_KEY="$secret" LOCATION_ID="$location" \
  timeout 120 .build/debug/Lane > "$work/lane.log" 2>&1) || fail "the quickstart exited with $?"
cat "$work/lane.log"
grep -q '^connected Counter 1 WSQ-QUICK-1$' "$work/lane.log" || fail "no 'connected Counter 1 WSQ-QUICK-1'"
grep -qE '^collected [a-z]+ [0-9]{4}$' "$work/lane.log" || fail "no 'collected BRAND LAST4'"
grep -q '^confirmed pi_quickstart_1 succeeded ' "$work/lane.log" || fail "no 'confirmed pi_quickstart_1 succeeded'"
grep -q '^taken over by Lane 2: readerConnectedToAnotherDevice$' "$work/lane.log" || fail "no 'taken over by Lane 2: readerConnectedToAnotherDevice'"
grep -q '^the screen heard Lane 2$' "$work/lane.log" || fail "no 'the screen heard Lane 2'"
echo "quickstart-test: the quickstart of docs/client.md built and ran as written"
