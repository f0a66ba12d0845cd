#!/usr/bin/env bash
# make bench-profile: perf profile of B1 (our client, one connection, 1,000 callers of send, against the
# mock's --accept-all fast path), client process only; with PROFILE_CASE=B7, of push-server during a B7 run
# (bench/b7_service.py: POST /v1/pushes of 5,000 tokens, 4 in flight, the mock in its own process as in B7; perf
# attached to the push-server process from the first post until every notification is answered, so the mock is
# not in the profile). Writes bench/profile-<case>.txt (the share of each shared object, then the top
# symbols by shared object and function, self time; for B7 also the samples by stage, bench/stages.py) and
# bench/profile-<case>.svg (a flame graph: perf's own stackcollapse script folds the stacks, `swift demangle`
# names the Swift frames, and inferno, through the pinned PyPI package pyinferno in bench/venv, draws the SVG).
# Stacks are unwound from DWARF (libnghttp2, libsqlite3 and libevent keep no frame pointers), sampled at 499 Hz.
# Knobs: PROFILE_CASE (B1, the default, or B7), PROFILE_N (notifications, 200000 for B1, 100000 for B7),
# PROFILE_ARGS (extra client flags for B1, e.g. "--batch 100").
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CASE=${PROFILE_CASE:-B1}
PYINFERNO_VERSION=0.2.6
command -v perf > /dev/null || { echo "perf not installed" >&2; exit 1; }
WORK=$(mktemp -d /tmp/push-profile.XXXXXX)
MOCK_PID=
trap '[ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2> /dev/null; rm -rf "$WORK"' EXIT
case "$CASE" in
B1)
N=${PROFILE_N:-200000}
swift build -c release --product push-bench >&2
BIN="$(swift build -c release --show-bin-path)/push-bench"
"$BIN" mock --port 0 --write-credentials "$WORK/creds" --ignore-stdin --accept-all > "$WORK/mock.out" 2> "$WORK/mock.err" &
MOCK_PID=$!
for _ in $(seq 100); do grep -q listening "$WORK/mock.out" && break; sleep 0.1; done
PORT=$(awk '/listening/{print $2}' "$WORK/mock.out")
# shellcheck disable=SC2086
perf record -q -F 499 --call-graph dwarf,16384 -o "$WORK/perf.data" "$BIN" client --port "$PORT" --ca "$WORK/creds/ca.pem" \
    --cert "$WORK/creds/client.pem" --key "$WORK/creds/client-key.pem" -n "$N" -m 1000 --payload-bytes 256 \
    ${PROFILE_ARGS:-} > "$WORK/client.json"
TITLE="B1 profile: push-bench client, n=$N, 1 connection, m=1000 ${PROFILE_ARGS:-}, mock --accept-all"
;;
B7)
N=${PROFILE_N:-100000}
swift build -c release --product push-server >&2
swift build -c release --product push-bench >&2
SERVER="$(swift build -c release --show-bin-path)/push-server"
python3 bench/b7_service.py --server "$SERVER" --mock "$(dirname "$SERVER")/push-bench" --work "$WORK" -n "$N" \
    --batch 5000 --parallel 4 --timeout 240 \
    --complete-by metrics --perf-record "perf record -q -F 499 --call-graph dwarf,16384 -o $WORK/perf.data" \
    > "$WORK/client.json" || { echo "the B7 run failed: $(tail -n 1 "$WORK/client.json")" >&2; exit 1; }
TITLE="B7 profile: push-server (the mock APNs in its own process, not profiled), n=$N, POST /v1/pushes of 5,000 tokens, 4 in flight"
;;
*) echo "PROFILE_CASE must be B1 or B7, not $CASE" >&2; exit 2 ;;
esac
# The reports go to files and are cut with awk: a reader that stops early (head) ends its writer with
# SIGPIPE, which pipefail turns into a failure.
perf report -i "$WORK/perf.data" --no-children --sort dso -g none --stdio > "$WORK/by-dso.txt" 2> /dev/null
perf report -i "$WORK/perf.data" --no-children --sort dso,symbol -g none --stdio > "$WORK/by-symbol.txt" 2> /dev/null
# perf's stackcollapse script reads ./perf.data: fold there, then name the Swift frames.
(cd "$WORK" && perf script report stackcollapse 2> /dev/null) | swift demangle --simplified > "$WORK/folded.txt"
{
    echo "# $TITLE"
    echo "# $(tail -n 1 "$WORK/client.json")"
    echo "# load average before the end: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "## share by shared object (self)"
    awk '/%/ && ++n <= 20' "$WORK/by-dso.txt" | sed "s/ *$//"
    echo
    echo "## top symbols by shared object and function (self)"
    awk '/%/ && ++n <= 60' "$WORK/by-symbol.txt" | cut -c1-200 | sed "s/ *$//"
    if [ "$CASE" = B7 ]; then
        echo
        echo "## samples by stage (bench/stages.py: the innermost recognized frame of each stack), µs of server CPU per notification"
        python3 bench/stages.py table "$WORK/folded.txt" \
            "$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["cpu_us_per_notification"])' "$(tail -n 1 "$WORK/client.json")")"
    fi
} > "bench/profile-$CASE.txt"
echo "wrote bench/profile-$CASE.txt" >&2

if [ ! -x bench/venv/bin/python ] || ! bench/venv/bin/python -c "import pyinferno" 2> /dev/null; then
    echo "installing pyinferno $PYINFERNO_VERSION (flame graphs) into bench/venv" >&2
    [ -x bench/venv/bin/python ] || python3 -m venv bench/venv >&2
    bench/venv/bin/pip install -q "pyinferno==$PYINFERNO_VERSION" >&2
fi
bench/venv/bin/python - "$WORK/folded.txt" "$ROOT/bench/profile-$CASE.svg" "$TITLE" << 'PY'
import sys
import pyinferno
lines = [line.rstrip("\n") for line in open(sys.argv[1]) if line.strip()]
open(sys.argv[2], "w").write(pyinferno.flamegraph_from_lines(lines, sys.argv[3]))
PY
echo "wrote bench/profile-$CASE.svg" >&2
