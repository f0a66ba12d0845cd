#!/usr/bin/env bash
# make cluster: a local PostgreSQL, N push-server instances on it (each with the embedded mock APNs) and
# haproxy on 127.0.0.1:8080 in front of them. Everything lives under one temporary directory and stops on
# Ctrl-C. Usage: deploy/cluster/run.sh [instances (default 3)] [listen port (default 8080)]
set -euo pipefail
instances="${1:-3}"
listen_port="${2:-8080}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
server="$root/.build/release/push-server"
pg_bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
[ -x "$server" ] || { echo "cluster: build first (make cluster does: swift build -c release)" >&2; exit 1; }
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || { echo "cluster: haproxy is missing; run make deps" >&2; exit 1; }

work="$(mktemp -d /tmp/push-cluster.XXXXXX)"
chmod 755 "$work"
pids=()
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
stop() {
    trap - INT TERM EXIT
    echo; echo "cluster: stopping"
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    as_postgres "$pg_bin/pg_ctl" -D "$work/pg" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap stop INT TERM EXIT

pg_port="$(free_port)"
mkdir -p "$work/pg"
[ "$(id -u)" = 0 ] && chown postgres "$work/pg"
as_postgres "$pg_bin/initdb" -D "$work/pg" -A trust -U postgres >/dev/null
as_postgres "$pg_bin/pg_ctl" -D "$work/pg" -l "$work/pg/server.log" -w \
    -o "-p $pg_port -k $work/pg -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
as_postgres "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres push
database="postgres://postgres@127.0.0.1:$pg_port/push"

api_key="$(openssl rand -hex 24)"
servers=""
ports=()
for n in $(seq 1 "$instances"); do
    port="$(free_port)"
    mkdir -p "$work/instance-$n"
    PUSH_API_KEY="$api_key" "$server" --embedded --data-dir "$work/instance-$n" --port "$port" \
        --database "$database" >"$work/instance-$n/log" 2>&1 &
    pids+=("$!")
    ports+=("$port")
    servers+="    server push-$n 127.0.0.1:$port check"$'\n'
    echo "cluster: instance $n on 127.0.0.1:$port (log $work/instance-$n/log)"
done
# Each instance has answered /healthz before the balancer starts.
for n in $(seq 1 "$instances"); do
    port="${ports[$((n - 1))]}"
    for _ in $(seq 1 300); do
        curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
        kill -0 "${pids[$((n - 1))]}" 2>/dev/null || { echo "cluster: instance $n exited:"; cat "$work/instance-$n/log"; exit 1; }
        sleep 0.1
    done
done
sed -e "s|@LISTEN@|127.0.0.1:$listen_port|" -e "/@SERVERS@/d" "$here/haproxy.cfg.in" >"$work/haproxy.cfg"
printf '%s' "$servers" >>"$work/haproxy.cfg"
"$(command -v haproxy || echo /usr/sbin/haproxy)" -f "$work/haproxy.cfg" -db &
pids+=("$!")

cat <<INFO

cluster: PostgreSQL at $database
cluster: $instances push-server instances behind haproxy on http://127.0.0.1:$listen_port
cluster: API key: $api_key
  curl -H "Authorization: Bearer $api_key" http://127.0.0.1:$listen_port/healthz
  PUSHCTL_URL=http://127.0.0.1:$listen_port PUSHCTL_API_KEY=$api_key .build/release/pushctl status
Ctrl-C stops everything.
INFO
wait "${pids[@]}"
