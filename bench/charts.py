#!/usr/bin/env python3
"""Draws bench/*.svg from bench/results.json with matplotlib (run with bench/venv/bin/python by bench/run.sh).

ratios.svg       every ratio with a goal (against h2load, nghttpd, aioapns and the same run's baselines)
payload.svg      the client's throughput and CPU per notification against payload size (B3, B1 at 256 B)
b4-latency.svg   B4's latency distribution (each measured run's percentiles)
b7-timeline.svg  B7 over the run: notifications accepted by the API and answered by APNs, delivery rate, RSS, CPU

Usage: charts.py RESULTS_JSON OUT_DIR. Output is deterministic for the same results (no dates, fixed ids).
"""
import json
import os
import statistics
import sys

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams.update({"svg.hashsalt": "push-bench", "svg.fonttype": "none", "font.size": 9,
                     "axes.spines.top": False, "axes.spines.right": False})
COLORS = {"met": "#2e7d32", "not met": "#e65100", "invalid": "#9e9e9e", "": "#607d8b"}
results_path, out_dir = sys.argv[1:3]
results = json.load(open(results_path))
cases = results["cases"]
load_end = " ".join(results["machine"].get("load_average_at_end", []))
FOOTER = f"{results['conditions']}; {results['machine']['cores']} cores; load average at end {load_end}"


def save(fig, name):
    fig.text(0.01, 0.01, FOOTER, fontsize=7, color="#757575")
    fig.savefig(os.path.join(out_dir, name), metadata={"Date": None})
    plt.close(fig)
    print(f"charts: {os.path.join(out_dir, name)}")


def runs(case):
    """The measured runs of a case that have no error."""
    return [r for r in cases.get(case, {}).get("runs", []) if not r.get("error")]


def invalid(case):
    return case in results.get("invalid_cases", [])


def ratios_chart():
    entries = [r for r in results.get("ratios", []) if r["value"] is not None]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(entries) + 1.4))
    for y, r in enumerate(reversed(entries)):
        color = COLORS[r["verdict"]]
        ax.barh(y, r["value"], color=color, hatch="//" if r["verdict"] == "invalid" else None, height=0.6)
        ax.plot([r["goal"]] * 2, [y - 0.4, y + 0.4], color="black", linewidth=2)
        sign = "≥" if r["at_least"] else "≤"
        ax.annotate(f" {r['value']:.2f}× (goal {sign} {r['goal']:g}×) {r['verdict'] or ''}",
                    (max(r["value"], r["goal"]), y), va="center", fontsize=8)
    ax.set_yticks(range(len(entries)), [r["name"] for r in reversed(entries)])
    ax.set_xscale("log")
    ax.axvline(1, color="#bdbdbd", linewidth=0.8)
    ax.set_xlabel("ratio (log scale); black tick = goal; CPU ratios: lower is better")
    ax.set_title("Ratios against peers and same-run baselines")
    ax.set_xlim(right=max(max(r["value"], r["goal"]) for r in entries) * 60)
    fig.subplots_adjust(left=0.36, right=0.98, top=0.92, bottom=1.0 / (0.45 * len(entries) + 1.4))
    save(fig, "ratios.svg")


def payload_chart():
    sizes = [(100, "B3.p100"), (256, "B1.client"), (1024, "B3.p1024"), (4096, "B3.p4096")]
    points = [(size, case, runs(case)) for size, case in sizes if runs(case)]
    if not points:
        return
    fig, ax = plt.subplots(figsize=(7, 4))
    cpu_ax = ax.twinx()
    cpu_ax.spines["right"].set_visible(True)
    for key, axis, color, label in (("rate", ax, "#1565c0", "accepted notifications/s"),
                                    ("cpu_us_per_notification", cpu_ax, "#ef6c00", "CPU µs per notification")):
        xs, med, lo, hi = [], [], [], []
        for size, _, rs in points:
            values = [r[key] for r in rs if isinstance(r.get(key), (int, float))]
            if values:
                xs.append(size)
                med.append(statistics.median(values))
                lo.append(med[-1] - min(values))
                hi.append(max(values) - med[-1])
        axis.errorbar(xs, med, yerr=[lo, hi], color=color, marker="o", capsize=3, label=label)
        axis.set_ylabel(label, color=color)
        axis.set_ylim(bottom=0)
    for size, case, _ in points:
        if invalid(case):
            ax.annotate("INVALID", (size, 0), color="red", ha="center")
    ax.set_xscale("log", base=2)
    ax.set_xticks([size for size, _, _ in points], [f"{size} B" for size, _, _ in points])
    ax.set_xlabel("payload size (1 connection, 1,000 in flight, mock --accept-all); median, min–max")
    ax.set_title("Client throughput and CPU against payload size (B3)")
    fig.subplots_adjust(left=0.12, right=0.88, top=0.9, bottom=0.2)
    save(fig, "payload.svg")


def b4_chart():
    rs = [r for r in runs("B4.client") if r.get("latency_percentiles_ms")]
    if not rs:
        return
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, r in enumerate(rs, 1):
        ax.plot(r["latency_percentiles_ms"], range(101), label=f"run {i}: p50 {r['p50_ms']:.0f} ms, "
                f"p99 {r['p99_ms']:.0f} ms, {r['answered_rate']:,.0f}/s answered")
    ax.axvline(40, color="#9e9e9e", linestyle="--", linewidth=1)
    ax.annotate(" mock's 40 ms answer delay", (40, 5), color="#757575", fontsize=8)
    ax.set_xlim(left=0)
    ax.set_xlabel("send → answer latency, ms")
    ax.set_ylabel("percentile")
    title = "B4 latency distribution: 40 ms answers, 500 streams, 1% rejections → limit 1"
    ax.set_title(title + (" — INVALID" if invalid("B4.client") else ""))
    ax.legend(fontsize=8, loc="upper left")
    fig.subplots_adjust(left=0.1, right=0.97, top=0.9, bottom=0.2)
    save(fig, "b4-latency.svg")


def b7_chart():
    rs = [r for r in runs("B7") if r.get("timeline") and r.get("rate")]
    if not rs:
        return
    run = sorted(rs, key=lambda r: r["rate"])[len(rs) // 2]   # the median run
    timeline = run["timeline"]
    step = timeline["bin_s"]
    fig, (top, middle) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True)
    for key, color, label in (("api_accepted", "#1565c0", "accepted by the API (202), cumulative"),
                              ("apns_answered", "#2e7d32", "answered by APNs (terminal in the outbox), cumulative")):
        total, cumulative = 0, []
        for count in timeline[key]:
            total += count
            cumulative.append(total)
        top.plot([(i + 1) * step for i in range(len(cumulative))], cumulative, color=color, label=label)
    answered = timeline["apns_answered"]
    window = max(1, round(0.25 / step))   # the delivery rate over a sliding 250 ms
    rate = [sum(answered[max(0, i - window + 1):i + 1]) / (min(i + 1, window) * step) for i in range(len(answered))]
    rate_ax = top.twinx()
    rate_ax.spines["right"].set_visible(True)
    rate_ax.plot([(i + 1) * step for i in range(len(rate))], rate, color="#2e7d32", linewidth=0.7, linestyle=":",
                 label="APNs answers/s (250 ms window)")
    rate_ax.set_ylabel("answers/s (dotted)", color="#2e7d32")
    rate_ax.set_ylim(bottom=0)
    top.set_ylabel("notifications")
    top.set_title(f"B7 service over its median run: {run['n']:,} notifications, {run['rate']:,.0f}/s, "
                  f"peak RSS {run['peak_rss_mb']:.0f} MB" + (" — INVALID" if invalid("B7") else ""))
    top.legend(fontsize=8, loc="upper left")
    samples = timeline["samples"]
    ts = [s["t"] for s in samples]
    middle.plot(ts, [s["rss_mb"] for s in samples], color="#6a1b9a", label="RSS (MB)")
    middle.axhline(64, color="#6a1b9a", linestyle="--", linewidth=1)
    middle.annotate("peak RSS goal 64 MB", (0, 64), va="bottom", fontsize=8, color="#6a1b9a")
    middle.set_ylabel("push-server RSS, MB", color="#6a1b9a")
    middle.set_ylim(0, max(70, max(s["rss_mb"] for s in samples) * 1.1))
    cpu = middle.twinx()
    cpu.spines["right"].set_visible(True)
    busy = [0.0] + [100 * (b["cpu_s"] - a["cpu_s"]) / (b["t"] - a["t"]) for a, b in zip(samples, samples[1:])]
    cpu.plot(ts, busy, color="#ef6c00", linewidth=0.8, label="CPU %")
    cpu.set_ylabel("push-server CPU, % of one core", color="#ef6c00")
    cpu.set_ylim(bottom=0)
    middle.set_xlabel("seconds since the first POST")
    fig.subplots_adjust(left=0.1, right=0.9, top=0.93, bottom=0.14, hspace=0.12)
    save(fig, "b7-timeline.svg")


for draw in (ratios_chart, payload_chart, b4_chart, b7_chart):
    draw()
