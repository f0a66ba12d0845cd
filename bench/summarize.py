#!/usr/bin/env python3
"""Reads bench/raw.jsonl (CASE<TAB>warmup|run|skip<TAB>JSON), writes results.json and summary.md, prints the table."""
import json
import os
import platform
import re
import statistics
import subprocess
import sys

raw_path, json_path, md_path, conditions = sys.argv[1:5]
cases, extras = {}, {}
for line in open(raw_path):
    parts = line.rstrip("\n").split("\t")
    if len(parts) == 2:          # mock counters: NAME<TAB>JSON
        try:
            extras[parts[0]] = json.loads(parts[1])
        except ValueError:
            pass
        continue
    case, kind, text = parts
    try:
        data = json.loads(text)
    except ValueError:
        data = {"error": text}
    entry = cases.setdefault(case, {"runs": [], "warmup": None, "skipped": None})
    if kind == "run":
        entry["runs"].append(data)
    elif kind == "warmup":
        entry["warmup"] = data
    else:
        entry["skipped"] = data.get("skipped")


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


def row(case, figure, goal, verdict=""):
    rows.append((case, figure, goal, verdict))


def met(value, ok):
    return "" if value is None else ("met" if ok else "not met")


b1c, b1cpu = stat("B1.client", "rate"), stat("B1.client", "cpu_us_per_notification")
h2m, h2mcpu = stat("B1.h2load-mock", "rate"), stat("B1.h2load-mock", "cpu_us_per_notification")
h2n, h2ncpu = stat("B1.h2load-nghttpd", "rate"), stat("B1.h2load-nghttpd", "cpu_us_per_notification")
cn, cncpu = stat("B1.client-nghttpd", "rate"), stat("B1.client-nghttpd", "cpu_us_per_notification")
row("B1 client → mock, 1 conn, 256 B, m=1000", f"{fmt(b1c, '/s')}, {fmt(b1cpu, ' µs/notif', 1)} CPU", "")
if h2m:
    r, rc = ratio(b1c, h2m), ratio(b1cpu, h2mcpu)
    row("B1 h2load → mock", f"{fmt(h2m, '/s')}, {fmt(h2mcpu, ' µs/req', 1)} CPU", "")
    row("B1 ratio client/h2load (mock)", f"rate {fr(r)}, CPU {fr(rc)}", "rate ≥ 0.9×, CPU ≤ 1.5×",
        met(r, r is not None and r >= 0.9 and rc is not None and rc <= 1.5))
else:
    row("B1 h2load → mock", "skipped: " + (cases.get("B1.h2load-mock", {}).get("skipped") or "no data"), "")
r, rc = ratio(cn, h2n), ratio(cncpu, h2ncpu)
row("B1' client → nghttpd", f"{fmt(cn, '/s')}, {fmt(cncpu, ' µs/notif', 1)} CPU", "")
row("B1' h2load → nghttpd", f"{fmt(h2n, '/s')}, {fmt(h2ncpu, ' µs/req', 1)} CPU", "")
row("B1' ratio client/h2load (nghttpd)", f"rate {fr(r)}, CPU {fr(rc)}", "rate ≥ 0.9×, CPU ≤ 1.5×",
    met(r, r is not None and r >= 0.9 and rc is not None and rc <= 1.5))
for c, case in ((1, "B1.client"), (2, "B2.c2"), (4, "B2.c4")):
    row(f"B2 connections={c}", f"{fmt(stat(case, 'rate'), '/s')}, "
        f"{fmt(stat(case, 'cpu_us_per_notification'), ' µs', 1)}", "")
for p, case in ((100, "B3.p100"), (256, "B1.client"), (1024, "B3.p1024"), (4096, "B3.p4096")):
    row(f"B3 payload={p} B", f"{fmt(stat(case, 'rate'), '/s')}, "
        f"{fmt(stat(case, 'cpu_us_per_notification'), ' µs', 1)}", "")
b4 = stat("B4.client", "rate")
bound = 500 / 0.040
r4 = None if b4 is None else b4["median"] / bound
row("B4 40 ms, 500 streams, 1% reject → limit 1",
    f"{fmt(b4, '/s')} = {'n/a' if r4 is None else f'{r4:.0%}'} of {bound:,.0f}/s bound; "
    f"p50 {fmt(stat('B4.client', 'p50_ms'), ' ms')}, p99 {fmt(stat('B4.client', 'p99_ms'), ' ms')}",
    "≥ 90% of bound", met(r4, r4 is not None and r4 >= 0.9))
if h2m:
    r = ratio(h2m, h2n)
    row("B5 h2load: mock / nghttpd", f"{fr(r)} ({fmt(h2m, '/s')} vs {fmt(h2n, '/s')})", "≥ 1.0×",
        met(r, r is not None and r >= 1.0))
else:
    row("B5 h2load: mock / nghttpd", f"skipped (mock requires client certs); nghttpd alone {fmt(h2n, '/s')}", "≥ 1.0×")
b6c, b6a = stat("B6.client", "rate"), stat("B6.aioapns", "rate")
r = ratio(b6c, b6a)
row("B6 client / aioapns (mock, 1 conn)", f"{fr(r, 1)} ({fmt(b6c, '/s')} vs {fmt(b6a, '/s')}; aioapns "
    f"{fmt(stat('B6.aioapns', 'cpu_us_per_notification'), ' µs/notif')} CPU)", "≥ 20×", met(r, r is not None and r >= 20))
b7, b7rss = stat("B7", "rate"), stat("B7", "peak_rss_mb")
if b7:
    row("B7 service: POST /v1/pushes → outbox → APNs client → mock",
        f"{fmt(b7, '/s')}; API accept → APNs accept p50 {fmt(stat('B7', 'p50_ms'), ' ms')}, "
        f"p99 {fmt(stat('B7', 'p99_ms'), ' ms')}; peak RSS {fmt(b7rss, ' MB')}; "
        f"{fmt(stat('B7', 'cpu_us_per_notification'), ' µs/notif', 1)} server CPU",
        "≥ 20,000/s, peak RSS ≤ 64 MB",
        met(b7, b7rss is not None and b7["median"] >= 20000 and b7rss["max"] <= 64))
else:
    row("B7 service end to end", "skipped: " + (cases.get("B7", {}).get("skipped") or "no data"),
        "≥ 20,000/s, peak RSS ≤ 64 MB")
b8 = stat("B8.store", "rate")
row("B8 outbox enqueue+claim+complete", fmt(b8, " cycles/s"), "≥ 50,000/s", met(b8, b8 is not None and b8["median"] >= 50000))
row("B9 drops, 1,000 concurrent reporters", f"p50 {fmt(stat('B9.drops', 'p50_ms'), ' ms', 1)}, "
    f"p99 {fmt(stat('B9.drops', 'p99_ms'), ' ms', 1)}, {fmt(stat('B9.drops', 'rate'), ' reports/s')}", "")

errors = {c: [r.get("error") or r.get("first_error") for r in e["runs"] if r.get("error") or r.get("first_error")]
          for c, e in cases.items()}
errors = {c: e for c, e in errors.items() if e}
results = {"conditions": conditions, "machine": machine, "cases": cases, "mock_counters": extras,
           "table": [dict(zip(("case", "figure", "goal", "verdict"), r)) for r in rows], "errors": errors}
json.dump(results, open(json_path, "w"), indent=1)

lines = ["| Case | Median (min–max) | Goal | |", "|---|---|---|---|"]
lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
md = ["# Benchmark summary", "",
      f"Machine: {machine['cores']} cores, {machine['cpu']}; Linux {machine['kernel']}; {machine['swift']}; "
      f"nghttp2 {machine['nghttp2']} ({machine['h2load']}); {machine['openssl']}; libevent {machine['libevent']}; "
      f"{machine['python']}. Load average at end: {' '.join(machine['load_average_at_end'])}.", "",
      f"Run: {conditions}. Median of the measured runs after one warm-up; min–max in brackets. "
      "Client and server share the machine's cores.", ""] + lines
if errors:
    md += ["", "Errors:"] + [f"- {c}: {e[0]}" for c, e in errors.items()]
open(md_path, "w").write("\n".join(md) + "\n")
print("\n".join(md))
