"""B11 end to end on several instances: POST /v1/pushes -> outbox -> APNs client -> embedded mock.

Starts --instances `push-server --embedded` processes (each with its own embedded mock APNs and data dir) on
one store: the PostgreSQL database --database URL, or with no URL one instance on a SQLite file (the B7
setup). Sends N notifications in POST /v1/pushes requests of --batch tokens, --parallel in flight, spread
round robin over the instances (as a load balancer would), polls the instances' /metrics until every
notification is answered, reads GET /v1/pushes/{id} of each push, and prints one JSON line: rate
(notifications/s, first POST sent -> last notification terminal, by the rows' updated_at) and the instances'
CPU per notification.
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

import embedded_mock
import service_metrics

p = argparse.ArgumentParser()
p.add_argument("--server", required=True)
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
servers = []
for number in range(a.instances):
    data_dir = os.path.join(root, f"instance-{number + 1}")
    os.makedirs(data_dir)
    # The key goes in a file: push-server takes no secret as an option value.
    key_path = os.path.join(data_dir, "bench-api-key")
    with open(key_path, "w") as f:
        f.write(KEY + "\n")
    args = [a.server, "--embedded", "--data-dir", data_dir, "--port", "0", "--api-key-file", key_path, "--log-level", "warning"]
    if a.database:
        args += ["--database", a.database, "--instance-id", f"b11-{number + 1}"]
    out = os.path.join(data_dir, "server.out")
    servers.append((subprocess.Popen(args, stdout=open(out, "w"), stderr=open(out + ".err", "w")), out))


def stop():
    for server, _ in servers:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
    for server, _ in servers:
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


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
    # Each instance's embedded mock answers as production APNs does (no apns-unique-id, no outcome row each).
    url = embedded_mock.control_url(open(out).read())
    status, knobs = embedded_mock.patch_knobs(url, embedded_mock.PRODUCTION_ANSWERS) if url else (None, {})
    if status != 200 or knobs.get("unique_ids") is not False:
        fail(f"the embedded mock's unique_ids knob was not set: {status} {knobs}")

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


cpu0 = sum(cpu_seconds(s.pid) for s, _ in servers)
t0 = time.time()
try:
    with concurrent.futures.ThreadPoolExecutor(a.parallel) as pool:
        push_ids = list(pool.map(post, enumerate(bodies)))
except Exception as error:
    fail(f"{type(error).__name__}: {error}")


def answered_count():
    """Notifications the instances' /metrics count as answered (accepted, rejected or failed), summed."""
    return sum(service_metrics.answered(request(port, "GET", "/metrics")[1].decode()) for port in ports)


# Wait on /metrics until every notification is answered, then read each push's rows (as bench/b7_service.py
# does): polling a 5,000-row push every 50 ms would load the instance that answers it, and the database,
# with the benchmark's own reads.
deadline = t0 + a.timeout
while answered_count() < a.n and time.time() < deadline:
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
if n != a.n:
    result["first_error"] = f"not all accepted: {states}"
print(json.dumps(result))
