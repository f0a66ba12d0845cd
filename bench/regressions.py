#!/usr/bin/env python3
"""Warns about ratios more than 15% worse than in the last committed bench/results.json.

usage: regressions.py NEW_RESULTS [BASELINE_RESULTS]   (default baseline: `git show HEAD:bench/results.json`)
"Worse" follows each ratio's goal: lower for an at-least goal, higher for an at-most one. Prints one
`warning:` line per regression and never fails the run (the machine's load moves every figure)."""
import json
import subprocess
import sys

THRESHOLD = 0.15


def load_baseline(path):
    try:
        if path:
            return json.load(open(path))
        text = subprocess.run(["git", "show", "HEAD:bench/results.json"], capture_output=True, text=True, check=True).stdout
        return json.loads(text)
    except (OSError, ValueError, subprocess.CalledProcessError):
        return None


new = json.load(open(sys.argv[1]))
old = load_baseline(sys.argv[2] if len(sys.argv) > 2 else None)
if old is None:
    print("regressions: no committed bench/results.json to compare with")
    sys.exit(0)
before = {r["name"]: r for r in old.get("ratios", []) if r.get("value") is not None}
count = 0
for ratio in new.get("ratios", []):
    previous = before.get(ratio["name"])
    value = ratio.get("value")
    if previous is None or value is None or previous["value"] == 0:
        continue
    change = value / previous["value"]
    worse = change < 1 - THRESHOLD if ratio.get("at_least", True) else change > 1 + THRESHOLD
    if worse:
        count += 1
        print(f"warning: {ratio['name']} {value:.2f} against {previous['value']:.2f} in the committed results "
              f"({(change - 1) * 100:+.0f}%)")
print(f"regressions: {count} ratio(s) more than {THRESHOLD:.0%} worse than the committed bench/results.json")
