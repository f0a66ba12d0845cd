"""What the benchmark harnesses read from push-server's /metrics (bench/b7_service.py, bench/b11_cluster.py)."""


def answered(text):
    """Notifications a /metrics page counts as answered (accepted, rejected or failed; retries are not answers)."""
    total = 0
    for line in text.splitlines():
        if line.startswith("push_notifications_total{") and 'outcome="retry"' not in line:
            total += int(float(line.rsplit(" ", 1)[1]))
    return total
