#!/usr/bin/env python3
"""Adds whole-process CPU from `/usr/bin/time -f "%U %S"` to a push-bench client JSON line, so the client
is measured the way h2load is: process_cpu_us_per_notification = (user + sys) / every notification sent."""
import json
import sys

line, time_path = sys.argv[1], sys.argv[2]
try:
    result = json.loads(line)
except ValueError:
    print(line)
    sys.exit(0)
try:
    user, system = (float(x) for x in open(time_path).read().split()[-2:])
    sent = int(result.get("n", 0)) + int(result.get("warmup_n", 0))
    if sent > 0:
        result["process_cpu_us_per_notification"] = round((user + system) * 1e6 / sent, 3)
except (OSError, ValueError):
    result["error"] = result.get("error") or "no /usr/bin/time output"
print(json.dumps(result))
