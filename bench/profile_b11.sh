#!/usr/bin/env bash
# B11 under perf: runs bench/b11_cluster.py once (1 instance on SQLite, or INSTANCES on a throwaway PostgreSQL
# cluster as bench/cluster.sh makes it), each push-server under `perf record --call-graph dwarf` from its
# start, and prints b11_cluster.py's result line (its CPU figure is perf's, not the instances'), then each
# instance's folded profile's path (bench/stages.py fold). Samples at 999 Hz: an instance's samples / 999 are
# its CPU seconds, to be divided by the notifications. Compare rates by unprofiled runs.
#
# The mock APNs runs in its own process (push-bench mock, not profiled), as in B11: the instances' profiles
# hold the service alone.
#
# usage: bench/profile_b11.sh sqlite|postgres [INSTANCES] [N]    (SERVER_BIN, default the release push-server;
#        MOCK_BIN, default the release push-bench; OUT=dir for the profiles)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STORE=${1:?sqlite or postgres}
INSTANCES=${2:-2}
N=${3:-50000}
SERVER_BIN=${SERVER_BIN:-"$(swift build -c release --show-bin-path)/push-server"}
MOCK_BIN=${MOCK_BIN:-"$(dirname "$SERVER_BIN")/push-bench"}
WORK=$(mktemp -d /tmp/profile-b11.XXXXXX)
OUT=${OUT:-$WORK/out}
mkdir -p "$OUT"
chmod 755 "$WORK"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
PG_DIR=$WORK/pg
cleanup() {
    [ -d "$PG_DIR/data" ] && as_postgres "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$WORK/pg" "$WORK"/b11-*
}
trap cleanup EXIT
# Each instance runs under `perf record -- push-server …` (a wrapper b11_cluster.py starts as its server):
# perf follows every thread the instance starts, from its start (attached to a running process with -p, it
# missed the threads started after, such as the PostgreSQL pool's). The
# pid b11_cluster.py reads CPU from is then perf's: its CPU figure is not the instances'.
cat > "$WORK/server.sh" <<EOF
#!/bin/sh
exec perf record -q -F 999 --call-graph dwarf,16384 -o "$OUT/perf-\$\$.data" -- "$SERVER_BIN" "\$@" 2>>"$OUT/perf-\$\$.err"
EOF
chmod +x "$WORK/server.sh"
database=()
if [ "$STORE" = postgres ]; then
    PG_PORT=$(free_port)
    mkdir -p "$PG_DIR"
    [ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
    as_postgres "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U postgres -E UTF8 --locale=C >/dev/null
    as_postgres "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w \
        -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=128MB" start >/dev/null
    psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -c "CREATE DATABASE bench" >/dev/null
    database=(--database "postgres://postgres@127.0.0.1:$PG_PORT/bench")
else
    INSTANCES=1
fi
python3 "$ROOT/bench/b11_cluster.py" --server "$WORK/server.sh" --mock "$MOCK_BIN" --work "$WORK" -n "$N" --batch 5000 --parallel 4 \
    --instances "$INSTANCES" "${database[@]}"
# perf writes what it holds once its instance ended.
while pgrep -f "^perf record .*-o $OUT/perf-" > /dev/null; do sleep 0.5; done
for data in "$OUT"/perf-*.data; do
    python3 "$ROOT/bench/stages.py" fold "$data" > "${data%.data}.folded"
    echo "${data%.data}.folded"
done
