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
