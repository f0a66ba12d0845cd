#!/usr/bin/env python3
"""Reads bench/raw.jsonl (CASE<TAB>warmup|run|skip<TAB>JSON), writes results.json and summary.md, prints the table.

usage: summarize.py RAW RESULTS_JSON SUMMARY_MD CONDITIONS [SELECTION]
SELECTION is BENCH_ONLY's value ("" for every case, b7, cluster): every case of it (bench/bench_cases.py)
must have run; one missing or skipped makes the run invalid, is named, and the exit status is 1."""
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys

import bench_cases

raw_path, json_path, md_path, conditions = sys.argv[1:5]
selection = sys.argv[5] if len(sys.argv) > 5 else ""
try:
    expected_cases = bench_cases.expected(selection)
except KeyError:
    print(f"summarize: unknown selection {selection!r} (BENCH_ONLY must be empty, "
          f"{', '.join(s for s in bench_cases.SELECTIONS if s)})", file=sys.stderr)
    sys.exit(2)
cases, extras = {}, {}
for line in open(raw_path):
    parts = line.rstrip("\n").split("\t")
    if len(parts) == 2:          # mock counters: NAME<TAB>JSON
        try:
            extras[parts[0]] = json.loads(parts[1])
        except ValueError:
            pass
        continue
    case, kind, text = parts[:3]
    load = float(parts[3]) if len(parts) > 3 and parts[3] else None   # 1-minute load average before the run
    try:
        data = json.loads(text)
    except ValueError:
        data = {"error": text}
    if load is not None:
        data["load_before"] = load
    entry = cases.setdefault(case, {"runs": [], "warmup": None, "skipped": None})
    if kind == "run":
        entry["runs"].append(data)
    elif kind == "warmup":
        entry["warmup"] = data
    else:
        entry["skipped"] = data.get("skipped")

# Cases whose peer answers some requests with a rejection on purpose (B4: the mock's --reject-percent, which
# bench/run.sh records as B4.config). Their rejections must come at that rate: within half of it either side
# (the mock rejects every (100/P)-th request, so a run is off by a request or two at most); none, or many
# more, means the case did not measure what it claims.
REJECTIONS_EXPECTED = {"B4.client"}


def rejection_problem(case, run):
    """Why the rejections of a run of a case in REJECTIONS_EXPECTED are out of band (None when in band)."""
    percent = extras.get("B4.config", {}).get("reject_percent")
    if not isinstance(percent, (int, float)) or percent <= 0:
        return "its rejection rate is not recorded (B4.config in bench/raw.jsonl)"
    n, rejected = run.get("n"), run.get("rejected")
    if not isinstance(n, int) or n <= 0 or not isinstance(rejected, int):
        return "no count of its rejections"
    observed = rejected * 100 / n
    if math.fabs(observed - percent) > percent / 2:
        return f"{rejected} of {n} rejected ({observed:.2f}%), configured {percent:g}% ± {percent / 2:g} points"
    return None


def run_problem(case, run):
    """Why a measured run does not count (None when every request succeeded)."""
    if run.get("error") or run.get("first_error"):
        return run.get("error") or run.get("first_error")
    for key in ("errors", "warmup_errors", "failed", "errored"):
        if run.get(key):
            return f"{run[key]} {key.replace('_', ' ')}"
    if case not in REJECTIONS_EXPECTED:
        for key in ("rejected", "warmup_rejected"):
            if run.get(key):
                return f"{run[key]} {key.replace('_', ' ')}"
    elif rejection_problem(case, run):
        return rejection_problem(case, run)
    if "succeeded" in run and "n" in run and run["succeeded"] != run["n"]:
        return f"{run['succeeded']} of {run['n']} succeeded"
    if "status_2xx" in run and run.get("status_2xx") != run.get("n"):
        return f"{run.get('status_2xx')} of {run.get('n')} answered 2xx"
    if run.get("bench") == "aioapns" and run.get("accepted") != run.get("n"):
        return f"{run.get('accepted')} of {run.get('n')} accepted"
    return None


def invalid(case):
    """None when the case ran and every measured run succeeded in full, else why not: a case not run or
    skipped is invalid too."""
    entry = cases.get(case)
    if entry is None:
        return "not run"
    if entry.get("skipped"):
        return f"skipped: {entry['skipped']}"
    if not entry["runs"]:
        return "no measured run"
    problems = [p for p in (run_problem(case, r) for r in entry["runs"]) if p]
    return f"{len(problems)} of {len(entry['runs'])} runs had errors, e.g. {problems[0]}" if problems else None


def loads(*names):
    """min–max of the 1-minute load average before the measured runs of these cases."""
    values = [r["load_before"] for c in names for r in cases.get(c, {}).get("runs", []) if "load_before" in r]
    if not values:
        return ""
    return f"; load {min(values):.2f}–{max(values):.2f}"


def stat(case, key):
    values = [r[key] for r in cases.get(case, {}).get("runs", []) if isinstance(r.get(key), (int, float))]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": len(values)}


def cmd(args):
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
    except Exception:
        return "unknown"


cpu_model = "unknown"
try:
    cpu_model = re.search(r"model name\s*:\s*(.*)", open("/proc/cpuinfo").read()).group(1)
except Exception:
    pass
machine = {
    "cores": os.cpu_count(), "cpu": cpu_model, "kernel": platform.release(),
    "swift": cmd(["swift", "--version"]), "nghttp2": cmd(["pkg-config", "--modversion", "libnghttp2"]),
    "h2load": cmd(["h2load", "--version"]), "openssl": cmd(["openssl", "version"]),
    "libevent": cmd(["pkg-config", "--modversion", "libevent"]), "python": cmd(["python3", "--version"]),
    "load_average_at_end": open("/proc/loadavg").read().split()[:3],
}


def fmt(s, unit="", digits=0):
    if s is None:
        return "n/a"
    f = lambda v: f"{v:,.{digits}f}"
    return f"{f(s['median'])}{unit} ({f(s['min'])}–{f(s['max'])})"


def ratio(a, b):
    return None if a is None or b is None or b["median"] == 0 else a["median"] / b["median"]


def fr(r, digits=2):
    return "n/a" if r is None else f"{r:.{digits}f}×"


rows, results = [], {}


def row(case, figure, goal, verdict="", sources=()):
    """One table row; `sources` are the cases behind it: any invalid one makes the row invalid."""
    reasons = [f"{c}: {invalid(c)}" for c in sources if invalid(c)]
    if reasons:
        figure, verdict = f"{figure} — INVALID ({'; '.join(reasons)})", "invalid"
    rows.append((case, figure + loads(*sources), goal, verdict))


def met(value, ok):
    return "" if value is None else ("met" if ok else "not met")


ratios = []   # every ratio with a goal, for bench/charts.py


def goal(name, value, threshold, at_least=True, sources=()):
    """Records a ratio and its goal (value ≥ threshold, or ≤ when not at_least); True when the goal holds."""
    ok = value is not None and (value >= threshold if at_least else value <= threshold)
    reasons = [f"{c}: {invalid(c)}" for c in sources if invalid(c)]
    ratios.append({"name": name, "value": value, "goal": threshold, "at_least": at_least,
                   "verdict": "invalid" if reasons else ("" if value is None else ("met" if ok else "not met"))})
    return ok


def paired(case_a, case_b, key, key_b=None):
    """Median (min-max) of the ratios a/b of runs taken in alternating rounds, paired by round (`key_b`: b's
    key when it differs)."""
    key_b = key_b or key
    runs_a, runs_b = cases.get(case_a, {}).get("runs", []), cases.get(case_b, {}).get("runs", [])
    values = [x[key] / y[key_b] for x, y in zip(runs_a, runs_b)
              if isinstance(x.get(key), (int, float)) and isinstance(y.get(key_b), (int, float)) and y[key_b]]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": len(values)}


def paired_ratios(case, baseline):
    """Rate and CPU ratios of our client's `case` to h2load's `baseline`, round by round (medians)."""
    r = paired(case, baseline, "rate")
    rc = paired(case, baseline, "process_cpu_us_per_notification", "cpu_us_per_notification")
    return (r or {}).get("median"), (rc or {}).get("median")


FAST = "mock --accept-all (fast path: no validation, rules or records)"
b1c, b1cpu = stat("B1.client", "rate"), stat("B1.client", "process_cpu_us_per_notification")
h2m, h2mcpu = stat("B1.h2load-mock", "rate"), stat("B1.h2load-mock", "cpu_us_per_notification")
h2n, h2ncpu = stat("B1.h2load-nghttpd", "rate"), stat("B1.h2load-nghttpd", "cpu_us_per_notification")
cn, cncpu = stat("B1.client-nghttpd", "rate"), stat("B1.client-nghttpd", "process_cpu_us_per_notification")
row(f"B1 client → {FAST}, 1 conn, 256 B, m=1000", f"{fmt(b1c, '/s')}, {fmt(b1cpu, ' µs/notif', 1)} CPU (whole process)",
    "", sources=("B1.client",))
if h2m:
    r, rc = paired_ratios("B1.client", "B1.h2load-mock")
    row("B1 h2load → mock --accept-all", f"{fmt(h2m, '/s')}, {fmt(h2mcpu, ' µs/req', 1)} CPU (whole process)", "",
        sources=("B1.h2load-mock",))
    row("B1 ratio client/h2load (mock --accept-all), send: 1,000 callers; median of alternating rounds", f"rate {fr(r)}, CPU {fr(rc)}", "rate ≥ 0.8×, CPU ≤ 2.0×",
        met(r, goal("B1 rate: client / h2load (mock)", r, 0.8, sources=("B1.client", "B1.h2load-mock"))
            & goal("B1 CPU: client / h2load (mock)", rc, 2.0, False, ("B1.client", "B1.h2load-mock"))),
        sources=("B1.client", "B1.h2load-mock"))
    bb, bbcpu = stat("B1.client-batch", "rate"), stat("B1.client-batch", "process_cpu_us_per_notification")
    r, rc = paired_ratios("B1.client-batch", "B1.h2load-mock")
    row("B1 client send(batch:) chunks of 100, ≤ 1,000 pending → mock --accept-all; ratio to h2load",
        f"{fmt(bb, '/s')}, {fmt(bbcpu, ' µs/notif', 1)} CPU (whole process); rate {fr(r)}, CPU {fr(rc)}", "rate ≥ 0.8×, CPU ≤ 2.0×",
        met(r, goal("B1 batch rate: client / h2load (mock)", r, 0.8, sources=("B1.client-batch", "B1.h2load-mock"))
            & goal("B1 batch CPU: client / h2load (mock)", rc, 2.0, False, ("B1.client-batch", "B1.h2load-mock"))),
        sources=("B1.client-batch", "B1.h2load-mock"))
else:
    row("B1 h2load → mock", "skipped: " + (cases.get("B1.h2load-mock", {}).get("skipped") or "no data"), "")
r, rc = paired_ratios("B1.client-nghttpd", "B1.h2load-nghttpd")
row("B1' client → nghttpd", f"{fmt(cn, '/s')}, {fmt(cncpu, ' µs/notif', 1)} CPU (whole process)", "", sources=("B1.client-nghttpd",))
row("B1' h2load → nghttpd", f"{fmt(h2n, '/s')}, {fmt(h2ncpu, ' µs/req', 1)} CPU (whole process)", "",
    sources=("B1.h2load-nghttpd",))
row("B1' ratio client/h2load (nghttpd), send: 1,000 callers; median of alternating rounds", f"rate {fr(r)}, CPU {fr(rc)}", "rate ≥ 0.8×, CPU ≤ 2.0×",
    met(r, goal("B1' rate: client / h2load (nghttpd)", r, 0.8, sources=("B1.client-nghttpd", "B1.h2load-nghttpd"))
        & goal("B1' CPU: client / h2load (nghttpd)", rc, 2.0, False, ("B1.client-nghttpd", "B1.h2load-nghttpd"))),
    sources=("B1.client-nghttpd", "B1.h2load-nghttpd"))
cbn, cbncpu = stat("B1.client-batch-nghttpd", "rate"), stat("B1.client-batch-nghttpd", "process_cpu_us_per_notification")
r, rc = paired_ratios("B1.client-batch-nghttpd", "B1.h2load-nghttpd")
row("B1' client send(batch:) → nghttpd; ratio to h2load",
    f"{fmt(cbn, '/s')}, {fmt(cbncpu, ' µs/notif', 1)} CPU (whole process); rate {fr(r)}, CPU {fr(rc)}", "rate ≥ 0.8×, CPU ≤ 2.0×",
    met(r, goal("B1' batch rate: client / h2load (nghttpd)", r, 0.8, sources=("B1.client-batch-nghttpd", "B1.h2load-nghttpd"))
        & goal("B1' batch CPU: client / h2load (nghttpd)", rc, 2.0, False, ("B1.client-batch-nghttpd", "B1.h2load-nghttpd"))),
    sources=("B1.client-batch-nghttpd", "B1.h2load-nghttpd"))
for c, case in ((1, "B1.client"), (2, "B2.c2"), (4, "B2.c4")):
    row(f"B2 connections={c} (mock --accept-all)", f"{fmt(stat(case, 'rate'), '/s')}, "
        f"{fmt(stat(case, 'cpu_us_per_notification'), ' µs', 1)}", "", sources=(case,))
for p, case in ((100, "B3.p100"), (256, "B1.client"), (1024, "B3.p1024"), (4096, "B3.p4096")):
    row(f"B3 payload={p} B (mock --accept-all)", f"{fmt(stat(case, 'rate'), '/s')}, "
        f"{fmt(stat(case, 'cpu_us_per_notification'), ' µs', 1)}", "", sources=(case,))
b4 = stat("B4.client", "answered_rate")
bound = 500 / 0.040
r4 = None if b4 is None else b4["median"] / bound
row("B4 40 ms, 500 streams, 1% reject → limit 1 (validating mock)",
    f"{fmt(b4, '/s')} answered = {'n/a' if r4 is None else f'{r4:.0%}'} of {bound:,.0f}/s bound; "
    f"p50 {fmt(stat('B4.client', 'p50_ms'), ' ms')}, p99 {fmt(stat('B4.client', 'p99_ms'), ' ms')}",
    "≥ 95% of bound", met(r4, goal("B4 answered / bound (40 ms, 500 streams)", r4, 0.95, sources=("B4.client",))), sources=("B4.client",))


b5m, b5n = stat("B5.h2load-mock", "rate"), stat("B5.h2load-nghttpd", "rate")
if b5m and b5n:
    # Alternating rounds, both servers up at once: the ratio of each round, then their median.
    r5 = paired("B5.h2load-mock", "B5.h2load-nghttpd", "rate")
    c5 = paired("B5.h2load-mock", "B5.h2load-nghttpd", "server_cpu_us_per_request")
    sources = ("B5.h2load-mock", "B5.h2load-nghttpd")
    ok = goal("B5 h2load: mock / nghttpd", r5["median"], 1.1, sources=sources)
    if c5:
        ok = goal("B5 server CPU per request: mock / nghttpd", c5["median"], 1.0, at_least=False, sources=sources) and ok
    row("B5 h2load: mock --accept-all / nghttpd, alternating rounds",
        f"rate {fr(r5['median'])} ({fr(r5['min'])}–{fr(r5['max'])} by round; {fmt(b5m, '/s')} vs {fmt(b5n, '/s')}); "
        f"server CPU {'n/a' if not c5 else fr(c5['median'])} "
        f"({fmt(stat('B5.h2load-mock', 'server_cpu_us_per_request'), ' µs/req', 1)} vs "
        f"{fmt(stat('B5.h2load-nghttpd', 'server_cpu_us_per_request'), ' µs/req', 1)})",
        "≥ 1.1× rate, CPU ≤ 1.0×", met(r5["median"], ok), sources=sources)
elif h2m:
    r = ratio(h2m, h2n)
    row("B5 h2load: mock --accept-all / nghttpd", f"{fr(r)} ({fmt(h2m, '/s')} vs {fmt(h2n, '/s')})", "≥ 1.1×",
        met(r, goal("B5 h2load: mock / nghttpd", r, 1.1, sources=("B1.h2load-mock", "B1.h2load-nghttpd"))), sources=("B1.h2load-mock", "B1.h2load-nghttpd"))
else:
    row("B5 h2load: mock / nghttpd", f"skipped (mock requires client certs); nghttpd alone {fmt(h2n, '/s')}", "≥ 1.1×")
# B5': the validating path (rules, records) against nghttpd, as B5 does the fast path: our client against the
# validating mock and against nghttpd, both up at once, in alternating rounds, with each server's CPU.
sources = ("B5.client-mock-validating", "B5.client-nghttpd")
b5v, b5vn = stat(sources[0], "rate"), stat(sources[1], "rate")
r5v = (paired(*sources, "rate") or {}).get("median")
c5v = (paired(*sources, "server_cpu_us_per_request") or {}).get("median")
ok = goal("B5' our client: validating mock / nghttpd", r5v, 0.7, sources=sources)
ok = goal("B5' server CPU per request: validating mock / nghttpd", c5v, 2.0, at_least=False, sources=sources) and ok
row("B5' our client: mock validating (rules, records) / nghttpd, alternating rounds",
    f"rate {fr(r5v)} ({fmt(b5v, '/s')} vs {fmt(b5vn, '/s')}); server CPU {fr(c5v)} "
    f"({fmt(stat(sources[0], 'server_cpu_us_per_request'), ' µs/req', 1)} vs "
    f"{fmt(stat(sources[1], 'server_cpu_us_per_request'), ' µs/req', 1)})",
    "≥ 0.7× rate, CPU ≤ 2.0×", met(r5v, ok), sources=sources)
b6c, b6a = stat("B6.client", "rate"), stat("B6.aioapns", "rate")
r = ratio(b6c, b6a)
b6n = (cases.get("B6.aioapns", {}).get("runs") or [{}])[0]
row(f"B6 client (1 conn) / aioapns (default pool), m={b6n.get('in_flight', '?')}, n={b6n.get('n', '?')}, {FAST}",
    f"{fr(r, 1)} ({fmt(b6c, '/s')} vs {fmt(b6a, '/s')}; aioapns "
    f"{fmt(stat('B6.aioapns', 'cpu_us_per_notification'), ' µs/notif')} CPU)", "≥ 20×",
    met(r, goal("B6 client / aioapns", r, 20, sources=("B6.client", "B6.aioapns"))), sources=("B6.client", "B6.aioapns"))
# B7 and B8 goals are ratios to a baseline measured in the same run, so a busier machine moves both sides:
# B7 against our client alone on the mock (B1), B8 against B7 (the store's headroom over the service).
# The thresholds are the old absolute goals' ratios (20,000/s over B1's ~110,000/s; 50,000 over 20,000).
b7, b7rss = stat("B7", "rate"), stat("B7", "peak_rss_mb")
b7cpu, b7mock = stat("B7", "cpu_us_per_notification"), stat("B7", "mock_cpu_us_per_notification")
if b7:
    r7 = ratio(b7, b1c)
    row("B7 service: POST /v1/pushes → outbox → APNs client → mock in its own process (B1's --accept-all path, "
        "production answers, zero latency)",
        f"{fmt(b7, '/s')} = {fr(r7)} B1's client alone; API accept → APNs accept p50 {fmt(stat('B7', 'p50_ms'), ' ms')}, "
        f"p99 {fmt(stat('B7', 'p99_ms'), ' ms')}; peak RSS {fmt(b7rss, ' MB')}; "
        f"{fmt(b7cpu, ' µs/notif', 1)} server CPU (push-server's process), the mock beside it "
        f"{fmt(b7mock, ' µs/notif', 1)} (its own process)",
        "≥ 0.6× B1 client, peak RSS ≤ 64 MB",
        met(r7, goal("B7 service / B1 client alone", r7, 0.6, sources=("B7", "B1.client"))
                and b7rss is not None and b7rss["max"] <= 64), sources=("B7", "B1.client"))
    # The main ratio: the service's CPU per notification (push-server's process only: the mock runs apart) to the
    # client's alone (B1: its whole process), each against the same mock.
    rc7 = ratio(b7cpu, b1cpu)
    row("B7 server CPU per notification / B1 client's alone (push-server's process and the client's, the mock apart)",
        f"{fr(rc7, 1)} ({fmt(b7cpu, ' µs', 1)} vs {fmt(b1cpu, ' µs', 1)})", "≤ 3× (moonshot 2×)",
        met(rc7, goal("B7 server CPU / B1 client CPU per notification", rc7, 3.0, at_least=False,
                      sources=("B7", "B1.client"))), sources=("B7", "B1.client"))
else:
    row("B7 service end to end", "skipped: " + (cases.get("B7", {}).get("skipped") or "no data"),
        "≥ 0.6× B1 client, peak RSS ≤ 64 MB")
# B7H: half of B7's rate (bench/run.sh takes it from B7's runs), open loop: posts of 100 tokens on a schedule,
# API accept → APNs accept against the mock in its own process on B7's --accept-all path answering after 40 ms
# (goal: p99 near that floor) and at once.
B7H_MOCK_MS = 40
h40 = stat("B7H.40ms", "p99_ms")
r7h = None if h40 is None else h40["median"] / B7H_MOCK_MS


def b7h_figures(case):
    return (f"p50 {fmt(stat(case, 'p50_ms'), ' ms')}, p99 {fmt(stat(case, 'p99_ms'), ' ms')}; "
            f"{fmt(stat(case, 'offered_rate'), '/s')} offered of {fmt(stat(case, 'target_rate'), '/s')} (half of B7's), "
            f"{fmt(stat(case, 'rate'), '/s')} answered; {fmt(stat(case, 'cpu_us_per_notification'), ' µs/notif', 1)} server CPU, "
            f"the mock {fmt(stat(case, 'mock_cpu_us_per_notification'), ' µs/notif', 1)}")


row(f"B7H service at half of B7's rate, open loop (posts of 100 tokens), mock in its own process (B7's --accept-all path) "
    f"answering after {B7H_MOCK_MS} ms: API accept → APNs accept", f"{b7h_figures('B7H.40ms')}; p99 = {fr(r7h)} the mock's {B7H_MOCK_MS} ms",
    f"p99 ≤ 1.5× {B7H_MOCK_MS} ms (moonshot 1.2×)",
    met(r7h, goal(f"B7H p99 / {B7H_MOCK_MS} ms mock latency, half of B7's rate", r7h, 1.5, at_least=False,
                  sources=("B7H.40ms", "B7"))), sources=("B7H.40ms", "B7"))
row("B7H the same against the zero-latency mock", b7h_figures("B7H.0ms"), "", sources=("B7H.0ms", "B7"))
# B7 at the in-flight bound make chaos-kills runs at (a kill leaves at most that many duplicates): its cost in rate.
b7i = stat("B7.inflight-100", "rate")
row("B7 with outbox.max_in_flight 100 (the bound of make chaos-kills) / B7 at the default 1,000",
    f"{fmt(b7i, '/s')} = {fr(ratio(b7i, stat('B7', 'rate')))} B7's; "
    f"{fmt(stat('B7.inflight-100', 'cpu_us_per_notification'), ' µs/notif', 1)} server CPU", "",
    sources=("B7.inflight-100", "B7"))
# B8: the SQLite store alone. The service stores a push once (B8.push), so the store's headroom over the service
# is that cycle's; B8.store, a row per notification as the store was before, is the baseline of B9 and B10.
b8 = stat("B8.store", "rate")
b8p = stat("B8.push", "rate")
r8p = ratio(b8p, b7)
row("B8 outbox enqueue+claim+complete (SQLite), each batch one push stored once (derived ids, production answers)",
    f"{fmt(b8p, ' cycles/s')} = {fr(r8p)} B7's rate", "≥ 2.5× B7",
    met(r8p, goal("B8 outbox (a push stored once) / B7 service", r8p, 2.5, sources=("B8.push", "B7"))),
    sources=("B8.push", "B7"))
row("B8 the same with a row per notification (ids of their own, sandbox answers): the baseline of B9 and B10",
    f"{fmt(b8, ' cycles/s')} = {fr(ratio(b8, b8p))} the push cycle's", "", sources=("B8.store", "B8.push"))
# B7L: the long run against the short one in the same run, both paced and purging (retention 1 s): throughput
# holds, memory stays flat, and the database does not grow with the count: once the retention job has purged
# every notification it is no larger after 1,000,000 than after 100,000, and over the long run its peak in the
# second half is no higher than in the first. (While it runs, it holds rate × (retention + the purge's
# interval) notifications, more than B7's 100,000 unpurged above 100,000/s: its size at the end is reported
# beside B7's, not judged against it.)
l1, l10 = stat("B7L.100000", "rate"), stat("B7L.1000000", "rate")
if l1 and l10:
    rl = ratio(l10, l1)
    rss1, rss10 = stat("B7L.100000", "peak_rss_mb"), stat("B7L.1000000", "peak_rss_mb")
    db7, db10 = stat("B7", "db_mb"), stat("B7L.1000000", "db_mb")
    purged1, purged10 = stat("B7L.100000", "db_mb_purged"), stat("B7L.1000000", "db_mb_purged")
    rss_ratio, purged_ratio = ratio(rss10, rss1), ratio(purged10, purged1)
    tenths = [r.get("db_mb_peak_by_tenth") or [] for r in cases.get("B7L.1000000", {}).get("runs", [])]
    halves = [(max(t[: len(t) // 2]), max(t[len(t) // 2:])) for t in tenths if len(t) >= 2]
    flat = bool(halves) and all(late <= 1.1 * early for early, late in halves)
    db_ok = purged_ratio is not None and purged_ratio <= 1.1 and flat
    peak = "; ".join(f"peak {early:.1f} MB in the first half, {late:.1f} MB in the second" for early, late in halves)
    row("B7L service over 1,000,000 notifications vs 100,000 (steady load, final rows purged after 1 s)",
        f"{fmt(l10, '/s')} = {fr(rl)} the 100,000 run's {fmt(l1, '/s')}; peak RSS {fmt(rss10, ' MB')} vs "
        f"{fmt(rss1, ' MB')} ({fr(rss_ratio)}); database once purged {fmt(purged10, ' MB', 1)} vs "
        f"{fmt(purged1, ' MB', 1)} ({fr(purged_ratio)}), {peak or 'no samples'}; at the end "
        f"{fmt(db10, ' MB', 1)} (B7's 100,000 unpurged: {fmt(db7, ' MB', 1)})",
        "rate ≥ 0.85×, RSS ≤ 1.1×, database once purged ≤ 1.1× and its peak flat",
        met(rl, goal("B7L 1M / 100k rate", rl, 0.85, sources=("B7L.1000000", "B7L.100000"))
            and rss_ratio is not None and rss_ratio <= 1.1 and db_ok),
        sources=("B7L.1000000", "B7L.100000", "B7"))
for store in ("memory", "sqlite"):
    case = f"B9.drops-{store}"
    r9 = ratio(stat(case, "rate"), b8)
    row(f"B9 drops, 1,000 concurrent reporters, {store} store", f"p50 {fmt(stat(case, 'p50_ms'), ' ms', 1)}, "
        f"p99 {fmt(stat(case, 'p99_ms'), ' ms', 1)}, {fmt(stat(case, 'rate'), ' reports/s')} = {fr(r9)} B8's cycles/s",
        "≥ 0.5× B8", met(r9, goal(f"B9 drops ({store}) / B8 outbox cycles", r9, 0.5, sources=(case, "B8.store"))),
        sources=(case, "B8.store"))

# PostgreSQL (bench/cluster.sh): every figure beside its SQLite baseline from the same run.
for workers in (1, 3):
    case = f"B10.pg-w{workers}"
    r10 = ratio(stat(case, "rate"), b8)
    row(f"B10 outbox enqueue+claim+complete (PostgreSQL, {workers} worker{'s' if workers > 1 else ''})",
        f"{fmt(stat(case, 'rate'), ' cycles/s')} = {fr(r10)} B8 (SQLite)", "≥ 0.5× B8",
        met(r10, goal(f"B10 PostgreSQL {workers} workers / B8 SQLite", r10, 0.5, sources=(case, "B8.store"))),
        sources=(case, "B8.store"))
b11s = stat("B11.sqlite-1", "rate")
row("B11 end to end, 1 instance on SQLite (baseline)", f"{fmt(b11s, '/s')}, "
    f"{fmt(stat('B11.sqlite-1', 'cpu_us_per_notification'), ' µs/notif', 1)} server CPU "
    f"(mock {fmt(stat('B11.sqlite-1', 'mock_cpu_us_per_notification'), ' µs', 1)} apart)", "", sources=("B11.sqlite-1",))
for instances in (1, 2, 3):
    case = f"B11.pg-{instances}"
    r11 = ratio(stat(case, "rate"), b11s)
    ok = met(r11, goal("B11 2 instances on PostgreSQL / 1 on SQLite", r11, 0.8, sources=(case, "B11.sqlite-1"))) \
        if instances == 2 else ""
    row(f"B11 end to end, {instances} instance{'s' if instances > 1 else ''} on PostgreSQL",
        f"{fmt(stat(case, 'rate'), '/s')} = {fr(r11)} SQLite; "
        f"{fmt(stat(case, 'cpu_us_per_notification'), ' µs/notif', 1)} server CPU (all instances), "
        f"PostgreSQL {fmt(stat(case, 'postgres_cpu_us_per_notification'), ' µs', 1)} "
        f"(mock {fmt(stat(case, 'mock_cpu_us_per_notification'), ' µs', 1)} apart)",
        "≥ 0.8× SQLite" if instances == 2 else "", ok, sources=(case, "B11.sqlite-1"))
case = "B9.drops-postgres-3"
r9p = ratio(stat(case, "rate"), stat("B9.drops-sqlite", "rate"))
row("B9 drops, 1,000 concurrent reporters over 3 instances, PostgreSQL store",
    f"p50 {fmt(stat(case, 'p50_ms'), ' ms', 1)}, p99 {fmt(stat(case, 'p99_ms'), ' ms', 1)}, "
    f"{fmt(stat(case, 'rate'), ' reports/s')} = {fr(r9p)} the "
    f"{fmt(stat('B9.drops-sqlite', 'rate'), ' reports/s')} of 1 instance on SQLite", "≥ 0.3× SQLite (moonshot 0.5×)",
    met(r9p, goal("B9 drops over 3 PostgreSQL instances / 1 on SQLite", r9p, 0.3, sources=(case, "B9.drops-sqlite"))),
    sources=(case, "B9.drops-sqlite"))

# B12: the same client and load straight to the mock and through tinyproxy (HTTP CONNECT), in one run.
b12d, b12p = stat("B12.direct", "rate"), stat("B12.tinyproxy", "rate")
b12dc = stat("B12.direct", "process_cpu_us_per_notification")
b12pc = stat("B12.tinyproxy", "process_cpu_us_per_notification")
r12 = ratio(b12p, b12d)
row("B12 client through tinyproxy / direct (mock --accept-all, 1 conn)",
    f"{fmt(b12p, '/s')} vs {fmt(b12d, '/s')} = {fr(r12)}; CPU {fmt(b12pc, ' µs/notif', 1)} vs {fmt(b12dc, ' µs/notif', 1)} "
    "(our process; tinyproxy's own CPU not counted)", "≥ 0.8× (the tunnel costs little once up)",
    met(r12, r12 is not None and r12 >= 0.8), sources=("B12.direct", "B12.tinyproxy"))
b12s, b12sc = stat("B12.danted", "rate"), stat("B12.danted", "process_cpu_us_per_notification")
r12s = ratio(b12s, b12d)
row("B12 client through danted (SOCKS5, default record groups) / direct (mock --accept-all, 1 conn)",
    f"{fmt(b12s, '/s')} vs {fmt(b12d, '/s')} = {fr(r12s)}; CPU {fmt(b12sc, ' µs/notif', 1)} vs {fmt(b12dc, ' µs/notif', 1)}",
    "≥ 0.8×", met(r12s, r12s is not None and r12s >= 0.8), sources=("B12.direct", "B12.danted"))
b12n, b12nc = stat("B12.danted-nodelay", "rate"), stat("B12.danted-nodelay", "process_cpu_us_per_notification")
r12n = ratio(b12n, b12d)
row("B12 client through danted with nodelay=1 (Dante relays at once) / direct",
    f"{fmt(b12n, '/s')} vs {fmt(b12d, '/s')} = {fr(r12n)}; CPU {fmt(b12nc, ' µs/notif', 1)} vs {fmt(b12dc, ' µs/notif', 1)}",
    "≥ 0.8×", met(r12n, r12n is not None and r12n >= 0.8), sources=("B12.direct", "B12.danted-nodelay"))

# B7.budget: push-server's CPU per notification by stage, from one B7 run under perf (bench/stages.py), beside
# the client's alone (B1). The mock runs in its own process, as in B7: its stage (the mock's code in push-server's
# samples) stays as a check that none is there, and its own CPU is reported beside the service's.
STAGE_ORDER = ["HTTP + JSON", "enqueue", "claim", "client", "completion", "webhooks and metrics", "other", "mock"]
STAGE_NOTES = {"client": "APNs client incl. its nghttp2 and TLS", "other": "no stage frame in the stack",
               "mock": "mock code in push-server's samples: none expected, the mock runs apart"}


def budget_section():
    """The budget table's markdown lines and its figures for results.json (None when B7.budget has none)."""
    runs = [r["budget"] for r in cases.get("B7.budget", {}).get("runs", []) if isinstance(r.get("budget"), dict)]
    problem = invalid("B7.budget")
    lines = ["", "### B7 cost budget per stage", ""]
    if not runs:
        return lines + [f"No budget: B7.budget {problem or 'has no profile'}."], None
    median = lambda key, stage=None: statistics.median(r[key][stage] if stage else r[key] for r in runs)
    mock_apart = [r["mock_cpu_us_per_notification"] for r in cases.get("B7.budget", {}).get("runs", [])
                  if isinstance(r.get("mock_cpu_us_per_notification"), (int, float))]
    client = stat("B1.client", "process_cpu_us_per_notification")
    service = median("service_us")
    b7cpu = stat("B7", "cpu_us_per_notification")
    lines += [f"One more B7 run under `perf record` (DWARF stacks, {median('samples'):,.0f} samples of push-server; "
              f"bench/stages.py names each sample's stage by its innermost recognized frame): each stage's share of "
              f"the samples × that run's server CPU per notification, {median('process_us'):.1f} µs (B7's runs "
              f"without perf: {fmt(b7cpu, ' µs', 1)})."
              + (f" INVALID: {problem}." if problem else ""), "",
              "| Stage | µs of server CPU per notification | Share of samples |", "|---|---|---|"]
    figures = {"stages": {}, "service_us": service, "mock_us": median("mock_us"), "process_us": median("process_us"),
               "mock_apart_us": statistics.median(mock_apart) if mock_apart else None,
               "client_alone_us": client and client["median"], "valid": not problem}
    for stage in STAGE_ORDER:
        us, share = median("stage_us", stage), median("stage_share", stage)
        figures["stages"][stage] = {"us": us, "share": share}
        if stage == "mock":
            lines.append(f"| service total (without the mock) | {service:.1f} | {1 - share:.1%} |")
        note = f" ({STAGE_NOTES[stage]})" if stage in STAGE_NOTES else ""
        lines.append(f"| {stage}{note} | {us:.1f} | {share:.1%} |")
    apart = figures["mock_apart_us"]
    lines.append(f"| the mock in its own process, over the same run (not in push-server's CPU) | "
                 f"{'n/a' if apart is None else f'{apart:.1f}'} | |")
    lines.append(f"| B1: the client alone (whole process) | "
                 f"{fmt(client, '', 1) if 'B1.client' in cases else 'n/a (B1 not in this selection)'} | |")
    times = None if not client or not client["median"] else service / client["median"]
    figures["service_over_client"] = times
    lines.append(f"| service total / the client alone | {fr(times, 1)} | |")
    return lines, figures


budget_lines, budget_figures = budget_section()
errors = {c: [p for p in (run_problem(c, r) for r in e["runs"]) if p] for c, e in cases.items()}
errors = {c: e for c, e in errors.items() if e}
# Every case of the selection, and every other case that ran: a missing or skipped one is named too.
invalid_cases = sorted(c for c in set(expected_cases) | set(cases) if invalid(c))
missing = sorted(c for c in expected_cases if c not in cases)
skipped = sorted(c for c in expected_cases if cases.get(c, {}).get("skipped"))
results = {"conditions": conditions, "machine": machine, "cases": cases, "mock_counters": extras,
           "table": [dict(zip(("case", "figure", "goal", "verdict"), r)) for r in rows], "ratios": ratios, "errors": errors,
           "valid": not invalid_cases, "invalid_cases": invalid_cases, "selection": selection,
           "expected_cases": expected_cases, "missing_cases": missing, "skipped_cases": skipped,
           "budget": budget_figures}
json.dump(results, open(json_path, "w"), indent=1)

lines = ["| Case | Median (min–max) | Goal | |", "|---|---|---|---|"]
lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
if "B7.budget" in expected_cases or "B7.budget" in cases:
    lines += budget_lines
md = ["# Benchmark summary", "",
      f"Machine: {machine['cores']} cores, {machine['cpu']}; Linux {machine['kernel']}; {machine['swift']}; "
      f"nghttp2 {machine['nghttp2']} ({machine['h2load']}); {machine['openssl']}; libevent {machine['libevent']}; "
      f"{machine['python']}. Load average at end: {' '.join(machine['load_average_at_end'])}.", "",
      f"Run: {conditions}. Median of the measured runs after one warm-up; min–max in brackets; the 1-minute "
      "load average before the measured runs beside each figure. Client and server share the machine's cores. "
      "A run counts only if every request in it succeeded (B4: its rejections at the configured rate), and every "
      "case of the selection must have run; a row with any failed, missing or skipped case is INVALID and never met.",
      "", f"Validity: {'every run valid' if not invalid_cases else 'INVALID: ' + ', '.join(invalid_cases)}.", ""] + lines
if errors:
    md += ["", "Errors:"] + [f"- {c}: {e[0]}" for c, e in errors.items()]
if missing or skipped:
    md += ["", "Cases of this selection that did not run:"] + [f"- {c}: {invalid(c)}" for c in missing + skipped]
open(md_path, "w").write("\n".join(md) + "\n")
print("\n".join(md))
sys.exit(1 if invalid_cases else 0)   # an invalid run is not a result
