"""B11 end to end on several instances: POST /v1/pushes -> outbox -> APNs client -> mock APNs.

Starts one mock APNs in its own process (`push-bench mock`, bench/own_mock.py, as B7 runs it: the fast path,
answering as production APNs does) and --instances `push-server` processes (each with its own data dir, all
sending to that one mock) on one store: the PostgreSQL database --database URL, or with no URL one instance on
a SQLite file (the B7 setup). One mock for any number of instances keeps the runs side by side: the mock's work
per notification is the same whatever the instances, and it is measured apart from theirs (a mock embedded in
each instance served each one's share alone, in smaller batches, and counted in the instances' CPU).

Sends N notifications in POST /v1/pushes requests of --batch tokens, --parallel in flight, spread round robin
over the instances (as a load balancer would), polls the instances' /metrics until every notification is
answered (one instance every 50 ms, in turn: the same polling load whatever the instances), reads GET
/v1/pushes/{id} of each push, and prints one JSON line: rate (notifications/s, first POST sent -> last
notification terminal, by the rows' updated_at) and the instances' CPU per notification, beside the CPU per
notification of every other process the run loads (`cpu_split_us`): the mock's, PostgreSQL's (its postmaster
and every process it started, those that ended in the run too), this load generator's, and the whole
machine's busy time (/proc/stat, which counts whatever else runs too). On two cores the run's rate is bound
by the sum, not by the instances' part alone.
"""
import argparse
import concurrent.futures
import datetime
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import own_mock
import service_metrics

p = argparse.ArgumentParser()
p.add_argument("--server", required=True)
p.add_argument("--mock", required=True, help="path of the release push-bench (its `mock` command is the mock APNs)")
p.add_argument("--work", required=True)
p.add_argument("--database", help="postgres:// URL of an empty database; none: SQLite, one instance")
p.add_argument("--instances", type=int, default=1)
p.add_argument("-n", type=int, default=50000)
p.add_argument("--batch", type=int, default=5000)
p.add_argument("--parallel", type=int, default=4)
p.add_argument("--timeout", type=float, default=240)
a = p.parse_args()
if not a.database:
    a.instances = 1

KEY = "K"
HEADERS = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
root = os.path.join(a.work, f"b11-{os.getpid()}-{time.time_ns()}")
os.makedirs(root)
mock = own_mock.OwnMock(a.mock, root)
if mock.port is None:
    mock.stop()
    print(json.dumps({"error": "the mock did not print 'listening': " + mock.error_text()}))
    sys.exit(1)
servers = []
for number in range(a.instances):
    data_dir = os.path.join(root, f"instance-{number + 1}")
    os.makedirs(data_dir)
    # The key goes in a file: push-server takes no secret as an option value.
    key_path = os.path.join(data_dir, "bench-api-key")
    with open(key_path, "w") as f:
        f.write(KEY + "\n")
    config_path = os.path.join(data_dir, "config.json")
    with open(config_path, "w") as f:
        json.dump({"apps": [own_mock.app_config(mock.port, mock.credentials)]}, f)
    args = [a.server, "--data-dir", data_dir, "--port", "0", "--api-key-file", key_path, "--log-level", "warning",
            "--config", config_path]
    if a.database:
        args += ["--database", a.database, "--instance-id", f"b11-{number + 1}"]
    out = os.path.join(data_dir, "server.out")
    servers.append((subprocess.Popen(args, stdout=open(out, "w"), stderr=open(out + ".err", "w")), out))


mock_report = None


def stop():
    """Stops the instances, then the mock (keeping its report: its counters)."""
    global mock_report
    for server, _ in servers:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
    for server, _ in servers:
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    if mock_report is None:
        mock_report = mock.stop() or {}


def fail(message):
    print(json.dumps({"error": message}))
    stop()
    sys.exit(1)


signal.signal(signal.SIGTERM, lambda signum, frame: (stop(), sys.exit(128 + signum)))
ports = []
for server, out in servers:
    port = None
    for _ in range(600):   # the instance prints its port once it listens: read its output until then
        for line in open(out).read().splitlines():
            if line.startswith("listening on "):
                port = int(line.rsplit(":", 1)[1])
        if port or server.poll() is not None:
            break
        time.sleep(0.05)
    if not port:
        fail("push-server did not print 'listening on': " + open(out + ".err").read()[-300:])
    ports.append(port)

local = threading.local()


def request(port, method, path, body=None):
    conns = getattr(local, "conns", None)
    if conns is None:
        conns = local.conns = {}
    for attempt in range(2):
        try:
            c = conns.get(port) or conns.setdefault(port, http.client.HTTPConnection("127.0.0.1", port, timeout=a.timeout))
            c.request(method, path, body=body, headers=HEADERS)
            r = c.getresponse()
            return r.status, r.read()
        except (http.client.HTTPException, ConnectionError):
            conns.pop(port, None)
            if attempt:
                raise


bodies = []
for start in range(0, a.n, a.batch):
    tokens = [f"{i:064x}" for i in range(start, min(start + a.batch, a.n))]
    bodies.append(json.dumps({"tokens": tokens, "environment": "development", "alert": {"title": "t", "body": "b"}}).encode())


def post(item):
    index, body = item
    status, data = request(ports[index % len(ports)], "POST", "/v1/pushes", body)
    if status != 202:
        raise RuntimeError(f"POST /v1/pushes answered {status}: {data[:200]!r}")
    return json.loads(data)["push_id"]


cpu_seconds = service_metrics.cpu_seconds


def postmaster_pid():
    """The pid of the PostgreSQL server holding --database (the first line of its data directory's
    postmaster.pid), or None."""
    try:
        data = subprocess.run(["psql", "-X", "-At", a.database, "-c", "SHOW data_directory"],
                              capture_output=True, text=True, timeout=30, check=True).stdout.strip()
        with open(os.path.join(data, "postmaster.pid")) as f:
            return int(f.readline())
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def postgres_cpu(postmaster):
    """The postmaster's own CPU and its ended children's (which it waited for), and each live child's CPU,
    by pid, in seconds."""
    ticks = os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{postmaster}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    own = sum(int(x) for x in fields[11:15]) / ticks
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == postmaster:
            children[int(entry)] = (int(fields[11]) + int(fields[12])) / ticks
    return own, children


def postgres_cpu_between(before, after):
    """PostgreSQL's CPU seconds between two `postgres_cpu` readings: the postmaster's and ended children's
    growth, plus each live child's growth (from 0 for a child started in between), less what children that
    ended in between had used before the first reading (the postmaster's count of them includes it)."""
    (own0, children0), (own1, children1) = before, after
    ended_before = sum(cpu for pid, cpu in children0.items() if pid not in children1)
    return own1 - own0 - ended_before + sum(cpu - children0.get(pid, 0.0) for pid, cpu in children1.items())


def machine_busy():
    """Busy CPU seconds of the whole machine so far, every core (/proc/stat: all but idle and iowait)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


postmaster = postmaster_pid() if a.database else None


cpu0, mock_cpu0 = sum(cpu_seconds(s.pid) for s, _ in servers), cpu_seconds(mock.pid)
pg0 = postgres_cpu(postmaster) if postmaster else None
own0, busy0 = sum(os.times()[:2]), machine_busy()
t0 = time.time()
try:
    with concurrent.futures.ThreadPoolExecutor(a.parallel) as pool:
        push_ids = list(pool.map(post, enumerate(bodies)))
except Exception as error:
    fail(f"{type(error).__name__}: {error}")


answered = [0] * len(ports)


def answered_count(turn):
    """Notifications the instances' /metrics count as answered (accepted, rejected or failed), summed: instance
    `turn` (modulo their number) read now, the others as last read."""
    index = turn % len(ports)
    answered[index] = service_metrics.answered(request(ports[index], "GET", "/metrics")[1].decode())
    return sum(answered)


# Wait on /metrics until every notification is answered, then read each push's rows (as bench/b7_service.py
# does): polling a 5,000-row push every 50 ms would load the instance that answers it, and the database,
# with the benchmark's own reads. One instance is read at each turn: a page every 50 ms in all, as for one
# instance (each page reads the store's gauges, from the database).
deadline = t0 + a.timeout
turn = 0
while answered_count(turn) < a.n and time.time() < deadline:
    turn += 1
    time.sleep(0.05)   # polling /metrics: the API publishes no completion event
pending, docs = list(push_ids), []
while pending and time.time() < deadline:
    status, data = request(ports[0], "GET", f"/v1/pushes/{pending[0]}")
    if status != 200:
        fail(f"GET /v1/pushes answered {status}: {data[:200]!r}")
    doc = json.loads(data)
    if doc.get("complete"):
        docs.append(doc)
        pending.pop(0)
    else:
        time.sleep(0.05)   # polling the API: it publishes no completion event
t_polled = time.time()
cpu = sum(cpu_seconds(s.pid) for s, _ in servers) - cpu0
mock_cpu = cpu_seconds(mock.pid) - mock_cpu0
pg_cpu = postgres_cpu_between(pg0, postgres_cpu(postmaster)) if postmaster else 0.0
own_cpu, busy = sum(os.times()[:2]) - own0, machine_busy() - busy0
stop()
shutil.rmtree(root, ignore_errors=True)
if pending:
    print(json.dumps({"error": f"timeout: {len(pending)} pushes not complete after {a.timeout:.0f} s"}))
    sys.exit(1)
states, last = {}, 0.0
for doc in docs:
    for row in doc["notifications"]:
        states[row["state"]] = states.get(row["state"], 0) + 1
        last = max(last, datetime.datetime.fromisoformat(row["updated_at"].replace("Z", "+00:00")).timestamp())
# Only notifications APNs accepted count as delivered; the others are reported apart and fail the run.
n = states.get("accepted", 0)
elapsed = last - t0
result = {"n": n, "rate": n / elapsed if elapsed > 0 else None, "elapsed_s": round(elapsed, 3),
          "rejected": states.get("rejected", 0), "failed": states.get("failed", 0), "expired": states.get("expired", 0),
          "rate_polled": n / (t_polled - t0), "instances": a.instances, "store": "postgres" if a.database else "sqlite",
          "cpu_us_per_notification": cpu * 1e6 / n if n else None, "states": states, "batch": a.batch, "parallel": a.parallel}
if n:
    split = {"instances": cpu, "mock": mock_cpu, "postgres": pg_cpu, "load_generator": own_cpu, "machine_busy": busy}
    result["cpu_split_us"] = {k: round(v * 1e6 / n, 2) for k, v in split.items()}
    result["mock_cpu_us_per_notification"] = result["cpu_split_us"]["mock"]
    if a.database:
        result["postgres_cpu_us_per_notification"] = result["cpu_split_us"]["postgres"]
if n != a.n:
    result["first_error"] = f"not all accepted: {states}"
elif (mock_report or {}).get("accepted") != n:
    result["first_error"] = f"the mock accepted {(mock_report or {}).get('accepted')} notifications, the service counts {n}"
elif own_mock.report_error(mock_report):
    result["first_error"] = own_mock.report_error(mock_report)
print(json.dumps(result))
