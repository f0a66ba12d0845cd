"""What the benchmark harnesses read from push-server's /metrics (bench/b7_service.py, bench/b11_cluster.py), and
B7H's load: half of B7's rate in bench/raw.jsonl."""
import json
import os
import statistics
import sys

# The outcomes that end a notification (push_notifications_total's `outcome` label); "retry" is not an end.
FINAL_OUTCOMES = ("accepted", "rejected", "failed", "expired")


def cpu_seconds(pid):
    """User and system CPU of process `pid` so far, in seconds (from /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def outcomes(text):
    """Notifications a /metrics page counts per final outcome (accepted, rejected, failed, expired), summed
    over apps and reasons; each outcome is present, 0 when none."""
    counts = {outcome: 0 for outcome in FINAL_OUTCOMES}
    for line in text.splitlines():
        if not line.startswith("push_notifications_total{"):
            continue
        labels, value = line.rsplit(" ", 1)
        match = [o for o in FINAL_OUTCOMES if f'outcome="{o}"' in labels]
        if match:
            counts[match[0]] += int(float(value))
    return counts


def answered(text):
    """Notifications a /metrics page counts as finished, whatever the outcome (retries are not answers): what
    a harness waits for. Only the accepted ones count as delivered (`outcomes(text)["accepted"]`)."""
    return sum(outcomes(text).values())


def purged(text, table):
    """The rows a /metrics page counts as deleted by the retention job from `table` (for the outbox: its
    notifications)."""
    return sum(int(float(line.rsplit(" ", 1)[1])) for line in text.splitlines()
               if line.startswith(f'push_store_purged_rows_total{{table="{table}"}}'))


def metrics_result(counts, n, elapsed, cpu_seconds):
    """The figures of a run judged by /metrics alone (B7L): `counts` per outcome when the run ended, `n` the
    notifications posted. Rate and CPU per notification count only the accepted ones; rejected, failed and
    expired are reported apart, and any of them, or fewer accepted than posted, is the run's first error."""
    accepted = counts.get("accepted", 0)
    result = {"n": accepted, "posted": n, "accepted": accepted, "rejected": counts.get("rejected", 0),
              "failed": counts.get("failed", 0), "expired": counts.get("expired", 0),
              "rate": accepted / elapsed if elapsed > 0 else None, "elapsed_s": round(elapsed, 3),
              "cpu_us_per_notification": cpu_seconds * 1e6 / max(1, accepted)}
    if accepted < n:
        result["first_error"] = (f"{accepted} of {n} accepted ({result['rejected']} rejected, {result['failed']} failed, "
                                 f"{result['expired']} expired)")
    return result


def half_rate(raw_lines, case):
    """Half the median rate of `case`'s measured runs in bench/raw.jsonl's lines (CASE<TAB>run<TAB>JSON...),
    None when it has no measured run with a rate: the load of B7H, at half of B7's maximum."""
    rates = []
    for line in raw_lines:
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 3 or parts[0] != case or parts[1] != "run":
            continue
        try:
            run = json.loads(parts[2])
        except ValueError:
            continue
        if isinstance(run.get("rate"), (int, float)) and run["rate"] > 0 and not run.get("error"):
            rates.append(run["rate"])
    return statistics.median(rates) / 2 if rates else None


if __name__ == "__main__":
    # service_metrics.py half-rate RAW CASE: prints half of CASE's median rate (nothing, exit 1, when none).
    if len(sys.argv) == 4 and sys.argv[1] == "half-rate":
        with open(sys.argv[2]) as f:
            rate = half_rate(f.readlines(), sys.argv[3])
        if rate is None:
            sys.exit(1)
        print(f"{rate:.0f}")
    else:
        print("usage: service_metrics.py half-rate RAW CASE", file=sys.stderr)
        sys.exit(2)
