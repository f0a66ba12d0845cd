#!/usr/bin/env bash
# make bench: builds push-bench and push-server in release and runs B1-B12 side by side (method and latest results: bench/README.md).
# Each case: one warm-up run, then RUNS measured runs (median, min-max). Goals are printed, never enforced.
# Then bench/charts.py draws bench/*.svg from bench/results.json (matplotlib in bench/venv).
# Knobs: BENCH_N (B1 notifications, 200000), BENCH_RUNS (3), BENCH_QUICK=1 (n/10 everywhere), BENCH_ONLY=cluster
#        (B8, B9 and the PostgreSQL cases B10, B11, B9 across instances only), BENCH_ONLY=b7 (B7, B7.budget, B7H, B7L only),
#        BENCH_ONLY=main (B1's alternating rounds, then B7 and B7.budget: the service beside the client alone),
#        BENCH_ONLY=b7h (B7, then B7H at half its rate: latency under normal load),
#        BENCH_B7L_RUNS (measured runs of each B7L size, 1), BENCH_SCRATCH (a --scratch-path for swift build; default .build).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
ONLY=${BENCH_ONLY:-}
case "$ONLY" in
    "" | b7 | b7h | cluster | main) ;;
    *) printf 'BENCH_ONLY must be empty, b7, b7h, cluster or main, not %s\n' "$ONLY" >&2; exit 2 ;;
esac
RUNS=${BENCH_RUNS:-3}
N=${BENCH_N:-200000}
if [ "${BENCH_QUICK:-0}" = 1 ]; then N=$((N / 10)); fi
N_SMALL=$((N / 2))          # B2/B3 per run
N_B4=$((N / 4))             # B4: ~4 s at its 12,500/s bound, so the one 40 ms latency of ramp and drain is ~1% of the run
B4_REJECT_PERCENT=1         # B4's rejections; recorded as B4.config, bench/summarize.py requires that rate
N_B6=$((N / 10))            # aioapns in its default setup: a few thousand/s
M_B6=100                    # in flight for both B6 clients: under the mock's stream limit and, for aioapns, its window:
                            # its h2 does not wait for the 64 KB connection window; with 200 or 500 in flight sends
                            # failed with FlowControlError, retried after 1 s and could fail 5 times (1-2 of 4-6 runs)
N_STORE=$((N / 4))
N_B7=$((N / 2))            # B7 notifications through the service per run
M=1000
MATPLOTLIB_VERSION=3.11.2   # bench/charts.py draws bench/*.svg with it, from bench/venv
TOPIC=com.example.sniffmeet
TOKEN=$(printf 'ab%.0s' $(seq 32))
WORK=$(mktemp -d /tmp/push-bench.XXXXXX)
RAW=$ROOT/bench/raw.jsonl
: > "$RAW"
PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done; rm -rf "$WORK"; }
trap cleanup EXIT

say() { printf '%s\n' "$*" >&2; }

say "== building push-bench (release)"
SCRATCH=()
[ -n "${BENCH_SCRATCH:-}" ] && SCRATCH=(--scratch-path "$BENCH_SCRATCH")
swift build -c release "${SCRATCH[@]}" --product push-bench >&2 || { say "build failed"; exit 1; }
BIN="$(swift build -c release "${SCRATCH[@]}" --show-bin-path)/push-bench"
say "== building push-server (release, for B7)"
SERVER_BIN="$(dirname "$BIN")/push-server"
swift build -c release "${SCRATCH[@]}" --product push-server >&2 || { say "push-server build failed: B7 skipped"; SERVER_BIN=; }
START=$(date +%s)
# aioapns for B6 and matplotlib for the charts, which every selection of cases draws.
if [ ! -x bench/venv/bin/python ] || ! bench/venv/bin/python -c "import aioapns, matplotlib
assert matplotlib.__version__ == '$MATPLOTLIB_VERSION'" 2>/dev/null; then
    say "   installing aioapns and matplotlib $MATPLOTLIB_VERSION (for the charts) into bench/venv"
    python3 -m venv bench/venv >&2 && bench/venv/bin/pip install -q aioapns "matplotlib==$MATPLOTLIB_VERSION" >&2
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_mock NAME ARGS...: sets MOCK_PID, MOCK_PORT, CREDS (the credentials in $CREDS_DIR, default $WORK/creds).
start_mock() {
    local name=$1; shift
    CREDS=${CREDS_DIR:-$WORK/creds}
    "$BIN" mock --port 0 --write-credentials "$CREDS" --ignore-stdin "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" &
    MOCK_PID=$!; PIDS+=("$MOCK_PID")
    for _ in $(seq 100); do grep -q listening "$WORK/$name.out" && break; sleep 0.1; done
    MOCK_PORT=$(awk '/listening/{print $2}' "$WORK/$name.out")
}
stop_mock() {
    kill -TERM "$MOCK_PID" 2>/dev/null; wait "$MOCK_PID"; local rc=$?
    [ $rc -gt 128 ] && [ $rc -ne 143 ] && say "   mock exited with signal $((rc - 128))"
    tail -n 1 "$WORK/$1.out" | sed "s/^/$1\t/" >> "$RAW"
}

# record_one CASE KIND CMD...: one run (KIND warmup or run) of CMD, which prints one JSON line (or nothing
# on failure). The 1-minute load average just before it goes beside it (4th column), for the summary.
record_one() {
    local case=$1 kind=$2 line load
    shift 2
    load=$(cut -d' ' -f1 /proc/loadavg)
    line=$("$@" 2>> "$WORK/errors.log" | tail -n 1)
    [ -z "$line" ] && line="{\"error\":\"no result (exit or timeout), see stderr\"}"
    printf '%s\t%s\t%s\t%s\n' "$case" "$kind" "$line" "$load" >> "$RAW"
}
# record CASE CMD...: one warm-up, RUNS measured.
record() {
    local case=$1 i
    shift
    for i in $(seq 0 "$RUNS"); do record_one "$case" "$([ "$i" = 0 ] && echo warmup || echo run)" "$@"; done
    say "   $case done ($(( $(date +%s) - START )) s)"
}

# client PORT ARGS...: push-bench client under /usr/bin/time, so its CPU is also measured over the whole
# process (as h2load's is): process_cpu_us_per_notification counts every notification it sent, warm-up included.
client() {
    local tm=$WORK/client.time line arg in_flight=(-m "$M")
    # A case that sets its own -m (B6) replaces the default: the parser refuses an option given twice.
    for arg in "${@:2}"; do [ "$arg" = -m ] && in_flight=(); done
    line=$(timeout 120 /usr/bin/time -f "%U %S" -o "$tm" "$BIN" client --port "$1" --ca "$CREDS/ca.pem" \
        --cert "$CREDS/client.pem" --key "$CREDS/client-key.pem" "${in_flight[@]}" "${@:2}" | tail -n 1)
    [ -n "$line" ] && python3 "$ROOT/bench/process_cpu.py" "$line" "$tm"
}
# with_server_cpu PID CMD...: runs CMD (a push-bench client run printing one JSON line) and adds the CPU the
# server PID used meanwhile, per request sent (server_cpu_us_per_request, as h2 does for h2load).
with_server_cpu() {
    local pid=$1 before after line
    shift
    before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    line=$("$@" | tail -n 1)
    after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    [ -n "$line" ] && python3 "$ROOT/bench/server_cpu.py" "$line" "$((after - before))" "$(getconf CLK_TCK)"
}
h2() {  # h2 LABEL PORT N BODY [SERVER_PID]: with SERVER_PID, the server's CPU over the run is reported too
    local out=$WORK/h2.out tm=$WORK/h2.time server_cpu=()
    local before after
    [ -n "${5:-}" ] && before=$(awk '{print $14 + $15}' "/proc/$5/stat")
    timeout 120 /usr/bin/time -f "%U %S" -o "$tm" h2load -c1 -m$M -n "$3" -d "$4" -H "apns-topic: $TOPIC" \
        -H "apns-push-type: alert" "https://127.0.0.1:$2/3/device/$TOKEN" > "$out" 2>&1
    if [ -n "${5:-}" ]; then
        after=$(awk '{print $14 + $15}' "/proc/$5/stat")
        server_cpu=(--server-cpu-ticks "$((after - before))" --ticks-per-second "$(getconf CLK_TCK)")
    fi
    python3 "$ROOT/bench/h2load_json.py" "$1" "$out" "$tm" "$3" "${server_cpu[@]}"
}

# BENCH_ONLY=cluster: only B8 (the SQLite baseline) and the PostgreSQL cases of bench/cluster.sh;
# BENCH_ONLY=b7: only the service cases B7, B7.budget, B7H and B7L; BENCH_ONLY=main: only B1's alternating rounds,
# B7 and B7.budget; BENCH_ONLY=b7h: only B7 and B7H. bench/bench_cases.py lists the cases of each selection.
if [ -z "$ONLY" ] || [ "$ONLY" = main ]; then
for size in 100 256 1024 4096; do "$BIN" payload --payload-bytes $size --out "$WORK/body$size"; done

say "== B1/B2/B3/B6 against the mock (accept-all)"
# B1: our client (send, and send(batch:): chunks of 100, at most -m pending, the outbox worker's entry
# point) and h2load against one mock, in alternating rounds (a warm-up of each, then RUNS of each), so that
# both sides of each ratio see the same moments of this shared machine.
if "$BIN" mock --accept-all --no-client-auth --write-credentials "$WORK/probe" < /dev/null > /dev/null 2>&1; then
    say "   (mock --no-client-auth works: h2load targets the mock)"
    B5_MOCK=1
    start_mock mock-accept --accept-all --no-client-auth --no-unique-ids
else
    printf 'B1.h2load-mock\tskip\t{"skipped":"mock requires client certificates; h2load cannot send one"}\n' >> "$RAW"
    say "   h2load vs mock skipped: the mock requires client certificates"
    start_mock mock-accept --accept-all --no-unique-ids
fi
MOCK_CREDS=$CREDS
for i in $(seq 0 "$RUNS"); do
    kind=$([ "$i" = 0 ] && echo warmup || echo run)
    record_one B1.client "$kind" client "$MOCK_PORT" -n "$N" --connections 1 --payload-bytes 256
    record_one B1.client-batch "$kind" client "$MOCK_PORT" -n "$N" --connections 1 --payload-bytes 256 --batch 100
    [ -n "${B5_MOCK:-}" ] && record_one B1.h2load-mock "$kind" h2 h2load-mock "$MOCK_PORT" "$N" "$WORK/body256"
done
say "   B1 alternating rounds done ($(( $(date +%s) - START )) s)"
fi  # BENCH_ONLY empty or main
if [ -z "$ONLY" ]; then
for c in 2 4; do record "B2.c$c" client "$MOCK_PORT" -n "$N_SMALL" --connections $c --payload-bytes 256; done
for size in 100 1024 4096; do record "B3.p$size" client "$MOCK_PORT" -n "$N_SMALL" --payload-bytes $size; done
# B6: each client as its users run it: ours with its defaults (1 connection), aioapns with its default
# pool; both with M_B6 in flight, under the stream limit, so aioapns never waits in its pool-busy loop.
record B6.client client "$MOCK_PORT" -n "$N_B6" --payload-bytes 256 -m $M_B6
record B6.aioapns timeout 300 bench/venv/bin/python bench/aioapns_client.py --port "$MOCK_PORT" --ca "$CREDS/ca.pem" \
    --cert "$CREDS/client.pem" --key "$CREDS/client-key.pem" --body "$WORK/body256" -n "$N_B6" -m $M_B6

say "== B12 the same client straight to the mock, through tinyproxy (HTTP CONNECT) and danted (SOCKS5, with and without nodelay=1), alternating rounds"
N_B12=$((N / 2))
if command -v tinyproxy > /dev/null; then
    TP_PORT=$(free_port)
    printf 'Port %s\nListen 127.0.0.1\nTimeout 600\nMaxClients 50\nLogLevel Warning\n' "$TP_PORT" > "$WORK/tinyproxy.conf"
    tinyproxy -d -c "$WORK/tinyproxy.conf" > "$WORK/tinyproxy.log" 2>&1 &
    TP_PID=$!; PIDS+=("$TP_PID")
    for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$TP_PORT") 2>/dev/null && break; sleep 0.1; done
    # danted (SOCKS5, no auth here), in its own session so its helpers end with it.
    D_PID=
    if command -v danted > /dev/null || [ -x /usr/sbin/danted ]; then
        D_PORT=$(free_port)
        printf 'logoutput: stderr\ninternal: 127.0.0.1 port = %s\nexternal: 127.0.0.1\nsocksmethod: none\nclientmethod: none\nuser.privileged: root\nuser.unprivileged: nobody\nclient pass { from: 127.0.0.1/32 to: 0.0.0.0/0 }\nsocks pass {\n from: 127.0.0.1/32 to: 0.0.0.0/0\n command: connect\n}\n' \
            "$D_PORT" > "$WORK/danted.conf"
        setsid /usr/sbin/danted -f "$WORK/danted.conf" -N 1 > "$WORK/danted.log" 2>&1 &
        D_PID=$!
        for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$D_PORT") 2>/dev/null && break; sleep 0.1; done
    fi
    b12() { record_one "$1" "$2" client "$MOCK_PORT" -n "$N_B12" --connections 1 --payload-bytes 256 "${@:3}"; }
    for i in $(seq 0 "$RUNS"); do
        kind=$([ "$i" = 0 ] && echo warmup || echo run)
        b12 B12.direct "$kind"
        b12 B12.tinyproxy "$kind" --proxy "http://127.0.0.1:$TP_PORT"
        if [ -n "$D_PID" ]; then
            b12 B12.danted "$kind" --proxy "socks5://127.0.0.1:$D_PORT"
            # Dante sets TCP_NODELAY on the sockets it relays: nodelay=1 tells the client it may skip the record groups.
            b12 B12.danted-nodelay "$kind" --proxy "socks5://127.0.0.1:$D_PORT?nodelay=1"
        fi
    done
    say "   B12 done ($(( $(date +%s) - START )) s)"
    kill -9 "$TP_PID" 2>/dev/null
    [ -n "$D_PID" ] && kill -9 -- "-$D_PID" 2>/dev/null
else
    printf 'B12.tinyproxy\tskip\t{"skipped":"tinyproxy not installed (make deps)"}\n' >> "$RAW"
    say "   B12 skipped: tinyproxy not installed"
fi
fi  # BENCH_ONLY empty
if [ -z "$ONLY" ] || [ "$ONLY" = main ]; then stop_mock mock-accept; fi
if [ -z "$ONLY" ]; then

say "== B1 (same server) / B5 against nghttpd"
mkdir -p "$WORK/htdocs/3/device" && : > "$WORK/htdocs/3/device/$TOKEN"   # POST to a file answers 200, empty
NGHTTPD_PORT=$(free_port)
nghttpd -a 127.0.0.1 -d "$WORK/htdocs" "$NGHTTPD_PORT" "$MOCK_CREDS/server-key.pem" "$MOCK_CREDS/server.pem" \
    > "$WORK/nghttpd.log" 2>&1 &
NGHTTPD_PID=$!; PIDS+=("$NGHTTPD_PID"); sleep 0.5
CREDS=$MOCK_CREDS
for i in $(seq 0 "$RUNS"); do   # B1': the same three in alternating rounds against nghttpd
    kind=$([ "$i" = 0 ] && echo warmup || echo run)
    record_one B1.h2load-nghttpd "$kind" h2 h2load-nghttpd "$NGHTTPD_PORT" "$N" "$WORK/body256"
    record_one B1.client-nghttpd "$kind" client "$NGHTTPD_PORT" -n "$N" --payload-bytes 256
    record_one B1.client-batch-nghttpd "$kind" client "$NGHTTPD_PORT" -n "$N" --payload-bytes 256 --batch 100
done
say "   B1' alternating rounds done ($(( $(date +%s) - START )) s)"
# B5: h2load against the mock's fast path and nghttpd, both up at once, in alternating rounds (a warm-up
# of each, then RUNS of each), so that both sides of the ratio see the same moments of this shared machine.
if [ -n "${B5_MOCK:-}" ]; then
    # Credentials of its own: nghttpd keeps serving the certificate of $MOCK_CREDS, which a new CA there would break.
    CREDS_DIR=$WORK/creds-b5 start_mock mock-b5 --accept-all --no-client-auth
    CREDS=$MOCK_CREDS
    for i in $(seq 0 "$RUNS"); do
        kind=$([ "$i" = 0 ] && echo warmup || echo run)
        record_one B5.h2load-mock "$kind" h2 h2load-mock "$MOCK_PORT" "$N" "$WORK/body256" "$MOCK_PID"
        record_one B5.h2load-nghttpd "$kind" h2 h2load-nghttpd "$NGHTTPD_PORT" "$N" "$WORK/body256" "$NGHTTPD_PID"
    done
    stop_mock mock-b5
    say "   B5 alternating rounds done ($(( $(date +%s) - START )) s)"
fi
# B5': the validating path the same way: our client against the mock doing its real job (rules, records)
# and against nghttpd, both up at once, in alternating rounds, with each server's CPU. The mock's credentials
# go to a directory of their own: nghttpd serves the certificate of $MOCK_CREDS.
say "== B5' (validating path): our client against the validating mock and nghttpd, alternating rounds"
CREDS_DIR=$WORK/creds-validating start_mock mock-validating
VALIDATING_CREDS=$CREDS VALIDATING_PORT=$MOCK_PORT VALIDATING_PID=$MOCK_PID
for i in $(seq 0 "$RUNS"); do
    kind=$([ "$i" = 0 ] && echo warmup || echo run)
    CREDS=$VALIDATING_CREDS
    record_one B5.client-mock-validating "$kind" with_server_cpu "$VALIDATING_PID" client "$VALIDATING_PORT" -n "$N_SMALL" --payload-bytes 256
    CREDS=$MOCK_CREDS
    record_one B5.client-nghttpd "$kind" with_server_cpu "$NGHTTPD_PID" client "$NGHTTPD_PORT" -n "$N_SMALL" --payload-bytes 256
done
stop_mock mock-validating
CREDS=$MOCK_CREDS
say "   B5' alternating rounds done ($(( $(date +%s) - START )) s)"
kill "$NGHTTPD_PID"; wait "$NGHTTPD_PID" 2>/dev/null

say "== B4 realistic APNs: 40 ms, 500 streams, 1% rejections dropping the limit to 1"
start_mock mock-b4 --latency-ms 40 --max-streams 500 --reject-percent "$B4_REJECT_PERCENT" --drop-limit-after-rejection
printf 'B4.config\t{"reject_percent":%s}\n' "$B4_REJECT_PERCENT" >> "$RAW"
record B4.client client "$MOCK_PORT" -n "$N_B4" --payload-bytes 256 --latencies
stop_mock mock-b4
fi  # BENCH_ONLY empty

if [ "$ONLY" != cluster ]; then
say "== B7 service end to end"
if [ -n "$SERVER_BIN" ] && [ -x "$SERVER_BIN" ]; then
    # POST /v1/pushes of 5,000 tokens, 4 in flight -> outbox -> APNs client -> the mock in its own process (B1's
    # --accept-all path, answering as production APNs does), so push-server's CPU is the service's alone, as B1's
    # client process is the client's alone; the mock's CPU is reported beside it. Fresh server and mock per run.
    record B7 timeout 300 python3 bench/b7_service.py --server "$SERVER_BIN" --mock "$BIN" --work "$WORK" -n "$N_B7" \
        --batch 5000 --parallel 4 --timeout 240
else
    printf 'B7\tskip\t{"skipped":"push-server not built"}\n' >> "$RAW"
    say "B7: skipped (push-server not built)"
fi

if [ "$ONLY" != b7h ]; then
say "== B7.budget one more B7 run under perf record: push-server's samples by stage (bench/stages.py)"
# The same load as B7, profiled (DWARF stacks: libsqlite3, libnghttp2 and libc keep no frame pointers) from
# the first post until /metrics counts every notification answered; each stage's share of the samples times
# that run's server CPU per notification (the mock runs apart, as in B7: its stage is none of push-server's
# samples). Without a usable perf the case is skipped, which makes the run invalid.
budget_run() {
    local data=$WORK/b7-budget.perf line
    line=$(timeout 300 python3 bench/b7_service.py --server "$SERVER_BIN" --mock "$BIN" --work "$WORK" -n "$N_B7" --batch 5000 \
        --parallel 4 --timeout 240 --complete-by metrics \
        --perf-record "perf record -q -F 999 --call-graph dwarf,16384 -o $data" | tail -n 1)
    [ -n "$line" ] && python3 bench/stages.py fold "$data" > "$WORK/b7-budget.folded" &&
        python3 bench/stages.py budget "$WORK/b7-budget.folded" "$line"
    rm -f "$data"
}
if [ -z "$SERVER_BIN" ] || [ ! -x "$SERVER_BIN" ]; then
    printf 'B7.budget\tskip\t{"skipped":"push-server not built"}\n' >> "$RAW"
elif ! command -v perf > /dev/null; then
    printf 'B7.budget\tskip\t{"skipped":"perf not installed (linux-perf)"}\n' >> "$RAW"
    say "   B7.budget skipped: perf not installed"
elif ! perf record -q -g -o "$WORK/probe.perf" -- true > /dev/null 2> "$WORK/perf-probe.err"; then
    printf 'B7.budget\tskip\t%s\n' "$(python3 -c 'import json, sys; print(json.dumps({"skipped": "perf record not permitted: " + sys.argv[1]}))' \
        "$(tail -n 1 "$WORK/perf-probe.err")")" >> "$RAW"
    say "   B7.budget skipped: perf record not permitted"
else
    record_one B7.budget run budget_run
    say "   B7.budget done ($(( $(date +%s) - START )) s)"
fi
fi  # BENCH_ONLY not b7h

if [ "$ONLY" != main ]; then
say "== B7H latency at half of B7's rate, open loop (posts of 100 tokens on a schedule): mock at 40 ms, and at once"
if [ -n "$SERVER_BIN" ] && [ -x "$SERVER_BIN" ] && HALF_B7=$(python3 bench/service_metrics.py half-rate "$RAW" B7); then
    # Posts of 100 tokens, not B7's 5,000: a post of 5,000 puts them in the queue at once, and the latency of its
    # last would be that of draining the post. The mock runs in its own process on B7's path (--accept-all), so
    # the rate it carries is the one B7's rate was measured on; its --latency-ms holds there too (the answers due
    # within a millisecond go out on one timer wake-up), at 40 ms and at once alike.
    # The service sized for a 40 ms round trip at that rate (Little's law: rate × round trip in flight, about
    # 2,000 at 50,000/s): four connections of 1,000 streams and 4,000 notifications in flight, not one connection
    # and 1,000 (25,000/s at most over 40 ms). Both latencies run with the same settings.
    B7H_CONFIG='{"apns": {"connections": 4}, "outbox": {"max_in_flight": 4000}}'
    for latency in 40 0; do
        record "B7H.${latency}ms" timeout 300 python3 bench/b7_service.py --server "$SERVER_BIN" --mock "$BIN" \
            --mock-path fast --work "$WORK" \
            -n "$N_B7" --batch 100 --parallel 8 --timeout 240 --rate "$HALF_B7" --mock-latency-ms "$latency" \
            --service-config "$B7H_CONFIG"
    done
else
    for latency in 40 0; do
        printf 'B7H.%sms\tskip\t{"skipped":"B7 measured no rate (or push-server not built)"}\n' "$latency" >> "$RAW"
    done
    say "   B7H skipped: B7 measured no rate"
fi

if [ "$ONLY" != b7h ]; then
say "== B7.inflight-100 B7 with outbox.max_in_flight 100 (the bound make chaos-kills runs at)"
# What that bound costs in rate where APNs answers at once: a killed instance leaves at most max_in_flight
# duplicates (docs/CHAOS.md), and the rate it keeps is about max_in_flight / (round trip + commit).
if [ -n "$SERVER_BIN" ] && [ -x "$SERVER_BIN" ]; then
    record B7.inflight-100 timeout 300 python3 bench/b7_service.py --server "$SERVER_BIN" --mock "$BIN" --work "$WORK" \
        -n "$N_B7" --batch 5000 --parallel 4 --timeout 240 --service-config '{"outbox": {"max_in_flight": 100}}'
else
    printf 'B7.inflight-100\tskip\t{"skipped":"push-server not built"}\n' >> "$RAW"
fi

say "== B7L the service over a long run: 100,000 vs 1,000,000 at a steady load, final rows purged after 1 s"
if [ -n "$SERVER_BIN" ] && [ -x "$SERVER_BIN" ]; then
    # Paced: the next POST goes out while fewer than 20,000 notifications are posted but unanswered, so the
    # service runs at the rate it sustains; retention deletes final rows 1 s old every second. The mock runs in its
    # own process as in B7, so peak RSS is push-server's alone (the embedded mock's memory was in it).
    # BENCH_B7L_RUNS measured runs of each size (default 1).
    saved_runs=$RUNS; RUNS=${BENCH_B7L_RUNS:-1}
    for n in 100000 1000000; do
        record "B7L.$n" timeout 1200 python3 bench/b7_service.py --server "$SERVER_BIN" --mock "$BIN" --work "$WORK" -n "$n" \
            --batch 5000 --parallel 4 --timeout 1100 --retention-s 1 --complete-by metrics --poll-interval 0.5 \
            --max-outstanding 20000
    done
    RUNS=$saved_runs
fi
fi  # BENCH_ONLY not b7h
fi  # BENCH_ONLY not main

fi  # BENCH_ONLY not cluster

if [ -z "$ONLY" ] || [ "$ONLY" = cluster ]; then
say "== B8 store, B9 profile drops"
record B8.store timeout 120 "$BIN" store -n "$N_STORE"
# The same cycle with each batch one push stored once, as the API makes it (figures beside B8's).
record B8.push timeout 120 "$BIN" store -n "$N_STORE" --shape push
for store in memory sqlite; do   # every store kind push-server can run on
    record "B9.drops-$store" timeout 120 "$BIN" drops --reporters 1000 --rounds 5 --store "$store"
done
# B10, B11 and B9 across instances on a throwaway PostgreSQL cluster.
source bench/cluster.sh
fi

ELAPSED=$(( $(date +%s) - START ))
python3 bench/summarize.py "$RAW" bench/results.json bench/summary.md \
    "n=$N runs=$RUNS elapsed=${ELAPSED}s quick=${BENCH_QUICK:-0}${ONLY:+ only=$ONLY}" "$ONLY"
status=$?
python3 bench/readme_table.py bench/summary.md bench/README.md >&2 || status=1   # the results section of bench/README.md
python3 bench/regressions.py bench/results.json >&2   # warnings only: ratios > 15% worse than the committed run
say "== charts"
bench/venv/bin/python bench/charts.py bench/results.json bench || { say "charts failed"; status=1; }
[ -s "$WORK/errors.log" ] && { say "== stderr of failed runs (last lines)"; tail -n 5 "$WORK/errors.log" >&2; }
say "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
[ $status -ne 0 ] && say "== INVALID: some requests failed or some cases did not run (see the rows marked INVALID and bench/summary.md); goals are not judged on them"
exit $status
