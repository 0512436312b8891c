#!/usr/bin/env bash
# What OpenSSL keeps per established server connection, one configuration switch at a time
# (bench/openssl-connection-memory.c): malloc's bytes in use per connection after 1,000
# handshakes with client certificates shaped like the readers' (ECDSA P-256, serialNumber and
# common name, the extensions CertificateAuthority.swift writes), record buffers released.
#
#   Tests/GatewayTransportTests/scripts/openssl-connection-memory.sh [N]
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/openssl-connection-memory.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
cc -O1 -I "$HERE/../../Sources/CGatewayOpenSSL" -o memory "$HERE/bench/openssl-connection-memory.c" -lssl -lcrypto
config() { printf '[req]\ndistinguished_name=d\n[d]\n[v3]\n%b' "$1"; }
openssl ecparam -name prime256v1 -genkey -noout -out ca.key
openssl req -new -x509 -key ca.key -subj "/CN=Reader CA" -days 30 -sha256 -out ca.pem -extensions v3 \
  -config <(config 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\n')
issue() { # NAME KEY(ec|ed25519) SUBJECT EXTENSIONS
  if [ "$2" = ed25519 ]; then openssl genpkey -algorithm ed25519 -out "$1.key"; else openssl ecparam -name prime256v1 -genkey -noout -out "$1.key"; fi
  openssl req -new -key "$1.key" -subj "$3" -out "$1.csr"
  printf '%b' "$4" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 -sha256 -extfile "$1.ext" -out "$1.pem" 2>/dev/null
}
LEAF='basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid:always\n'
issue server ec "/CN=localhost" "${LEAF}extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n"
issue reader ec "/CN=R-000001/serialNumber=R-000001" "${LEAF}extendedKeyUsage=clientAuth\n"
issue reader-bare ec "/serialNumber=R-000001" 'basicConstraints=critical,CA:FALSE\n'
issue reader-ed25519 ed25519 "/CN=R-000001/serialNumber=R-000001" 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid:always\n'
ulimit -n $(( ${1:-1000} * 2 + 100 ))
echo "| server configuration (N=${1:-1000}) | TLS | sent chain the connection keeps | bytes per connection |"
echo "| --- | --- | --- | --- |"
run() { env N="${1:-1000}" "${@:3}" ./memory "$2"; }
N=${1:-1000}
run "$N" "as the gateway before (client sends its root)"
run "$N" "release the sent chain after verification" RELEASE_CHAIN=1
run "$N" "release the sent chain, TLS 1.2" RELEASE_CHAIN=1 MAXV=12
run "$N" "client sends no root (NO_AUTO_CHAIN)" SEND_ROOT=0
run "$N" "no client CA list advertised" ADVERTISE=0
run "$N" "2 session tickets" TICKETS=2
run "$N" "session cache off" CACHE=0
run "$N" "release, reader certificate: serialNumber only, basicConstraints only" RELEASE_CHAIN=1 READER=reader-bare
run "$N" "release, reader certificate: Ed25519 key" RELEASE_CHAIN=1 READER=reader-ed25519
run "$N" "no client certificate (the echo's floor)" VERIFY=0
