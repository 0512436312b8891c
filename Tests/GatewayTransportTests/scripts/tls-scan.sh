#!/bin/bash
# Scans a listening TLS echo built on the transport with sslscan (a tool nobody here wrote) and
# fails on any protocol below TLS 1.2, any cipher without forward secrecy, or compression.
# Usage: tls-scan.sh PATH/TO/transport-echo
set -euo pipefail
ECHO=${1:?usage: tls-scan.sh PATH/TO/transport-echo}
WORK=$(mktemp -d)
SERVER=""
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

"$ECHO" --host 127.0.0.1 --port 0 --loops 1 --dev-ca "$WORK/ca" > "$WORK/out" 2> "$WORK/log" &
SERVER=$!
for _ in $(seq 1 200); do grep -q '^listening ' "$WORK/out" 2>/dev/null && break; sleep 0.05; done
ADDRESS=$(sed -n 's/^listening //p' "$WORK/out")
[ -n "$ADDRESS" ] || { echo "transport-echo did not start:"; cat "$WORK/log"; exit 1; }
echo "scanning $ADDRESS with $(sslscan --version 2>/dev/null | sed -n 's/.*\(2\.[0-9.]*\).*/sslscan \1/p' | head -1)"
timeout 300 sslscan --no-colour --xml="$WORK/scan.xml" "$ADDRESS" > "$WORK/scan.txt"
# Debian's OpenSSL is built without zlib, so sslscan reports compression as untestable; the
# server also sets SSL_OP_NO_COMPRESSION. Record what sslscan said about it.
grep -A1 'TLS Compression' "$WORK/scan.txt" | tail -1 | sed 's/^/compression: /'
python3 "$(dirname "$0")/check-sslscan.py" "$WORK/scan.xml"
