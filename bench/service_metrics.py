"""What the benchmark harnesses read from push-server's /metrics (bench/b7_service.py, bench/b11_cluster.py)."""

# The outcomes that end a notification (push_notifications_total's `outcome` label); "retry" is not an end.
FINAL_OUTCOMES = ("accepted", "rejected", "failed", "expired")


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
