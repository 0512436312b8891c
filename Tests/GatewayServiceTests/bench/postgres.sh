# shellcheck shell=bash
# A throwaway PostgreSQL for the benchmarks that run their own (fleet-bench.sh, reader-memory.sh),
# sourced by them:
#
#   bench_postgres_start DIR PORT [SETTING ...]
#       a cluster in DIR/pg (its log DIR/pg/server.log) listening on 127.0.0.1:PORT, its socket
#       in DIR/pgsock, each SETTING a postgresql.conf line added after those; then a database
#       "gateway", whose URL it sets in DB. As root, PostgreSQL runs as the postgres user.
#   bench_postgres_stop DIR
#       stops that cluster at once (for the EXIT trap; nothing if it was not made).
#   wal_records_per COUNT WALDIR START END
#       the WAL between the LSNs START and END in WALDIR by record kind (pg_waldump --stats=record),
#       divided by COUNT (the claims, events ... the caller measured; its heading names them).
#
# PGBIN is PostgreSQL's bin directory (default: the newest under /usr/lib/postgresql).
PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}

# as_postgres COMMAND...: COMMAND as the postgres user when we are root, else as ourselves.
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

bench_postgres_start() {
  local dir=$1 port=$2
  shift 2
  mkdir -p "$dir/pg" "$dir/pgsock"
  [ "$(id -u)" = 0 ] && chown postgres "$dir/pg" "$dir/pgsock"
  as_postgres "$PGBIN/initdb" -D "$dir/pg" -U postgres -A trust >/dev/null
  {
    echo "listen_addresses = '127.0.0.1'"
    echo "port = $port"
    echo "unix_socket_directories = '$dir/pgsock'"
    [ $# -eq 0 ] || printf '%s\n' "$@"
  } >> "$dir/pg/postgresql.conf"
  as_postgres "$PGBIN/pg_ctl" -D "$dir/pg" -l "$dir/pg/server.log" -w start >/dev/null
  "$PGBIN/createdb" -h "$dir/pgsock" -p "$port" -U postgres gateway
  DB="postgresql://postgres@127.0.0.1:$port/gateway"
}

bench_postgres_stop() {
  [ -d "$1/pg" ] && as_postgres "$PGBIN/pg_ctl" -D "$1/pg" -m immediate stop >/dev/null 2>&1 || true
}

wal_records_per() {
  local count=$1 waldir=$2 start=$3 end=$4
  as_postgres "$PGBIN/pg_waldump" -p "$waldir" -s "$start" -e "$end" --stats=record 2>/dev/null | python3 -c '
import re, sys
count = int(sys.argv[1])
for line in sys.stdin:
    m = re.match(r"([\w/]+)\s+(\d+)\s+\(\s*[\d.]+\)\s+(\d+)\s+\(\s*[\d.]+\)\s+(\d+)", line)
    if m and m.group(1) != "Total" and int(m.group(2)) > 0:
        print(f"  {m.group(1):<24} {int(m.group(2)) / count:7.2f} records {int(m.group(3)) / count:8.1f} bytes {int(m.group(4)) / count:8.1f} bytes of page images")
' "$count"
}
