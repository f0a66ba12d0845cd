#!/usr/bin/env python3
"""B7 service end to end: POST /v1/pushes batches -> outbox -> APNs client -> mock APNs in its own process.

Starts the mock (`push-bench mock`, bench/own_mock.py) and `push-server` on a fresh data dir, pointed at the mock
by an app's host, port and CA (not `--embedded`: push-server's process holds the service alone, as B1's holds
the client alone), sends N notifications in POST /v1/pushes requests of
--batch tokens (--parallel requests in flight), polls /metrics until every notification is answered, reads
GET /v1/pushes/{id} of each push (again until complete, should a row lag its count), then prints one JSON
line: rate (notifications/s, first POST sent -> last notification terminal), p50/p99 latency (API accept -> APNs answer), peak RSS (VmHWM) and CPU of push-server, the mock's CPU over the same time beside it (not in push-server's), and a timeline for
bench/charts.py: notifications accepted by the API and answered by APNs per --bin seconds, and push-server's
RSS and CPU sampled every --bin seconds over the run.

Latency basis: the API returns no per-notification creation time, so a notification's API accept time is the
moment its POST's 202 answer arrived; its APNs accept time is the `updated_at` of its terminal row.

--rate paces the posts (open loop, B7H): post k goes out at k * batch / rate seconds after the start, whatever
the answers to the earlier ones; a run whose posts went out at under nine tenths of the rate is an error.
--mock-path fast is the mock's `--accept-all` path (B1's); rules its validating path; on either, the mock answers
--mock-latency-ms late (its `--latency-ms`). The mock answers as production APNs does (`--no-unique-ids`) unless
--sandbox-answers; a run is an error when the mock's report says it ran otherwise (answers, path or latency), when
a row of the pushes carries an apns_unique_id, or when the mock counts fewer accepted notifications than the service. --perf-record runs `perf record` attached to push-server from the start until every notification is
answered (the budget case and `PROFILE_CASE=B7 make bench-profile`).
"""
import argparse
import concurrent.futures
import datetime
import http.client
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time

import own_mock
import service_metrics

p = argparse.ArgumentParser()
p.add_argument("--server", required=True, help="path of the release push-server")
p.add_argument("--mock", required=True, help="path of the release push-bench (its `mock` command is the mock APNs)")
p.add_argument("--mock-path", choices=own_mock.PATHS, default="fast",
               help="fast: the mock's --accept-all path (no validation, rules or records: B1's mock); "
                    "rules: its validating path")
p.add_argument("--work", required=True, help="scratch directory (a fresh data dir is made below it)")
p.add_argument("-n", type=int, default=100000)
p.add_argument("--batch", type=int, default=5000)
p.add_argument("--parallel", type=int, default=4)
p.add_argument("--timeout", type=float, default=240)
p.add_argument("--poll-interval", type=float, default=0.05)
p.add_argument("--bin", type=float, default=0.05, help="timeline resolution in seconds")
p.add_argument("--retention-s", type=float, default=None,
               help="purge final outbox rows this many seconds old, every second (the long-run case)")
p.add_argument("--complete-by", choices=["rows", "metrics"], default="rows",
               help="rows: wait until /metrics counts every notification answered, then read each push's rows "
                    "(latencies, timeline); metrics: only the wait (rows may be purged meanwhile: no latencies)")
p.add_argument("--max-outstanding", type=int, default=None,
               help="with --complete-by metrics: post the next batch only while fewer notifications than this are "
                    "posted but unanswered (a steady load the service keeps up with, instead of one burst)")
p.add_argument("--rate", type=float, default=None,
               help="open loop: post a batch every batch/rate seconds, whatever the earlier posts' answers (B7H)")
p.add_argument("--mock-latency-ms", type=float, default=None,
               help="the mock answers every request this late (its --latency-ms, on either path)")
p.add_argument("--sandbox-answers", action="store_true",
               help="keep the mock's sandbox answers (an apns-unique-id on each accepted notification); "
                    "by default it answers as production APNs does")
p.add_argument("--service-config", default=None,
               help='sections of the service\'s configuration as JSON, e.g. \'{"outbox": {"max_in_flight": 4000}}\'')
p.add_argument("--perf-record", default=None,
               help="a `perf record ...` command (without -p): attached to push-server from the start until every "
                    "notification is answered, then stopped with SIGINT")
a = p.parse_args()
if a.rate is not None and a.max_outstanding:
    p.error("--rate and --max-outstanding pace the posts in two ways: give one")

KEY = "K"
HEADERS = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
data_dir = os.path.join(a.work, f"b7-{os.getpid()}-{time.time_ns()}")
os.makedirs(data_dir)
out_path = os.path.join(data_dir, "server.out")
err_path = os.path.join(data_dir, "server.err")
# The key goes in a file: push-server takes no secret as an option value.
key_path = os.path.join(data_dir, "bench-api-key")
with open(key_path, "w") as f:
    f.write(KEY + "\n")
mock = own_mock.OwnMock(a.mock, data_dir, a.mock_path, a.mock_latency_ms, production_answers=not a.sandbox_answers)
if mock.port is None:
    mock.stop()
    print(json.dumps({"error": "the mock did not print 'listening': " + mock.error_text()}))
    sys.exit(1)
command = [a.server, "--data-dir", data_dir, "--port", "0", "--api-key-file", key_path, "--log-level", "warning"]
# The one app, sending to the mock; the service's other settings (--service-config) come beside it.
config = {"apps": [own_mock.app_config(mock.port, mock.credentials)]}
if a.retention_s is not None:
    config["retention"] = {"final_outbox_s": a.retention_s, "interval_s": 1, "batch_size": 5000}
if a.service_config is not None:
    config.update(json.loads(a.service_config))
config_path = os.path.join(data_dir, "config.json")
with open(config_path, "w") as f:
    json.dump(config, f)
command += ["--config", config_path]
server = subprocess.Popen(command, stdout=open(out_path, "w"), stderr=open(err_path, "w"))
DB_PATH = os.path.join(data_dir, "push.sqlite")


def db_mb():
    """The database's size on disk: the file and its write-ahead log."""
    return sum(os.path.getsize(DB_PATH + suffix) for suffix in ("", "-wal") if os.path.exists(DB_PATH + suffix)) / 2**20


def fail(message):
    print(json.dumps({"error": message}))
    stop()
    sys.exit(1)


mock_report = None


def stop():
    """Stops push-server, then the mock (keeping the mock's report: its counters)."""
    global mock_report
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    if mock_report is None:
        mock_report = mock.stop() or {}


def on_signal(signum, frame):
    stop()
    sys.exit(128 + signum)


signal.signal(signal.SIGTERM, on_signal)
signal.signal(signal.SIGINT, on_signal)
port = None
for _ in range(300):
    text = open(out_path).read()
    for line in text.splitlines():
        if line.startswith("listening on "):
            port = int(line.rsplit(":", 1)[1])
    if port or server.poll() is not None:
        break
    time.sleep(0.05)
if not port:
    fail("push-server did not print 'listening on': " + open(err_path).read()[-300:])


local = threading.local()


def conn():
    c = getattr(local, "conn", None)
    if c is None:
        c = local.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=a.timeout)
    return c


def request(method, path, body=None):
    for attempt in range(2):
        try:
            c = conn()
            c.request(method, path, body=body, headers=HEADERS)
            r = c.getresponse()
            return r.status, r.read()
        except (http.client.HTTPException, ConnectionError):
            local.conn = None
            if attempt:
                raise


# Unique 32-byte tokens (the API de-duplicates tokens within a push); built before the clock starts.
bodies = []
for start in range(0, a.n, a.batch):
    tokens = [f"{i:064x}" for i in range(start, min(start + a.batch, a.n))]
    bodies.append(json.dumps({"tokens": tokens, "environment": "development",
                              "alert": {"title": "t", "body": "b"}}).encode())


sent_at = []   # (scheduled, actual) send time of each paced post


def post(body, scheduled=None):
    if scheduled is not None:
        sent_at.append((scheduled, time.time()))
    status, data = request("POST", "/v1/pushes", body)
    accepted_at = time.time()
    if status != 202:
        raise RuntimeError(f"POST /v1/pushes answered {status}: {data[:200]!r}")
    return json.loads(data)["push_id"], accepted_at


cpu_seconds = service_metrics.cpu_seconds


def vm(pid, key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return None


samples, sampling = [], threading.Event()


def sample():
    """push-server's RSS (MB), CPU (s) and database size (MB, `db_mb`) every --bin seconds until the run ends:
    a sampler, not a wait."""
    while not sampling.wait(a.bin):
        try:
            samples.append((time.time(), vm(server.pid, "VmRSS"), cpu_seconds(server.pid), db_mb()))
        except OSError:
            return


perf = None
if a.perf_record:
    perf = subprocess.Popen(shlex.split(a.perf_record) + ["-p", str(server.pid)], stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(a.work, f"perf-{os.getpid()}.err"), "w"))


def stop_perf():
    """Stops perf record (SIGINT: it writes its data and exits) and waits for it; an error when it failed."""
    if perf is None or perf.poll() is not None:
        return None if perf is None or perf.returncode in (0, -signal.SIGINT) else f"perf record exited {perf.returncode}"
    perf.send_signal(signal.SIGINT)
    try:
        code = perf.wait(120)
    except subprocess.TimeoutExpired:
        perf.kill()
        return "perf record did not stop"
    return None if code in (0, -signal.SIGINT) else f"perf record exited {code}"


warm_counts = {}   # what /metrics counted for the warm-up (--rate), left out of every count after it


def outcome_counts():
    """Notifications /metrics counts per final outcome (accepted, rejected, failed, expired), the warm-up's
    left out."""
    status, data = request("GET", "/metrics")
    return {outcome: count - warm_counts.get(outcome, 0)
            for outcome, count in service_metrics.outcomes(data.decode()).items()}


def answered_count():
    """Notifications /metrics counts as finished, whatever the outcome."""
    return sum(outcome_counts().values())


def wait_until_answered(deadline, total=None):
    """Polls /metrics until it counts every notification (`total`, default -n) finished or `deadline` passes;
    returns the counts per outcome."""
    total = a.n if total is None else total
    counts = outcome_counts()
    while sum(counts.values()) < total and time.time() < deadline:
        time.sleep(a.poll_interval)
        counts = outcome_counts()
    return counts


if a.rate:
    # Open loop (B7H) measures latency under a steady load, the state of a service that has been running: one
    # post of --batch tokens (others than the measured ones) goes through first and is answered, so the APNs
    # connections are open before the schedule starts (else the schedule's first posts wait for their TLS
    # handshakes). It is not measured.
    warm_body = json.dumps({"tokens": [f"{i:064x}" for i in range(a.n, a.n + a.batch)], "environment": "development",
                            "alert": {"title": "t", "body": "b"}}).encode()
    try:
        post(warm_body)
    except Exception as error:
        fail(f"warm-up: {type(error).__name__}: {error}")
    warm = wait_until_answered(time.time() + a.timeout, a.batch)
    if warm.get("accepted", 0) != a.batch:
        fail(f"warm-up: {warm} of {a.batch} notifications answered")
    warm_counts = warm

cpu0, mock_cpu0 = cpu_seconds(server.pid), cpu_seconds(mock.pid)
t0 = time.time()
sampler = threading.Thread(target=sample, daemon=True)
sampler.start()
try:
    with concurrent.futures.ThreadPoolExecutor(a.parallel) as pool:
        if a.rate:
            # Open loop: each post at its time on the schedule, in the pool's threads, answered or not.
            futures = []
            for k, body in enumerate(bodies):
                scheduled = t0 + k * a.batch / a.rate
                time.sleep(max(0.0, scheduled - time.time()))   # pacing to a schedule, not a wait for an event
                futures.append(pool.submit(post, body, scheduled))
            accepted = [f.result() for f in futures]
        elif a.max_outstanding:
            futures, posted = [], 0
            for body in bodies:
                while posted - answered_count() > a.max_outstanding - a.batch:
                    time.sleep(0.05)   # paced load: a poll of /metrics, not a wait for an event in a test
                futures.append(pool.submit(post, body))
                posted += a.batch
            accepted = [f.result() for f in futures]
        else:
            accepted = list(pool.map(post, bodies))
except Exception as error:
    fail(f"{type(error).__name__}: {error}")
t_posted = time.time()

perf_error = None


def pacing():
    """With --rate: the rate the posts went out at (first to last post sent) and their worst lag behind the
    schedule, and an error when they fell behind it (the load generator could not keep the pace)."""
    if not a.rate or len(sent_at) < 2:
        return {}, None
    sent = sorted(t for _, t in sent_at)
    offered = (len(sent) - 1) * a.batch / (sent[-1] - sent[0]) if sent[-1] > sent[0] else None
    figures = {"target_rate": a.rate, "offered_rate": offered,
               "max_send_lag_ms": round(max(t - s for s, t in sent_at) * 1000, 1)}
    if offered is None or offered < 0.9 * a.rate:
        return figures, f"the posts fell behind their schedule: {offered or 0:,.0f}/s offered of {a.rate:,.0f}/s"
    return figures, None


mock_cpu = None


def end_of_run(before_stop=None):
    """Stops the sampler and reads push-server's CPU since the start, peak RSS and database size (and the mock's
    CPU over the same time), runs `before_stop` (its result is the last figure), then stops both."""
    sampling.set()
    sampler.join()
    global perf_error, mock_cpu
    perf_error = stop_perf()
    figures = (cpu_seconds(server.pid) - cpu0, vm(server.pid, "VmHWM"), db_mb())
    mock_cpu = cpu_seconds(mock.pid) - mock_cpu0
    later = before_stop() if before_stop else None
    stop()
    return figures + (later,)


def purged_db_mb(deadline):
    """With --retention-s: polls /metrics until the retention job counts every notification of the run (and of
    the warm-up) purged, then the database's size (MB); None when `deadline` passes first."""
    total = a.n + sum(warm_counts.values())
    while time.time() < deadline:
        status, data = request("GET", "/metrics")
        if service_metrics.purged(data.decode(), "outbox") >= total:
            return db_mb()
        time.sleep(0.1)   # a poll of /metrics, as wait_until_answered
    return None


def mock_figures(accepted):
    """The mock's figures beside push-server's (its CPU per accepted notification over the same time, what it
    counted), and the error they show, if any: a mock that ran otherwise than asked (answers, path, latency), or
    fewer notifications accepted by the mock than the service counts as accepted."""
    report = mock_report or {}
    figures = {"mock_path": a.mock_path, "mock_accepted": report.get("accepted"),
               "mock_cpu_us_per_notification": mock_cpu * 1e6 / accepted if accepted and mock_cpu is not None else None}
    error = own_mock.report_error(report, a.mock_path, a.mock_latency_ms, production_answers=not a.sandbox_answers)
    if error:
        return figures, error
    if not isinstance(report.get("accepted"), int) or report["accepted"] < accepted:
        return figures, f"the mock accepted {report.get('accepted')} notifications, the service counts {accepted}"
    return figures, None


if a.complete_by == "metrics":
    deadline = t0 + a.timeout
    counts = wait_until_answered(deadline)
    t_done = time.time()
    cpu, peak_rss, size, purged_size = end_of_run(
        (lambda: purged_db_mb(time.time() + 10 * a.retention_s + 10)) if a.retention_s else None)
    result = service_metrics.metrics_result(counts, a.n, t_done - t0, cpu)
    tenth = max(1, len(samples) // 10)
    result.update(post_s=round(t_posted - t0, 3), peak_rss_mb=peak_rss, db_mb=round(size, 1),
                  retention_s=a.retention_s, batch=a.batch, parallel=a.parallel,
                  rss_mb_by_tenth=[round(s[1] or 0, 1) for s in samples[::tenth]],
                  db_mb_peak=round(max([s[3] for s in samples] + [size]), 1),
                  db_mb_peak_by_tenth=[round(max(s[3] for s in samples[k:k + tenth]), 1)
                                       for k in range(0, len(samples), tenth)])
    if a.retention_s:
        result["db_mb_purged"] = round(purged_size, 1) if purged_size is not None else None
    paced, pace_error = pacing()
    result.update(paced)
    mocked, mock_error = mock_figures(counts.get("accepted", 0))
    result.update(mocked)
    if sum(counts.values()) < a.n:
        result["error"] = f"timeout: {sum(counts.values())} of {a.n} answered after {a.timeout:.0f} s"
    elif perf_error or pace_error or mock_error:
        result["error"] = perf_error or pace_error or mock_error
    shutil.rmtree(data_dir, ignore_errors=True)
    print(json.dumps(result))
    sys.exit(0 if "error" not in result and "first_error" not in result else 1)

# Wait on /metrics (one short page) until every notification is answered, then read each push's rows. Polling
# GET /v1/pushes/{id} meanwhile made the service encode a 5,000-row document every --poll-interval: with the
# default 50 ms, a quarter to a third of its CPU went to the benchmark's own polling.
deadline = t0 + a.timeout
wait_until_answered(deadline)
pending = {push_id: at for push_id, at in accepted}
done = {}
while pending and time.time() < deadline:
    for push_id in list(pending):   # oldest first; stop at the first incomplete one to keep polling cheap
        status, data = request("GET", f"/v1/pushes/{push_id}")
        if status != 200:
            fail(f"GET /v1/pushes/{push_id} answered {status}: {data[:200]!r}")
        doc = json.loads(data)
        if not doc.get("complete"):
            break
        done[push_id] = (pending.pop(push_id), doc)
    if pending:
        time.sleep(a.poll_interval)
t_polled = time.time()
cpu, peak_rss, size, _ = end_of_run()
if pending:
    print(json.dumps({"error": f"timeout: {len(pending)} of {len(accepted)} pushes not complete after {a.timeout:.0f} s",
                      "peak_rss_mb": peak_rss}))
    sys.exit(1)

# Only notifications APNs accepted count for the rate and the latencies; rejected or failed ones are
# reported apart (and make the run invalid: this case sends nothing the mock should refuse).
latencies, states, last_terminal, answered_at, unique_ids = [], {}, 0.0, [], 0
for accepted_at, doc in done.values():
    for row in doc["notifications"]:
        states[row["state"]] = states.get(row["state"], 0) + 1
        unique_ids += row.get("apns_unique_id") is not None
        if row["state"] != "accepted":
            continue
        t = datetime.datetime.fromisoformat(row["updated_at"].replace("Z", "+00:00")).timestamp()
        last_terminal = max(last_terminal, t)
        answered_at.append(t)
        latencies.append(max(0.0, t - accepted_at) * 1000)
latencies.sort()
n = len(latencies)


def pct(q):
    return latencies[min(n - 1, int(q * n))] if n else None


elapsed = last_terminal - t0


def per_bin(events):
    """Counts of (time, count) events per --bin seconds since t0, up to the last sample or event."""
    end = max([t for t, _ in events] + [s[0] for s in samples] + [t0])
    counts = [0] * (int((end - t0) / a.bin) + 1)
    for t, count in events:
        counts[max(0, int((t - t0) / a.bin))] += count
    return counts


timeline = {
    "bin_s": a.bin,
    "api_accepted": per_bin([(at, len(doc["notifications"])) for at, doc in done.values()]),
    "apns_answered": per_bin([(t, 1) for t in answered_at]),
    "samples": [{"t": round(t - t0, 3), "rss_mb": rss, "cpu_s": round(cpu_s - cpu0, 3)} for t, rss, cpu_s, _ in samples],
}
result = {
    "n": n, "rate": n / elapsed if elapsed > 0 else None, "elapsed_s": round(elapsed, 3),
    "post_s": round(t_posted - t0, 3), "polled_s": round(t_polled - t0, 3),
    "rate_polled": n / (t_polled - t0), "p50_ms": pct(0.50), "p99_ms": pct(0.99), "max_ms": latencies[-1] if n else None,
    "peak_rss_mb": peak_rss, "cpu_us_per_notification": cpu * 1e6 / n if n else None, "states": states,
    "accepted": states.get("accepted", 0), "rejected": states.get("rejected", 0), "failed": states.get("failed", 0),
    "expired": states.get("expired", 0),
    "db_mb": round(size, 1),
    "batch": a.batch, "parallel": a.parallel, "timeline": timeline,
    "latency_basis": "POST 202 arrival -> updated_at of terminal row (API has no per-notification creation time)",
}
paced, pace_error = pacing()
result.update(paced)
mocked, mock_error = mock_figures(states.get("accepted", 0))
result.update(mocked, rows_with_unique_id=unique_ids)
if a.mock_latency_ms is not None:
    result["mock_latency_ms"] = a.mock_latency_ms
if not a.sandbox_answers and unique_ids and not mock_error:
    # Production APNs sends no apns-unique-id: a row that keeps one got a sandbox answer.
    mock_error = f"{unique_ids} rows carry an apns_unique_id: the mock did not answer as production APNs does"
if states.get("accepted", 0) != a.n:
    result["first_error"] = f"not all accepted: {states}"
elif perf_error or pace_error or mock_error:
    result["first_error"] = perf_error or pace_error or mock_error
elif a.mock_latency_ms and (pct(0.50) or 0) < a.mock_latency_ms / 2:
    # Every answer comes at least the knob's latency after its request (less the time the 202 took to arrive, as
    # the worker may send before it does): a median under half of it means the knob did not hold.
    result["first_error"] = f"p50 {pct(0.50):.0f} ms is under half the mock's latency of {a.mock_latency_ms:g} ms"
shutil.rmtree(data_dir, ignore_errors=True)
print(json.dumps(result))
