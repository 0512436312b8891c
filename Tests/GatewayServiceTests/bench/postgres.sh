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
#   single_user_instructions DIR PORT DATABASE
#       stops the cluster in DIR/pg (listening on PORT), then runs the first line of
#       DIR/measured.sql with its next 10 lines, and again with its next 60, each in a single-user
#       backend on a copy of DATABASE under callgrind (DIR/callgrind-10.out, DIR/callgrind-60.out);
#       prints the instructions of the 50 lines between, which no load changes.
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

single_user_instructions() {
  local dir=$1 port=$2 database=$3
  "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "postgresql://postgres@127.0.0.1:$port/postgres" \
    -c "CREATE DATABASE callgrind_10 TEMPLATE $database" -c "CREATE DATABASE callgrind_60 TEMPLATE $database"
  as_postgres "$PGBIN/pg_ctl" -D "$dir/pg" -m fast -w stop >/dev/null
  chmod 777 "$dir"
  local -A instructions=()
  local n
  for n in 10 60; do
    { head -1 "$dir/measured.sql"; sed -n "2,$((n + 1))p" "$dir/measured.sql"; } | tr -s '\n' > "$dir/callgrind-$n.sql"
    as_postgres valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind-$n.out" "$PGBIN/postgres" --single -D "$dir/pg" \
      -c autovacuum=off -c full_page_writes=off "callgrind_$n" < "$dir/callgrind-$n.sql" > "$dir/callgrind-$n.log" 2>&1
    instructions[$n]=$(awk '/^(summary|totals):/ { print $2; exit }' "$dir/callgrind-$n.out")
  done
  echo $(( instructions[60] - instructions[10] ))
}

# The event log as a busy fleet leaves it: $2 events, mostly command outcomes of 1,000 readers,
# some ownership and status events, random ids as the earlier writers made them. $1: a function
# that runs one statement (psql_q of the caller).
preload_event_log() {
  local run=$1 count=$2
  "$run" "INSERT INTO events (id, account_id, type, reader_id, location_id, object)
          SELECT 'evt_' || replace(gen_random_uuid()::text, '-', ''), 'acct_bench',
                 CASE WHEN i % 50 = 0 THEN 'reader.ownership.connected' WHEN i % 97 = 0 THEN 'reader.online'
                      WHEN i % 1000 = 0 THEN 'reader.action.failed' ELSE 'reader.action.succeeded' END,
                 (1 + i % 1000)::text, 'loc_bench',
                 jsonb_build_object('object', 'reader_action', 'action', 'set_reader_display', 'status', 'succeeded',
                                    'session_id', 'sess_' || (i % 64), 'reader', jsonb_build_object('object', 'reader', 'id', (1 + i % 1000)::text))
          FROM generate_series(1, $count) AS i"
}
