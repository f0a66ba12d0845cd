# Sourced by bench/run.sh after B8/B9 (uses record, say, BIN, SERVER_BIN, WORK, N_STORE, N_B7): the cases on
# PostgreSQL, on a throwaway cluster (initdb + pg_ctl on a free port under $WORK, as the postgres user when
# run as root, fsync on as in production), each case on a fresh database.
#   B10 outbox enqueue+claim+complete with 1 and 3 workers (instances) vs B8 (SQLite)
#   B11 POST /v1/pushes -> mock with 1, 2 and 3 instances on PostgreSQL vs 1 on SQLite (one mock process in each run)
#   B9  drops with 1,000 concurrent reporters over 3 instances on PostgreSQL
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$PG_BIN" ] || ! command -v psql >/dev/null; then
    for c in B10.pg-w1 B10.pg-w3 B11.sqlite-1 B11.pg-1 B11.pg-2 B11.pg-3 B9.drops-postgres-3; do
        printf '%s\tskip\t{"skipped":"PostgreSQL not installed (make deps)"}\n' "$c" >> "$RAW"
    done
    say "B10/B11/B9 on PostgreSQL: skipped (PostgreSQL not installed)"
    return 0
fi
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
PG_DIR=$WORK/pg
PG_PORT=$(free_port)
mkdir -p "$PG_DIR" && chmod 755 "$WORK"
[ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
as_postgres "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U postgres -E UTF8 --locale=C >/dev/null
as_postgres "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=128MB" start >/dev/null
pg_stop() { as_postgres "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1; }
# fresh_db: drops the databases of the cases before, takes a checkpoint, and prints the URL of a new, empty
# database (named by the clock: it runs in a subshell, so a counter would not survive the call). Without the
# clean-up each case paid for the ones before it: autovacuum of their tables and a checkpoint of their writes
# landing in it (B10 with 1 worker, four fresh databases in a row: 21.8k, 20.1k, 17.7k, 16.9k cycles/s; with
# the clean-up 19.3k, 21.7k, 21.4k, 20.6k).
fresh_db() {
    local name="bench_$(date +%s%N)" old
    for old in $(pg_sql "SELECT datname FROM pg_database WHERE datname LIKE 'bench\\_%'"); do
        pg_sql "DROP DATABASE $old" >/dev/null || return 1
    done
    pg_sql "CHECKPOINT" >/dev/null && pg_sql "CREATE DATABASE $name" >/dev/null || return 1
    echo "postgres://postgres@127.0.0.1:$PG_PORT/$name"
}
pg_sql() { psql -X -q -At -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -c "$1"; }
pg_store() { "$BIN" store -n "$N_STORE" --database "$(fresh_db)" --workers "$1"; }
b11() {  # b11 INSTANCES [postgres]
    local database=()
    [ "${2:-}" = postgres ] && database=(--database "$(fresh_db)")
    timeout 300 python3 "$ROOT/bench/b11_cluster.py" --server "$SERVER_BIN" --mock "$BIN" --work "$WORK" -n "$N_B11" \
        --batch 5000 --parallel 4 --instances "$1" "${database[@]}"
}
pg_drops() { timeout 120 "$BIN" drops --reporters 1000 --rounds 5 --store postgres --database "$(fresh_db)" --instances "$1"; }

say "== B10 outbox on PostgreSQL (1 and 3 workers)"
record B10.pg-w1 pg_store 1
record B10.pg-w3 pg_store 3
say "== B11 end to end: 1 instance on SQLite, 1-3 instances on PostgreSQL"
N_B11=${BENCH_N_B11:-$((N_B7 / 2))}
if [ -n "$SERVER_BIN" ] && [ -x "$SERVER_BIN" ]; then
    record B11.sqlite-1 b11 1
    for i in 1 2 3; do record "B11.pg-$i" b11 "$i" postgres; done
fi
say "== B9 drops over 3 instances on PostgreSQL"
record B9.drops-postgres-3 pg_drops 3
pg_stop
